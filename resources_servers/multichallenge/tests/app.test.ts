// multichallenge's verify over real HTTP, with scripted_model as the judge (judge_rules: the verdict for each
// rubric question is a rule on the prompt): the prompt as formatted, each item's verdict and score, every
// aggregation mode on one rubric, the context and rubric read from metadata, thinking stripped on both sides, and a
// judge that cannot answer giving NeMo Gym's judge_failed row.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, http, type InProcessGraph, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import multichallenge from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

// The judge: a verdict per question, matched on the prompt's EVALUATION QUESTION section.
const rule = (question: string, answer: string) => ({ match: `EVALUATION QUESTION:\\n${question}\\n`, answer });
const JUDGE_RULES = [
  rule("Q-yes", "The reply does it.\n[[YES]]"),
  rule("Q-no", "It does not.\n[[NO]]"),
  rule("Q-changed-mind", "[[NO]] at first, then [[YES]]"),
  rule("Q-lowercase", "Looks fine.\nyes"),
  rule("Q-no-verdict", "I am not able to decide."),
  rule("Q-thinking", "<think>[[YES]] surely</think>\nOn reflection: [[NO]]"),
  rule("Q-codeblock", "```\n[[YES]]\n```"),
];

const TEMPLATE = "CTX<{context}>\nRESP<{response}>\nEVALUATION QUESTION:\n{question}\nEXPECTED: {pass_criteria}";
const base = (fields: Record<string, unknown> = {}) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], temperature: 0.7, max_output_tokens: 64 },
  judge_prompt_template: TEMPLATE,
  ...fields,
});
const MODES = ["mean", "min", "max", "all", "any", "weighted"] as const;

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    multichallenge: [multichallenge, base()],
    ...Object.fromEntries(MODES.map((mode) => [`mc_${mode}`, [multichallenge, base({ aggregation_mode: mode })]])),
    mc_sequential: [multichallenge, base({ parallel_evaluation: false, judge_system_message: null })],
    mc_defaults: [multichallenge, { judge_model_server: { type: "responses_api_models", name: "judge_model" }, judge_responses_create_params: { input: [] } }],
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: JUDGE_RULES }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const params = { input: [{ role: "user", content: "Suggest a snack." }] };
const item = (question: string, pass_criteria?: string, weight?: number) => ({ question, ...(pass_criteria ? { pass_criteria } : {}), ...(weight !== undefined ? { weight } : {}) });

async function verify(fields: Record<string, unknown>, text = "Try apple slices.", instance = "multichallenge") {
  const answer = await client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });
  return answer;
}
async function verified(fields: Record<string, unknown>, text?: string, instance?: string) {
  const answer = await verify(fields, text, instance);
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}

describe("multichallenge verify", () => {
  test("NeMo Gym's response fields in order; the judge prompt as formatted; floats keep their .0", async () => {
    const { body, text } = await verified({ uuid: "u1", task_id: 7, context: "[USER]: Suggest a snack.", rubric: [item("Q-yes", "YES"), item("Q-no", "NO")], metadata: { topic: "Food" }, agent_ref: { name: "a" } });
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "context", "generated_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total", "uuid", "task_id", "metadata", "agent_ref",
    ]);
    assert.deepEqual([body.reward, body.num_passed, body.num_total, body.aggregation_mode], [1, 2, 2, "mean"]);
    assert.equal(body.generated_response, "Try apple slices.");
    assert.deepEqual(body.rubric_evaluations[0], {
      question: "Q-yes",
      pass_criteria: "YES",
      judge_prompt: "CTX<[USER]: Suggest a snack.>\nRESP<Try apple slices.>\nEVALUATION QUESTION:\nQ-yes\nEXPECTED: YES",
      judge_response: "The reply does it.\n[[YES]]",
      verdict: "YES",
      score: 1,
      weight: 1,
    });
    assert.deepEqual([body.rubric_evaluations[1].verdict, body.rubric_evaluations[1].score], ["NO", 1], "pass criteria NO is met by a NO verdict");
    assert.match(text, /"reward":1\.0,/);
    assert.match(text, /"score":1\.0,"weight":1\.0/);
    assert.deepEqual([body.uuid, body.task_id, body.metadata], ["u1", 7, { topic: "Food" }]);
  });

  test("each odd judge answer is scored by the parser, never a failure", async () => {
    const { body } = await verified({ context: "c", rubric: ["Q-changed-mind", "Q-lowercase", "Q-no-verdict", "Q-thinking", "Q-codeblock"].map((q) => item(q)) });
    assert.deepEqual(body.rubric_evaluations.map((e: any) => e.verdict), ["YES", "YES", "NO", "NO", "YES"]);
    assert.equal(body.rubric_evaluations[3].judge_response, "On reflection: [[NO]]", "the judge's thinking is stripped before the verdict is read");
    assert.equal(body.reward, 3 / 5);
    assert.equal(body.num_passed, 3);
  });

  test("every aggregation mode on the same rubric", async () => {
    const rubric = [item("Q-yes", "YES", 3), item("Q-no", "YES", 1), item("Q-no", "NO", 0.5), item("Q-yes", "NO", 0.5)];
    const expected = { mean: 0.5, min: 0, max: 1, all: 0, any: 1, weighted: 3.5 / 5 };
    for (const mode of MODES) {
      const { body } = await verified({ context: "c", rubric }, undefined, `mc_${mode}`);
      assert.equal(body.reward, expected[mode], mode);
      assert.equal(body.aggregation_mode, mode);
      assert.equal(body.num_passed, 2, mode);
    }
  });

  test("the system message goes first unless configured away; sequential evaluation keeps the order", async () => {
    const { body } = await verified({ context: "c", rubric: [item("Q-no"), item("Q-yes")] }, undefined, "mc_sequential");
    assert.deepEqual(body.rubric_evaluations.map((e: any) => e.question), ["Q-no", "Q-yes"]);
    assert.equal(body.reward, 0.5);
  });

  test("no context on the row: it is built from metadata.messages; no rubric on the row: metadata.rubric", async () => {
    const metadata = { messages: [{ role: "user", content: "hi" }, { role: "thinking", content: "hidden" }, { role: "assistant", content: "hello" }], rubric: [item("Q-yes")] };
    const { body } = await verified({ context: "", rubric: [], metadata });
    assert.equal(body.context, "[USER]: hi\n\n[ASSISTANT]: hello");
    assert.deepEqual([body.reward, body.num_total], [1, 1]);
    assert.match(body.rubric_evaluations[0].judge_prompt, /^CTX<\[USER\]: hi\n\n\[ASSISTANT\]: hello>/);
  });

  test("the policy's thinking is stripped from generated_response and the judge prompt", async () => {
    const { body } = await verified({ context: "c", rubric: [item("Q-yes")] }, "<think>peanuts?</think>Apple slices.");
    assert.equal(body.generated_response, "Apple slices.");
    assert.match(body.rubric_evaluations[0].judge_prompt, /RESP<Apple slices\.>/);
  });

  test("no rubric at all: reward 0.0, nothing asked", async () => {
    const { body, text } = await verified({ context: "c" });
    assert.deepEqual([body.reward, body.num_passed, body.num_total, body.rubric_evaluations], [0, 0, 0, []]);
    assert.match(text, /"reward":0\.0/);
  });

  test("the config class's defaults: NeMo Gym's built-in template and system message", async () => {
    const { body } = await verified({ context: "c", rubric: [item("Q-yes")] }, undefined, "mc_defaults");
    assert.match(body.rubric_evaluations[0].judge_prompt, /^You are evaluating whether a model's response meets a specific criterion\.\n\nCONVERSATION CONTEXT:\nc\n\nMODEL'S FINAL RESPONSE:\nTry apple slices\.\n\nEVALUATION QUESTION:\nQ-yes\n\nEXPECTED ANSWER: YES\n/);
    assert.equal(body.reward, 1);
  });

  test("a judge call that fails (no rule answers: the judge's 404) is the judge_failed row, not a reward", async () => {
    const answer = await verify({ context: "c", rubric: [item("Q-yes"), item("Q-unanswerable")] });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.equal(body._ng_failure_class, "judge_failed");
    assert.equal(body.reward, 0);
    assert.match(body._ng_failure_judge_error, /404/);
    assert.equal(body.rubric_evaluations, undefined, "no partial scoring");
  });

  test("bad rows: a rubric that is not a list is a 422 naming it; a rubric item without string pass criteria is a 500", async () => {
    const notList = await verify({ context: "c", rubric: "Q-yes" });
    assert.equal(notList.status, 422, notList.text);
    assert.match(notList.text, /rubric/);
    const badCriteria = await verify({ context: "c", rubric: [{ question: "Q-yes", pass_criteria: null }] });
    assert.equal(badCriteria.status, 500, badCriteria.text);
    assert.match(badCriteria.text, /AttributeError/);
  });
});

describe("multichallenge config", () => {
  test("an unknown aggregation mode or an unportable template fails the start naming the key", async () => {
    await assert.rejects(startServers({ mc: [multichallenge, base({ aggregation_mode: "median" })] }), /aggregation_mode/);
    await assert.rejects(startServers({ mc: [multichallenge, base({ judge_prompt_template: "{question!r}" })] }), /judge_prompt_template/);
  });
});
