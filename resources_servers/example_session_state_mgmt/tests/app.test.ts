import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, type InjectedServer, injectServer, readRows, sharedDataFile, withoutNullParams } from "../../../src/testing/index.ts";
import counter from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
let env: InjectedServer;
const post = (path: string, json: unknown, cookies?: Record<string, string>) => env.post(path, json, { cookies });
const emptyResponse = { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };

before(async () => (env = await injectServer(counter, {}, { instanceName: "counter" })));
after(() => env.close());

test("seed → increments → read → verify, in one session", async () => {
  let cookies = (await post("/seed_session", { responses_create_params: { input: "x" }, initial_count: 3, expected_count: 6 })).cookies;
  cookies = (await post("/increment_counter", { count: 1 }, cookies)).cookies;
  cookies = (await post("/increment_counter", { count: 2 }, cookies)).cookies;
  const read = await post("/get_counter_value", {}, cookies);
  assert.equal(read.text, '{"count":6}');
  const verified = await post("/verify", { responses_create_params: { input: "x" }, response: emptyResponse, expected_count: 6 }, read.cookies);
  assert.deepEqual(Object.keys(verified.json<object>()), ["responses_create_params", "response", "reward"]);
  assert.equal(verified.json<{ reward: number }>().reward, 1);
});

test("seeding requires initial_count (422), as NeMo Gym's seed model does", async () => {
  const answer = await post("/seed_session", { responses_create_params: { input: "x" } });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "initial_count"]);
});

test("a tool called before seeding starts the counter at 0; an untouched session scores 0", async () => {
  const cookies = (await post("/increment_counter", { count: 5 })).cookies;
  assert.equal((await post("/get_counter_value", {}, cookies)).json<{ count: number }>().count, 5);
  const fresh = await post("/verify", { responses_create_params: { input: "x" }, response: emptyResponse, expected_count: 0 });
  assert.equal(fresh.json<{ reward: number }>().reward, 0);
});

test("two sessions changed concurrently never see each other's counter", async () => {
  const a = (await post("/seed_session", { initial_count: 100 })).cookies;
  const b = (await post("/seed_session", { initial_count: 0 })).cookies;
  await Promise.all(Array.from({ length: 10 }, (_, i) => post("/increment_counter", { count: 1 }, i % 2 ? a : b)));
  assert.equal((await post("/get_counter_value", {}, a)).json<{ count: number }>().count, 105);
  assert.equal((await post("/get_counter_value", {}, b)).json<{ count: number }>().count, 5);
});

test("the example data has 5 valid rows offering exactly the served tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, counter.toolDefinitions);
});

const reference = sharedDataFile("example_session_state_mgmt/parity/reference_verify.jsonl");
test("NeMo Gym's reference rows, with their tool calls replayed in one session, give the stored rewards", { skip: reference.skip }, async () => {
  for (const { expected_reward, expected_extra: _extra, replay_tool_calls: _replay, ...request } of readRows(reference.path!)) {
    let cookies = (await post("/seed_session", request)).cookies;
    for (const item of request.response.output) {
      if (item.type === "function_call") cookies = (await post(`/${item.name}`, JSON.parse(item.arguments), cookies)).cookies;
    }
    const verified = await post("/verify", withoutNullParams(request), cookies);
    assert.equal(verified.json<{ reward: number }>().reward, expected_reward);
  }
});
