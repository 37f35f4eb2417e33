import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, assistantMessage, functionCallItem, type InjectedServer, injectServer, readRows, responseWith } from "../../../src/testing/index.ts";
import multireward from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const row = rows[0]!; // Lisbon
let env: InjectedServer;

before(async () => (env = await injectServer(multireward, {}, { instanceName: "multireward" })));
after(() => env.close());

type Scored = { reward: number; reward_components: Record<string, number>; correctness: number; schema_valid: number; format: number; predicted_calls: unknown[] };
const weather = (args: unknown) => functionCallItem("get_weather", args);
async function verify(output: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const answer = await env.post("/verify", { ...row, response: responseWith(output), ...extra });
  assert.equal(answer.status, 200, answer.text);
  return answer;
}
const scored = async (output: Record<string, unknown>[], extra?: Record<string, unknown>) => (await verify(output, extra)).json<Scored>();

test("get_weather answers a sunny sentence for its city", async () => {
  assert.equal((await env.post("/get_weather", { city: "Lima" })).text, '{"city":"Lima","weather_description":"The weather in Lima is sunny."}');
});

test("the expected call alone scores all three components, reward 3", async () => {
  const result = await scored([weather({ city: "Lisbon" })]);
  assert.deepEqual(result.reward_components, { correctness: 1, schema_valid: 1, format: 1 });
  assert.equal(result.reward, 3);
});

test("the response carries NeMo Gym's fields, components as Python floats, and echoes expected_call", async () => {
  const answer = await verify([weather({ city: "Lisbon" })]);
  assert.deepEqual(Object.keys(answer.json<object>()), ["responses_create_params", "response", "reward", "expected_call", "reward_components", "correctness", "schema_valid", "format", "predicted_calls"]);
  assert.match(answer.text, /"reward_components":\{"correctness":1\.0,"schema_valid":1\.0,"format":1\.0\},"correctness":1\.0,"schema_valid":1\.0,"format":1\.0,/);
  assert.deepEqual(answer.json<Scored>().predicted_calls, [{ name: "get_weather", arguments: { city: "Lisbon" } }]);
});

test("a wrong city keeps schema_valid and format: only correctness drops", async () => {
  const result = await scored([weather({ city: "Porto" })]);
  assert.deepEqual(result.reward_components, { correctness: 0, schema_valid: 1, format: 1 });
  assert.equal(result.reward, 2);
});

test("a missing required parameter drops schema_valid (and correctness)", async () => {
  const result = await scored([weather({})]);
  assert.deepEqual([result.correctness, result.schema_valid, result.format], [0, 0, 1]);
});

test("arguments that are not JSON drop schema_valid and are reported as {}", async () => {
  const result = await scored([weather("{not valid json")]);
  assert.deepEqual([result.schema_valid, result.format], [0, 1]);
  assert.deepEqual(result.predicted_calls, [{ name: "get_weather", arguments: {} }]);
});

test("arguments that are JSON but not an object are not schema-valid", async () => {
  const result = await scored([weather('["Lisbon"]')]);
  assert.deepEqual([result.correctness, result.schema_valid], [0, 0]);
});

test("an assistant message next to the call drops format only", async () => {
  const result = await scored([weather({ city: "Lisbon" }), assistantMessage("Here you go!")]);
  assert.deepEqual([result.correctness, result.schema_valid, result.format], [1, 1, 0]);
});

test("two calls drop format; correctness holds if any call matches", async () => {
  const result = await scored([weather({ city: "Porto" }), weather({ city: "Lisbon" })]);
  assert.deepEqual([result.correctness, result.schema_valid, result.format], [1, 1, 0]);
});

test("schema_valid reads the first call only", async () => {
  const result = await scored([weather({}), weather({ city: "Lisbon" })]);
  assert.deepEqual([result.correctness, result.schema_valid], [1, 0]);
});

test("no call at all scores nothing", async () => {
  assert.equal((await scored([assistantMessage("It is raining.")])).reward, 0);
});

test("a call to a tool the row does not offer has no required parameters: schema-valid", async () => {
  const result = await scored([functionCallItem("get_forecast", { city: "Lisbon" })]);
  assert.deepEqual([result.correctness, result.schema_valid, result.format], [0, 1, 1]);
});

test("argument values compare with Python's ==: extra predicted keys are ignored, 1 equals 1.0", async () => {
  const expected_call = { name: "get_weather", arguments: { city: "Lisbon", days: 1 } };
  assert.equal((await scored([weather('{"city": "Lisbon", "days": 1.0, "units": "metric"}')], { expected_call })).correctness, 1);
});

test("an expected_call left out (NeMo Gym's default {}) is never correct", async () => {
  const { expected_call: _dropped, ...withoutExpected } = row;
  const answer = await env.post("/verify", { ...withoutExpected, response: responseWith([weather({ city: "Lisbon" })]) });
  assert.deepEqual(answer.json<Scored>().reward_components, { correctness: 0, schema_valid: 1, format: 1 });
});

test("same total, different composition: the GDPO motivation", async () => {
  const wrongCity = await scored([weather({ city: "Porto" })]);
  const withText = await scored([weather({ city: "Lisbon" }), assistantMessage("Done.")]);
  assert.equal(wrongCity.reward, 2);
  assert.equal(withText.reward, 2);
  assert.notDeepEqual(wrongCity.reward_components, withText.reward_components);
});

test("an expected_call that is not an object is a 422 naming it", async () => {
  const answer = await env.post("/verify", { ...row, expected_call: "get_weather", response: responseWith([]) });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "expected_call"]);
});

test("/aggregate_metrics reports a mean per component", async () => {
  const responses = [await scored([weather({ city: "Lisbon" })]), await scored([weather({ city: "Porto" })])];
  const metrics = (await env.post("/aggregate_metrics", { verify_responses: responses.map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 })) })).json<any>();
  assert.equal(metrics.agent_metrics["mean/correctness"], 0.5);
  assert.equal(metrics.agent_metrics["mean/format"], 1);
});

test("the example data has 5 valid rows offering exactly the served tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, multireward.toolDefinitions);
});
