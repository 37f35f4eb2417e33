// blackjack over HTTP with seeded deals: each episode's RNG is CPython's random.Random(seed), so the hands below
// are the ones NeMo Gym's Python deals for that seed (the sequences were read from CPython 3.12).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PythonRandom } from "../../../src/python/random.ts";
import { assertRowsAreRunRequests, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import { blackjackServer, handValue } from "../app.ts";

const seeds: number[] = [];
let env: InjectedServer;
before(async () => (env = await injectServer(blackjackServer(() => new PythonRandom(seeds.shift() ?? 0)), {}, { instanceName: "blackjack" })));
after(() => env.close());

const params = { input: [{ role: "user", content: "Deal me in." }] };
const said = (text: string) => responseWith([assistantMessage(text)]);
/** A new episode dealt from random.Random(seed), and a way to act in it. */
async function deal(seed: number) {
  seeds.push(seed);
  const session = env.session();
  const reset = await session.post("/reset", { responses_create_params: params });
  const act = async (text: string) => (await session.post("/step", { responses_create_params: params, response: said(text) })).json<Record<string, any>>();
  return { observation: reset.json<{ observation: string }>().observation, act };
}

test("aces count 11 unless that busts the hand, then 1; face cards count 10", () => {
  assert.deepEqual([handValue(["5", "7"]), handValue(["K", "Q"]), handValue(["A", "K", "5"]), handValue(["A", "9"]), handValue(["A", "A"])], [12, 20, 16, 20, 12]);
});

test("reset deals the player two cards and the dealer two, as random.Random(7) draws them, showing one", async () => {
  const { observation } = await deal(7);
  assert.equal(observation, "Your hand: [7, 4] = 11\nDealer shows: 8\nRespond with <action>hit</action> or <action>stand</action>.");
});

test("a hit that does not bust goes on with the new hand and no reward", async () => {
  const { act } = await deal(7);
  assert.deepEqual(await act("<action>hit</action>"), {
    observation: "Your hand: [7, 4, 2] = 13\nDealer shows: 8\nRespond with <action>hit</action> or <action>stand</action>.",
    reward: 0, terminated: false, truncated: false, info: {},
  });
});

test("a hit that busts loses at once (-1)", async () => {
  const { act } = await deal(3);
  assert.deepEqual(await act("<action>hit</action>"), { observation: null, reward: -1, terminated: true, truncated: false, info: { result: "bust", player: "[5, J, 7]", value: 22 } });
});

test("standing lets the dealer draw to 17: a dealer bust wins (+1)", async () => {
  const { act } = await deal(2);
  const step = await act("<action>stand</action>");
  assert.deepEqual([step.reward, step.info], [1, { result: "win", player: "[2, 3]", player_value: 5, dealer: "[3, 7, 4, K]", dealer_value: 24 }]);
});

test("equal hands draw (0); a lower hand loses (-1)", async () => {
  const drawn = await deal(5);
  await drawn.act("<action>hit</action>");
  const draw = await drawn.act("<action>stand</action>");
  assert.deepEqual([draw.reward, draw.info.result, draw.info.player, draw.info.dealer], [0, "draw", "[J, 6, A]", "[K, 7]"]);
  const lost = await (await deal(7)).act("<action>stand</action>");
  assert.deepEqual([lost.reward, lost.info.result, lost.info.dealer_value], [-1, "loss", 18]);
});

test("the action tag is read as NeMo Gym's regex reads it: spaces and case allowed; no tag or another word stands", async () => {
  const decision = async (text: string) => ((await (await deal(7)).act(text)).terminated ? "stand" : "hit");
  assert.deepEqual(
    [await decision("<action>  hit  </action>"), await decision("I think <ACTION>HIT</ACTION>"), await decision("maybe hit?"), await decision("<action>fold</action>"), await decision("<action>stand</action> <action>hit</action>")],
    ["hit", "hit", "stand", "stand", "stand"],
  );
});

test("two sessions deal from their own RNGs", async () => {
  const a = await deal(7);
  const b = await deal(2);
  assert.match(a.observation, /\[7, 4\]/);
  assert.match(b.observation, /\[2, 3\]/);
  assert.equal((await a.act("<action>hit</action>")).observation.split("\n")[0], "Your hand: [7, 4, 2] = 13");
});

test("a stored rollout cannot be re-scored: /verify is a 501 saying why", async () => {
  const answer = await env.post("/verify", { responses_create_params: params, response: said("<action>stand</action>") });
  assert.equal(answer.status, 501);
  assert.match(answer.text, /cannot be replayed/);
});

test("the example rows are run requests for blackjack_gymnasium_agent", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assert.ok(rows.every((row) => (row.agent_ref as { name: string }).name === "blackjack_gymnasium_agent"));
});
