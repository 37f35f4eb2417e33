// example_multi_turn_gymnasium over HTTP: the follow-ups in order, then the score of the last turn.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import multiTurn from "../app.ts";

let env: InjectedServer;
before(async () => (env = await injectServer(multiTurn, {}, { instanceName: "example_multi_turn_gymnasium" })));
after(() => env.close());

const row = { responses_create_params: { input: [{ role: "user", content: "Capital of France?" }] }, follow_ups: ["Its population?", "A landmark there?"], expected_answer: "Eiffel" };
const said = (text: string) => responseWith([assistantMessage(text)]);

test("each step before the last asks the next follow-up, whatever the model said, with no reward", async () => {
  const session = env.session();
  assert.equal((await session.post("/reset", row)).text, '{"observation":null,"info":{}}');
  const first = await session.post("/step", { ...row, response: said("Paris") });
  assert.equal(first.text, '{"observation":"Its population?","reward":0.0,"terminated":false,"truncated":false,"info":{}}');
  const second = await session.post("/step", { ...row, response: said("Two million") });
  assert.equal(second.json<{ observation: string }>().observation, "A landmark there?");
});

test("the step after the last follow-up scores 1 when expected_answer is in the answer, case aside, and ends", async () => {
  const session = env.session();
  await session.post("/reset", { ...row, follow_ups: [] });
  const last = await session.post("/step", { ...row, follow_ups: [], response: said("The EIFFEL tower.") });
  assert.equal(last.text, '{"observation":null,"reward":1.0,"terminated":true,"truncated":false,"info":{}}');
});

test("an answer without expected_answer, or a row without one, scores 0", async () => {
  for (const [expected_answer, text] of [["Eiffel", "The Louvre."], ["", "anything"]] as const) {
    const session = env.session();
    await session.post("/reset", { ...row, follow_ups: [], expected_answer });
    assert.equal((await session.post("/step", { ...row, follow_ups: [], expected_answer, response: said(text) })).json<{ reward: number }>().reward, 0);
  }
});

test("follow_ups that are not a list of strings are a 422 naming the field", async () => {
  const answer = await env.post("/reset", { ...row, follow_ups: "Its population?" });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "follow_ups"]);
});

test("/verify replays a whole stored conversation and scores its last turn", async () => {
  const output = [assistantMessage("Paris"), { content: "Its population?", role: "user", type: "message" }, assistantMessage("2M"), { content: "A landmark there?", role: "user", type: "message" }, assistantMessage("The Eiffel Tower")];
  const verified = await env.post("/verify", { ...row, response: responseWith(output) });
  assert.equal(verified.json<{ reward: number }>().reward, 1);
  const cut = await env.post("/verify", { ...row, response: responseWith(output.slice(0, 3)) });
  assert.deepEqual([cut.json<any>().reward, cut.json<any>().truncated], [0, true]);
});

test("the example rows are run requests for example_multi_turn_gymnasium_agent", () => {
  const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
});
