// inverse_if's verify over real HTTP with scripted_model as the judge (judge_rules, one verdict per criterion): the
// row's own template and system prompt or the config's defaults, the fields read from metadata, each criterion's
// verdict and explanation, the aggregation modes, the example rows, and a failing judge giving the judge_failed row.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assistantMessage, http, type InProcessGraph, readRows, responseWith, serverDefinition, startServers } from "../../../src/testing/index.ts";
import inverseIf from "../app.ts";

const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

const rule = (criteria: string, answer: string) => ({ match: `CRITERION<${criteria}>`, answer });
const JUDGE_RULES = [
  rule("C-pass", '```json\n{"result": "PASS", "explanation": "Met."}\n```'),
  rule("C-fail", '```json\n{"result": "FAIL", "explanation": "Not met."}\n```'),
  rule("C-bare", 'Checked. {"result": "pass", "explanation": "fine"}'),
  rule("C-keyword", "Reasoning...\nFinal verdict: PASS"),
  rule("C-none", "I cannot say."),
  rule("C-thinking", '<think>{"result": "FAIL"}</think>{"result": "PASS", "explanation": "after thought"}'),
  rule("C-bad-explanation", '{"result": "PASS", "explanation": 3}'),
  // The example rows (their own template shows "### Criterion", the default one "## Evaluation Criteria").
  { match: "### Criterion\\n|## Evaluation Criteria\\n", answer: '```json\n{"result": "PASS", "explanation": "ok"}\n```' },
];

const DEFAULT_TEMPLATE = "Q<{prompt}>\nA<{model_response}>\nREF<{standard_response}>\nCRITERION<{criteria}>";
const base = (fields: Record<string, unknown> = {}) => ({
  judge_model_server: { type: "responses_api_models", name: "judge_model" },
  judge_responses_create_params: { input: [], temperature: 0.7 },
  default_judge_prompt_template: DEFAULT_TEMPLATE,
  default_judge_system_prompt: "Default grader.",
  ...fields,
});
const MODES = ["mean", "min", "max", "all", "any", "weighted"] as const;

let graph: InProcessGraph;
const client = http();
before(async () => {
  graph = await startServers({
    inverse_if: [inverseIf, base()],
    ...Object.fromEntries(MODES.map((mode) => [`iif_${mode}`, [inverseIf, base({ aggregation_mode: mode, parallel_evaluation: mode === "mean" })]])),
    judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: JUDGE_RULES }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

const params = { input: [{ role: "user", content: "Do the task." }] };
const criteria = (...names: string[]) => names.map((criteria, i) => ({ id: `C${i + 1}`, criteria }));

async function verify(fields: Record<string, unknown>, text = "My answer.", instance = "inverse_if") {
  return client.request(`${graph.url(instance)}/verify`, { method: "POST", json: { responses_create_params: params, response: responseWith([assistantMessage(text)]), ...fields } });
}
async function verified(fields: Record<string, unknown>, text?: string, instance?: string) {
  const answer = await verify(fields, text, instance);
  assert.equal(answer.status, 200, answer.text);
  return { body: answer.json<Record<string, any>>(), text: answer.text };
}

describe("inverse_if verify", () => {
  test("NeMo Gym's response fields in order; the row's template and system prompt; floats keep their .0", async () => {
    const { body, text } = await verified({
      uuid: 3, task_id: 3, prompt: "P", reference_response: "R", rubric: criteria("C-pass", "C-fail"),
      judge_prompt_template: "ROW {prompt}|{model_response}|{standard_response}|CRITERION<{criteria}>", judge_system_prompt: "Row grader.", metadata: { domain: "d" }, agent_ref: { name: "a" },
    });
    assert.deepEqual(Object.keys(body), [
      "responses_create_params", "response", "reward", "prompt", "generated_response", "reference_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total", "uuid", "task_id", "metadata", "agent_ref",
    ]);
    assert.deepEqual([body.reward, body.num_passed, body.num_total, body.prompt, body.reference_response, body.generated_response], [0.5, 1, 2, "P", "R", "My answer."]);
    assert.deepEqual(body.rubric_evaluations[0], {
      criterion_id: "C1", criteria: "C-pass", judge_prompt: "ROW P|My answer.|R|CRITERION<C-pass>",
      judge_response: '```json\n{"result": "PASS", "explanation": "Met."}\n```', verdict: "PASS", explanation: "Met.", score: 1,
    });
    assert.deepEqual([body.rubric_evaluations[1].verdict, body.rubric_evaluations[1].explanation, body.rubric_evaluations[1].score], ["FAIL", "Not met.", 0]);
    assert.match(text, /"reward":0\.5,/);
    assert.match(text, /"score":1\.0\}/);
  });

  test("each odd judge answer is scored by the parser, never a failure", async () => {
    const { body } = await verified({ prompt: "P", rubric: criteria("C-bare", "C-keyword", "C-none", "C-thinking") });
    assert.deepEqual(body.rubric_evaluations.map((e: any) => [e.verdict, e.explanation]), [["PASS", "fine"], ["PASS", ""], ["FAIL", ""], ["PASS", "after thought"]]);
    assert.equal(body.reward, 0.75);
  });

  test("no template or system prompt on the row: the config's defaults; prompt, reference and rubric from metadata", async () => {
    const { body } = await verified({ metadata: { prompt: "MP", reference_response: "MR", rubric: criteria("C-pass") } });
    assert.deepEqual([body.prompt, body.reference_response, body.reward], ["MP", "MR", 1]);
    assert.equal(body.rubric_evaluations[0].judge_prompt, "Q<MP>\nA<My answer.>\nREF<MR>\nCRITERION<C-pass>");
  });

  test("every aggregation mode (weighted is the mean: criteria carry no weights), in parallel or in turn", async () => {
    const rubric = criteria("C-pass", "C-fail", "C-pass");
    const expected = { mean: 2 / 3, min: 0, max: 1, all: 0, any: 1, weighted: 2 / 3 };
    for (const mode of MODES) {
      const { body } = await verified({ prompt: "P", rubric }, undefined, `iif_${mode}`);
      assert.equal(body.reward, expected[mode], mode);
      assert.deepEqual(body.rubric_evaluations.map((e: any) => e.verdict), ["PASS", "FAIL", "PASS"], mode);
    }
  });

  test("the policy's thinking is stripped; no rubric is reward 0.0 without a judge call", async () => {
    const { body } = await verified({ prompt: "P", rubric: criteria("C-pass") }, "<think>draft</think>Final.");
    assert.equal(body.generated_response, "Final.");
    const empty = await verified({ prompt: "P" });
    assert.deepEqual([empty.body.reward, empty.body.num_total], [0, 0]);
    assert.match(empty.text, /"reward":0\.0/);
  });

  test("NeMo Gym's example rows shipped here score through their own (or the default) templates", async () => {
    const config = base({ default_judge_prompt_template: "## Evaluation Criteria\n{criteria}\n{prompt}{model_response}{standard_response}" });
    const examples = await startServers({ inverse_if: [inverseIf, config], judge_model: [scriptedModel, { mode: "judge_rules", judge_rules: JUDGE_RULES }] });
    try {
      for (const row of readRows(join(import.meta.dirname, "../data/example.jsonl"))) {
        const answer = await client.request(`${examples.url("inverse_if")}/verify`, { method: "POST", json: { ...row, response: responseWith([assistantMessage(row.reference_response)]) } });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.json<Record<string, any>>().reward, 1, String(row.uuid));
      }
    } finally {
      await examples.close();
    }
  });

  test("a judge call that fails (no rule answers: the judge's 404) is the judge_failed row, not a reward", async () => {
    const answer = await verify({ prompt: "P", rubric: criteria("C-pass", "C-unanswerable") });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, any>>();
    assert.deepEqual([body._ng_failure_class, body.reward], ["judge_failed", 0]);
    assert.match(body._ng_failure_judge_error, /404/);
  });

  test("bad rows: a rubric that is not a list is a 422; a non-string explanation is NeMo Gym's 500; an unportable row template is a 501", async () => {
    const notList = await verify({ rubric: "C-pass" });
    assert.equal(notList.status, 422, notList.text);
    assert.match(notList.text, /rubric/);
    const badExplanation = await verify({ prompt: "P", rubric: criteria("C-bad-explanation") });
    assert.equal(badExplanation.status, 500, badExplanation.text);
    assert.match(badExplanation.text, /explanation/);
    const unportable = await verify({ prompt: "P", rubric: criteria("C-pass"), judge_prompt_template: "{criteria!r} CRITERION<C-pass>" });
    assert.equal(unportable.status, 501, unportable.text);
    assert.match(unportable.text, /judge_prompt_template/);
  });
});

describe("inverse_if config", () => {
  test("the default template and system prompt are required; an unknown aggregation mode fails the start", async () => {
    const { default_judge_prompt_template: _t, ...withoutTemplate } = base();
    await assert.rejects(startServers({ iif: [inverseIf, withoutTemplate] }), /default_judge_prompt_template/);
    await assert.rejects(startServers({ iif: [inverseIf, base({ aggregation_mode: "median" })] }), /aggregation_mode/);
  });
});
