// graphwalks' verify, rule by rule (fastify inject; values from NeMo Gym's Python): the Final Answer list on the last
// non-empty line, F1 over node sets, the fields it reports, the per-problem-type metrics, then the data.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import graphwalks from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");

let env: InjectedServer;
before(async () => {
  env = await injectServer(graphwalks);
});
after(() => env.close());

const post = (text: string, fields: Item = {}) =>
  env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([assistantMessage(text)]), expected_answer: '["a", "b", "c"]', problem_type: "bfs", ...fields });
async function scored(text: string, fields: Item = {}) {
  const reply = await post(text, fields);
  assert.equal(reply.status, 200, reply.text);
  const { f1, parse_failed, predicted_nodes } = reply.json<Item>();
  return { f1, parse_failed, predicted_nodes };
}

describe("the verify response", () => {
  test("has NeMo Gym's fields in order; n_tokens and prompt_chars default to null; f1 is a float", async () => {
    const reply = await post("Final Answer: [c, b, a]");
    assert.deepEqual(Object.keys(reply.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "problem_type", "n_tokens", "prompt_chars", "f1", "parse_failed", "predicted_nodes"]);
    assert.match(reply.text, /"reward":1\.0,"expected_answer":"\[\\"a\\", \\"b\\", \\"c\\"\]","problem_type":"bfs","n_tokens":null,"prompt_chars":null,"f1":1\.0,"parse_failed":false,"predicted_nodes":\["c","b","a"\]}$/);
  });

  test("expected_answer and problem_type are required strings", async () => {
    const reply = await env.post("/verify", { responses_create_params: { input: "q" }, response: responseWith([]), expected_answer: "[]" });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.json<Item>().detail[0].loc, ["body", "problem_type"]);
  });
});

describe("the answer", () => {
  test("F1 over the distinct nodes; predicted_nodes keeps the list as written", async () => {
    assert.deepEqual(await scored("Final Answer: [b, a, b]"), { f1: 0.8, parse_failed: false, predicted_nodes: ["b", "a", "b"] });
    assert.equal((await scored("Final Answer: [x, y]")).f1, 0);
  });

  test("only the last non-empty line is read; without the marker there, parse_failed and 0.0", async () => {
    assert.deepEqual(await scored("Final Answer: [a, b, c]\nLet me double-check."), { f1: 0, parse_failed: true, predicted_nodes: [] });
    assert.equal((await scored("Final Answer: [a, b, c]\n \t\n")).f1, 1);
    assert.equal((await scored("")).parse_failed, true);
  });

  test("quotes stay part of a node (unlike lc_niah)", async () => {
    assert.deepEqual(await scored(`Final Answer: ["a", "b", "c"]`), { f1: 0, parse_failed: false, predicted_nodes: ['"a"', '"b"', '"c"'] });
  });

  test("empty: [] against [] is 1.0, against nodes 0.0; an expected_answer that is no JSON list is empty", async () => {
    assert.equal((await scored("Final Answer: []", { expected_answer: "[]" })).f1, 1);
    assert.equal((await scored("Final Answer: [ ]")).f1, 0);
    assert.equal((await scored("Final Answer: []", { expected_answer: "a, b" })).f1, 1);
    assert.equal((await scored("Final Answer: [a]", { expected_answer: "[[1]]" })).f1, 0, "an unhashable element: no set");
  });
});

describe("the aggregate metrics", () => {
  test("pass@k over the reward and per problem_type, keyed `problem_type=<type>/…`", async () => {
    const verify_responses = [
      { reward: 1.0, problem_type: "bfs", _ng_task_index: 0, _ng_rollout_index: 0 },
      { reward: 0.4, problem_type: "bfs", _ng_task_index: 0, _ng_rollout_index: 1 },
      { reward: 0.0, problem_type: "parents", _ng_task_index: 1, _ng_rollout_index: 0 },
      { reward: 0.5, problem_type: "parents", _ng_task_index: 1, _ng_rollout_index: 1 },
    ];
    const { agent_metrics, key_metrics } = (await env.post("/aggregate_metrics", { verify_responses })).json<Item>();
    assert.equal(agent_metrics["pass@2/accuracy"], 75);
    assert.equal(agent_metrics["problem_type=bfs/pass@1[avg-of-2]/accuracy"], 70);
    assert.equal(agent_metrics["problem_type=parents/pass@2/accuracy"], 50);
    assert.ok(!Object.keys(agent_metrics).some((key) => key.startsWith("bfs/") || key.startsWith("majority@")));
    assert.equal(key_metrics["pass@2/accuracy"], 75);
  });
});

describe("the data", () => {
  test("example rows are /run requests with a problem type and a JSON list answer", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const r of rows) assert.ok(["bfs", "parents"].includes(r.problem_type as string) && Array.isArray(JSON.parse(r.expected_answer as string)));
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
