import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, type InjectedServer, injectServer, readRows, sharedDataFile, withoutNullParams } from "../../../src/testing/index.ts";
import weather from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
let env: InjectedServer;
const post = (path: string, json: unknown) => env.post(path, json);

before(async () => (env = await injectServer(weather, {}, { instanceName: "weather" })));
after(() => env.close());

test("get_weather answers for the city it is given", async () => {
  const answer = await post("/get_weather", { city: "Lima" });
  assert.equal(answer.text, '{"city":"Lima","weather_description":"The weather in Lima is cold."}');
});

test("get_weather without a city is a 422 naming it", async () => {
  const answer = await post("/get_weather", {});
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "city"]);
});

test("every rollout scores 1.0", async () => {
  const answer = await post("/verify", { ...rows[0], response: { id: "r", created_at: 1, model: "m", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] } });
  assert.equal(answer.json<{ reward: number }>().reward, 1);
});

test("the example data has 5 valid rows offering exactly the served tools", async () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, weather.toolDefinitions);
  assert.deepEqual((await env.get("/tools")).json(), weather.toolDefinitions);
});

const reference = sharedDataFile("example_single_tool_call/data/example_rollouts.jsonl");
test("re-verifying NeMo Gym's reference rollouts reproduces every stored reward", { skip: reference.skip }, async () => {
  for (const rollout of readRows(reference.path!)) {
    const { reward, ...request } = rollout;
    const answer = await post("/verify", withoutNullParams(request));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json<{ reward: number }>().reward, reward);
  }
});
