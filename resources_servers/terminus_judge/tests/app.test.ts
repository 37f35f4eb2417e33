// terminus_judge: the verdict rule (the last 200 characters first, then the first label), keystroke similarity and
// the task-completion rule, and verify over real HTTP with scripted_model as the judge (judge_rules): each
// failure_reason, the string-similarity fast pass, the judge fallback with and without the swap, NeMo Gym's field
// order, a failed judge call as the judge_failed row, and data/verifier_cases.jsonl.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { assertVerifierCasesScore, assistantMessage, http, type InProcessGraph, overHttp, readRows, responseWith, serverDefinition, startServers, assertRowsAreRunRequests } from "../../../src/testing/index.ts";
import terminus from "../app.ts";
import { commandSimilarity, parseVerdict, taskCompleteMatches } from "../scoring.ts";
import { fromJsonValue, type PyDict } from "../../../src/python/values.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const EQ = "[[A=B]]";
const NEQ = "[[A!=B]]";

describe("terminus_judge verdict", () => {
  const filler = "x".repeat(250);
  const cases: [string, string, boolean, string | null][] = [
    ["equal", "Same commands. [[A=B]]", true, EQ],
    ["not equal", "[[A!=B]]", false, NEQ],
    ["no label", "They look alike.", false, null],
    ["both in the tail: the rightmost wins", "First [[A!=B]] then Final verdict: [[A=B]]", true, EQ],
    ["both in the tail, not-equal last", "[[A=B]]? No. Final verdict: [[A!=B]]", false, NEQ],
    ["none in the tail: the first label anywhere", `[[A!=B]] early, [[A=B]] later ${filler}`, false, NEQ],
    ["only an early equal label", `[[A=B]] ${filler}`, true, EQ],
    ["a tail label beats an earlier one", `[[A=B]] ${filler} [[A!=B]]`, false, NEQ],
    ["lowercase labels are no labels", "[[a=b]]", false, null],
    ["whitespace inside is no label", "[[A = B]]", false, null],
    ["in a code block", "```\n[[A=B]]\n```", true, EQ],
  ];
  for (const [name, text, equal, label] of cases) test(name, () => assert.deepEqual(parseVerdict(text, EQ, NEQ), { equal, label }));
});

const batch = (value: unknown) => fromJsonValue(value) as PyDict;
describe("terminus_judge similarity and completion", () => {
  test("keystrokes are concatenated in order and compared with difflib's ratio", () => {
    assert.equal(commandSimilarity(batch({ commands: [{ keystrokes: "ls\n" }] }), batch({ commands: [{ keystrokes: "ls\n" }] })), 1);
    assert.equal(commandSimilarity(batch({ commands: [] }), batch({ commands: [] })), 1);
    assert.equal(commandSimilarity(batch({ commands: [{ keystrokes: "ls" }] }), batch({ commands: [] })), 0);
    assert.equal(commandSimilarity(batch({ commands: [{ keystrokes: "abcd" }] }), batch({ commands: [{ keystrokes: "ab" }, { keystrokes: "cx" }] })), 0.75);
    // A long batch (>= 200 characters): autojunk's popular characters still extend a match (CPython's ratio).
    const long = "echo hello; ".repeat(20) + "cd /app && ls -la\n";
    assert.equal(commandSimilarity(batch({ commands: [{ keystrokes: "cd /app && ls\n" }] }), batch({ commands: [{ keystrokes: long }] })), 0.10294117647058823);
  });
  test("a done task must be reported done (task_complete, else is_task_complete)", () => {
    assert.equal(taskCompleteMatches(batch({ task_complete: false }), batch({ task_complete: true })), false);
    assert.equal(taskCompleteMatches(batch({ task_complete: true }), batch({ task_complete: true })), true);
    assert.equal(taskCompleteMatches(batch({}), batch({ task_complete: false })), true);
    assert.equal(taskCompleteMatches(batch({ is_task_complete: false }), batch({ is_task_complete: true })), false);
  });
});

const exp = (keystrokes: string[], done = false) => JSON.stringify({ analysis: "a", plan: "p", commands: keystrokes.map((k) => ({ keystrokes: k, duration: 0.1 })), task_complete: done });
const rules = [
  { match: "CANDIDATE: \\{\"analysis\":\"judged-equal\"", answer: "Same effect. [[A=B]]" },
  { match: "GOLD: \\{\"analysis\":\"judged-equal\"", answer: "Swapped, still [[A=B]]" },
  { match: "CANDIDATE: \\{\"analysis\":\"judged-different\"", answer: "[[A!=B]]" },
  { match: "CANDIDATE: \\{\"analysis\":\"judged-mute\"", answer: "no idea" },
  { match: "CANDIDATE: \\{\"analysis\":\"swap-differs\"", answer: "[[A=B]]" },
  { match: "GOLD: \\{\"analysis\":\"swap-differs\"", answer: "[[A!=B]]" },
  // The verdicts data/env_test.yaml scripts for the judged cases of data/verifier_cases.jsonl (last test).
  ...(parseYaml(readFileSync(join(import.meta.dirname, "../data/env_test.yaml"), "utf8")).env_test_judge.responses_api_models.scripted_model.judge_rules as { match: string; answer: string }[]),
];
const instance = (overrides: Record<string, unknown> = {}) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [] },
  judge_prompt_template_fpath: "prompt_templates/example.txt",
  judge_endpoint_max_concurrency: null,
  enable_string_similarity: true,
  string_similarity_threshold: 0.95,
  enable_llm_judge: true,
  ...overrides,
});

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    shipped: [terminus, instance()],
    swap: [terminus, instance({ check_twice_swap: true, reward_if_swap_fails: -1.0, enable_string_similarity: false })],
    neither: [terminus, instance({ enable_string_similarity: false, enable_llm_judge: false })],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: rules }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const EXPECTED = exp(["ls -la\n", "cat notes.txt\n"]);
const params = { input: [{ role: "user", content: "task" }] };
async function verify(server: string, output: string, fields: Record<string, unknown> = {}) {
  const answer = await client.request(`${graph.url(server)}/verify`, {
    method: "POST",
    json: { responses_create_params: params, response: responseWith([assistantMessage(output)]), expected_answer: EXPECTED, uuid: "u-1", metadata: { harness: "terminus_2" }, ...fields },
  });
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}
const candidate = (analysis: string, keystrokes: string[]) => JSON.stringify({ analysis, plan: "p", commands: keystrokes.map((k) => ({ keystrokes: k })) });

describe("terminus_judge verify", () => {
  test("a near-identical batch passes on similarity alone: reward 1, no judge, NeMo Gym's fields in order", async () => {
    const { body, text } = await verify("shipped", `<think>plan</think> ${candidate("x", ["ls -la\n", "cat notes.txt\n"])}`);
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "uuid", "expected_answer", "model_output", "parsed_output", "similarity_score", "schema_check_passed",
      "task_complete_check_passed", "string_similarity_passed", "judge_passed", "failure_reason", "judge_evaluations", "metadata", "threshold",
    ]);
    assert.deepEqual([body.reward, body.similarity_score, body.string_similarity_passed, body.judge_passed, body.failure_reason, body.judge_evaluations], [1, 1, true, null, "none", []]);
    assert.equal(body.model_output, candidate("x", ["ls -la\n", "cat notes.txt\n"]), "the text after </think>, stripped");
    assert.match(text, /"similarity_score":1\.0/);
  });

  test("below the threshold the judge decides: [[A=B]] → 1, [[A!=B]] → 0, no label → judge_parsing_failed", async () => {
    const equal = (await verify("shipped", candidate("judged-equal", ["ls\n"]))).body;
    assert.deepEqual([equal.reward, equal.string_similarity_passed, equal.judge_passed, equal.failure_reason, equal.judge_evaluations[0].verdict_label], [1, false, true, "none", EQ]);
    assert.match(equal.judge_evaluations[0].responses_create_params.input[0].content, /^Compare two terminal command batches/);
    const different = (await verify("shipped", candidate("judged-different", ["ls\n"]))).body;
    assert.deepEqual([different.reward, different.judge_passed, different.failure_reason], [0, false, "judge_not_equivalent"]);
    const mute = (await verify("shipped", candidate("judged-mute", ["ls\n"]))).body;
    assert.deepEqual([mute.reward, mute.judge_passed, mute.failure_reason, mute.judge_evaluations[0].verdict_label], [0, null, "judge_parsing_failed", null]);
  });

  test("the swap: equal both ways → 1; equal then not → reward_if_swap_fails", async () => {
    const both = (await verify("swap", candidate("judged-equal", ["ls\n"]))).body;
    assert.deepEqual([both.reward, both.judge_evaluations.length, both.similarity_score], [1, 2, null]);
    const differs = (await verify("swap", candidate("swap-differs", ["ls\n"]))).body;
    assert.deepEqual([differs.reward, differs.judge_passed, differs.failure_reason], [-1, false, "judge_not_equivalent"]);
  });

  test("a failed judge call is the judge_failed row", async () => {
    const { body } = await verify("shipped", candidate("no rule knows this", ["ls\n"]));
    assert.deepEqual([body.reward, body._ng_failure_class], [0, "judge_failed"]);
  });

  test("each early failure_reason, and the row's threshold overriding the config's", async () => {
    const reason = async (output: string, fields: Record<string, unknown> = {}, server = "neither") => (await verify(server, output, fields)).body.failure_reason;
    assert.equal(await reason("x", { expected_answer: "", metadata: { harness: "terminus_2" } }), "expected_answer_invalid");
    assert.equal(await reason(""), "model_output_invalid");
    assert.equal(await reason("not json"), "model_output_invalid");
    assert.equal(await reason("[1]"), "model_output_invalid");
    assert.equal(await reason(candidate("x", [])), "none");
    assert.equal(await reason(candidate("x", []), { expected_answer: "{oops" }), "expected_answer_invalid");
    assert.equal(await reason(candidate("x", []), { metadata: { harness: "terminus_9" } }), "unknown_harness");
    assert.equal(await reason(candidate("x", []), { metadata: { harness: "terminus_1" } }), "expected_answer_invalid");
    assert.equal(await reason(JSON.stringify({ analysis: "x", commands: [] })), "schema_check_failed");
    assert.equal(await reason(candidate("x", []), { expected_answer: exp([], true) }), "task_complete_check_failed");
    const lenient = (await verify("shipped", candidate("judged-different", ["ls -la\n"]), { threshold: 0.5 })).body;
    assert.deepEqual([lenient.reward, lenient.string_similarity_passed, lenient.threshold], [1, true, 0.5]);
  });

  test("the expected answer may come from metadata; lone surrogates are scrubbed in what comes back", async () => {
    const { body } = await verify("neither", candidate("x\ud800", []), { expected_answer: null, metadata: { harness: "terminus_2", expected_answer: EXPECTED } });
    assert.deepEqual([body.reward, body.parsed_output.analysis, body.expected_answer], [1, "x\ufffd\ufffd\ufffd", EXPECTED]);
  });

  test("data/verifier_cases.jsonl scores as expected; data/example.jsonl holds five run requests", async () => {
    await assertVerifierCasesScore(overHttp(graph.url("shipped"), client), join(import.meta.dirname, "../data/verifier_cases.jsonl"), { kinds: ["full_reward", "zero_reward", "malformed"] });
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
  });
});
