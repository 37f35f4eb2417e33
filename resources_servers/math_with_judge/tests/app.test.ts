// math_with_judge's verify over real HTTP: the library reward and NeMo Gym's response fields, the default
// (judge off), and the judge path for real — scripted_model plays the judge in the same in-process graph,
// replaying verdicts recorded for the exact prompts, so both orders and the [[A=B]] rule are exercised.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import mathWithJudge from "../app.ts";
import { JUDGE_SYSTEM_MESSAGE } from "../../../src/ports/math/equivalence-judge.ts";

// Another server folder, loaded by its path as a config names it (a server folder imports only src/).
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

const params = { input: [{ role: "user", content: "question" }] };

/** The judge's user prompt, written out as NeMo Gym's JUDGE_PROMPT_TEMPLATE formats it. */
const judgeUserPrompt = (question: string, a: string, b: string) =>
  `<|Problem|>\n${question}\n\n<|Start of Assistant A's Answer|>\n${a}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n${b}\n<|End of Assistant B's Answer|>`;

/** A recorded judge turn for scripted_model's replay mode: this prompt → this verdict. */
const judgeRecording = (question: string, a: string, b: string, verdict: string) => ({
  responses_create_params: { input: [{ role: "system", content: JUDGE_SYSTEM_MESSAGE }, { role: "user", content: judgeUserPrompt(question, a, b) }] },
  response: { output: [assistantMessage(verdict)] },
});

// Each question is a scenario; the model's answer "\boxed{…}" is extracted to the string the judge sees as B.
const recordings = [
  judgeRecording("both-equal", "\\frac{1}{2}", "half", "They agree. [[A=B]]"),
  judgeRecording("both-equal", "half", "\\frac{1}{2}", "Same value: [[A=B]]"),
  judgeRecording("second-differs", "7", "seven", "[[A=B]]"),
  judgeRecording("second-differs", "seven", "7", "My final verdict is different [[A!=B]]"),
  judgeRecording("first-differs", "7", "eight", "[[A!=B]]"),
  judgeRecording("not-equal-label-first", "7", "seven", "Not [[A!=B]], or maybe [[A=B]]"),
];

let judged: InProcessGraph;
let shipped: InProcessGraph;
const client = http();
before(async () => {
  const replayFile = join(mkdtempSync(join(tmpdir(), "gym-math-judge-")), "judge.jsonl");
  writeFileSync(replayFile, recordings.map((r) => JSON.stringify(r)).join("\n") + "\n");
  judged = await startServers({
    math_with_judge: [mathWithJudge, { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] }, should_use_judge: true }],
    judge_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: replayFile }],
  });
  // The shipped configs: judge off (the judge server is never called, so none is started).
  shipped = await startServers({
    math_with_judge: [mathWithJudge, { judge_model_server: { type: "responses_api_models", name: "policy_model" }, judge_responses_create_params: { input: [] }, should_use_judge: false }],
  });
});
after(async () => {
  await judged.close();
  await shipped.close();
  await client.close();
});

const verify = (graph: InProcessGraph, fields: Record<string, unknown>, text: string) =>
  client.request(`${graph.url("math_with_judge")}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });

async function verified(graph: InProcessGraph, question: string, expected: string, text: string) {
  const answer = await verify(graph, { question, expected_answer: expected }, text);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Record<string, any>>();
}

const judgeTexts = (body: Record<string, any>) => body.judge_evaluations.map((e: any) => e.responses_create_params.input[1].content);

describe("math_with_judge verify (judge off, as shipped)", () => {
  test("the response carries NeMo Gym's fields in order; library_reward is a float", async () => {
    const answer = await verify(shipped, { question: "q", expected_answer: "\\(\\frac{1}{2}\\)" }, "So \\boxed{0.5}.");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations"]);
    assert.deepEqual([body.reward, body.expected_answer, body.extracted_answer, body.library_reward, body.judge_evaluations], [1, "\\(\\frac{1}{2}\\)", "1/2", 1, null]);
    assert.match(answer.text, /"reward":1\.0,.*"library_reward":1\.0,"judge_evaluations":null/);
  });

  test("a wrong answer is reward 0 without asking a judge", async () => {
    const body = await verified(shipped, "q", "-3", "\\boxed{-4}");
    assert.deepEqual([body.reward, body.extracted_answer, body.library_reward, body.judge_evaluations], [0, "-4", 0, null]);
  });

  test("only output_text of message items is read (reasoning is not)", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "\\boxed{5}" }] };
    const answer = await client.request(`${shipped.url("math_with_judge")}/verify`, {
      method: "POST",
      json: { responses_create_params: params, response: responseWith([reasoning, assistantMessage("The answer is \\boxed{4}")]), question: "q", expected_answer: "5" },
    });
    assert.equal(answer.json<Record<string, unknown>>().reward, 0);
  });

  test("no answer in the text: reward 0, extracted_answer null", async () => {
    const body = await verified(shipped, "q", "5", "I cannot solve this.");
    assert.deepEqual([body.reward, body.extracted_answer], [0, null]);
  });

  test("a gap of the math-verify port is a 501 naming it, not a guessed 0 (NeMo Gym's math-verify scores it 1.0)", async () => {
    const answer = await verify(shipped, { question: "q", expected_answer: "4" }, String.raw`\boxed{\int_0^2 2x\,dx}`);
    assert.equal(answer.status, 501, answer.text);
    assert.match(answer.json<{ detail: string }>().detail, /\\int .*latex2sympy/);
  });

  test("a missing question or expected_answer is a 422 naming the field", async () => {
    for (const field of ["question", "expected_answer"]) {
      const fields: Record<string, unknown> = { question: "q", expected_answer: "1" };
      delete fields[field];
      const answer = await verify(shipped, fields, "\\boxed{1}");
      assert.equal(answer.status, 422, answer.text);
      assert.match(answer.text, new RegExp(field));
    }
  });

  test("/aggregate_metrics reports symbolic_accuracy (library_reward) with pass@k", async () => {
    const rollouts = [await verified(shipped, "q", "1", "\\boxed{1}"), await verified(shipped, "q", "1", "\\boxed{2}")].map((r, i) => ({ ...r, _ng_task_index: i, _ng_rollout_index: 0 }));
    const answer = await client.request(`${shipped.url("math_with_judge")}/aggregate_metrics`, { method: "POST", json: { verify_responses: rollouts } });
    assert.equal(answer.status, 200, answer.text);
    const metrics = answer.json<{ agent_metrics: Record<string, unknown> }>().agent_metrics;
    assert.equal(metrics["pass@1/symbolic_accuracy"], 50);
  });
});

describe("math_with_judge verify (judge on)", () => {
  test("when the library already agrees, no judge is asked", async () => {
    const body = await verified(judged, "unrecorded question", "\\frac{1}{2}", "\\boxed{0.5}");
    assert.deepEqual([body.reward, body.library_reward, body.judge_evaluations], [1, 1, null]);
  });

  test("the judge is asked in both orders; equal both times → reward 1 while library_reward stays 0", async () => {
    const body = await verified(judged, "both-equal", "\\frac{1}{2}", "It is \\boxed{\\text{half}}");
    assert.deepEqual([body.reward, body.library_reward, body.extracted_answer], [1, 0, "half"]);
    assert.deepEqual(judgeTexts(body), [judgeUserPrompt("both-equal", "\\frac{1}{2}", "half"), judgeUserPrompt("both-equal", "half", "\\frac{1}{2}")]);
    const first = body.judge_evaluations[0];
    assert.deepEqual(first.responses_create_params.input[0], { content: JUDGE_SYSTEM_MESSAGE, role: "system", type: "message" });
    assert.equal(first.responses_create_params.tool_choice, "auto", "the params are dumped in full, as pydantic does");
    assert.match(first.response.model, /^scripted-/);
  });

  test("equal in the first order only → reward 0, both evaluations kept", async () => {
    const body = await verified(judged, "second-differs", "7", "\\boxed{\\text{seven}}");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 2]);
  });

  test("different in the first order → reward 0 and the second order is not asked", async () => {
    const body = await verified(judged, "first-differs", "7", "\\boxed{\\text{eight}}");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 1]);
  });

  test("the first label in the verdict counts: [[A!=B]] before [[A=B]] is 'different'", async () => {
    const body = await verified(judged, "not-equal-label-first", "7", "\\boxed{\\text{seven}}");
    assert.deepEqual([body.reward, body.judge_evaluations.length], [0, 1]);
  });

  test("a judge call that fails is NeMo Gym's judge_failed row (200), not a reward", async () => {
    const answer = await verify(judged, { question: "no verdict recorded for this", expected_answer: "7" }, "\\boxed{8}");
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.equal(body._ng_failure_class, "judge_failed");
    assert.equal(body.reward, 0);
    assert.match(String(body._ng_failure_judge_error), /answered 404/);
    assert.equal(body.question, "no verdict recorded for this", "the verify request is carried");
  });
});

describe("authored data", () => {
  test("data/example.jsonl rows are run requests with question and expected_answer", () => {
    const rows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.deepEqual(Object.keys(row), ["responses_create_params", "question", "expected_answer"]);
  });
});
