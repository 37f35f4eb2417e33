import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertRowToolsMatchServer, type InjectedServer, injectServer, readRows, sharedDataFile, withoutNullParams } from "../../../src/testing/index.ts";
import multiStep from "../app.ts";

const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
let env: InjectedServer;
const post = (path: string, json: unknown) => env.post(path, json);

before(async () => (env = await injectServer(multiStep, {}, { instanceName: "multi" })));
after(() => env.close());

const responseWith = (...submissions: unknown[]) => ({
  id: "r", created_at: 1, model: "m", object: "response", parallel_tool_calls: false, tool_choice: "auto", tools: [],
  output: submissions.map((values, i) => ({ type: "function_call", name: "extract_synonym_values", arguments: typeof values === "string" ? values : JSON.stringify({ synonym_values: values }), call_id: `c${i}` })),
});
const row = { responses_create_params: { input: "x" }, id: 1, expected_synonyms: ["Blazing", "Warm"], expected_synonym_values: [711, 407], minefield_label: "Hot", minefield_label_value: 299 };
const verify = async (...submissions: unknown[]) => {
  const answer = await post("/verify", { ...row, response: responseWith(...submissions) });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, unknown>>();
};

test("a synonym's value is the sum of its code points", async () => {
  assert.deepEqual((await post("/get_synonym_value", { synonym: "Blazing" })).json(), { synonym_value: 711 });
  assert.deepEqual((await post("/get_synonym_value", { synonym: "Warm" })).json(), { synonym_value: 407 });
  assert.deepEqual((await post("/extract_synonym_values", { synonym_values: [1] })).json(), { success: true });
});

test("the exact values in order score 1 with full overlap", async () => {
  const result = await verify([711, 407]);
  assert.deepEqual(
    { reward: result.reward, accuracy: result.accuracy, set_overlap: result.set_overlap, parsed: result.parsed_synonym_values, hit: result.original_term_minefield_hit, order: result.order_instruction_following_failure },
    { reward: 1, accuracy: true, set_overlap: 1, parsed: [711, 407], hit: false, order: false },
  );
});

test("the right values in the wrong order score 0 and flag an order failure", async () => {
  const result = await verify([407, 711]);
  assert.equal(result.reward, 0);
  assert.equal(result.order_instruction_following_failure, true);
});

test("only the last submission counts; the original term's value is a minefield hit", async () => {
  const result = await verify([711, 407], [299]);
  assert.equal(result.reward, 0);
  assert.equal(result.set_overlap, 0);
  assert.equal(result.original_term_minefield_hit, true);
});

test("no submission scores 0 with an empty parse; partial overlap is a fraction", async () => {
  assert.deepEqual((await verify()).parsed_synonym_values, []);
  assert.equal((await verify([711])).set_overlap, 0.5);
});

test("set_overlap is written as a float, like Python", async () => {
  const answer = await post("/verify", { ...row, response: responseWith([711, 407]) });
  assert.match(answer.text, /"set_overlap":1\.0/);
});

test("malformed submission arguments fail verify (500) rather than scoring 0", async () => {
  const answer = await post("/verify", { ...row, response: responseWith("{oops") });
  assert.equal(answer.status, 500);
  assert.match(answer.json<string>(), /^SyntaxError/);
});

test("the example data has 5 valid rows offering exactly the served tools", () => {
  assert.equal(rows.length, 5);
  assertRowsAreRunRequests(rows);
  assertRowToolsMatchServer(rows, multiStep.toolDefinitions);
});

const reference = sharedDataFile("example_multi_step/parity/reference_verify.jsonl");
test("NeMo Gym's reference verify requests give the same reward and extra fields", { skip: reference.skip }, async () => {
  for (const { expected_reward, expected_extra, ...request } of readRows(reference.path!)) {
    const result = await (await post("/verify", withoutNullParams(request))).json<Record<string, unknown>>();
    assert.equal(result.reward, expected_reward);
    for (const [key, value] of Object.entries(expected_extra ?? {})) assert.deepEqual(result[key], value, key);
  }
});
