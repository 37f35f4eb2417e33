// polymath's verify and metrics (fastify inject): math_with_judge's library check with weight and language passed
// through, a gap of the math-verify port answered 501, the judge fallback, and the per-language and
// difficulty-weighted metrics (values pinned from NeMo Gym's Python compute_metrics, run locally on Python 3.13).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServer, readRows, readVerifierCaseFile, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import polymath from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const CONFIG = { judge_model_server: { type: "responses_api_models", name: "policy_model" }, judge_responses_create_params: { input: [] }, should_use_judge: false };
const ROW = { responses_create_params: { input: [{ role: "user", content: "What is 2 + 2?" }] }, question: "What is 2 + 2?", expected_answer: "4" };

let env: InjectedServer;
before(async () => {
  env = await injectServer(polymath, CONFIG);
});
after(() => env.close());

const verify = (text: string, fields: Item = {}) => env.post("/verify", { ...ROW, ...fields, response: responseWith([assistantMessage(text)]) });

describe("verify", () => {
  test("math_with_judge's fields, then weight (a float) and language, in NeMo Gym's order", async () => {
    const answer = await verify(String.raw`The answer is \boxed{4}.`, { weight: 4, language: "en", difficulty: "high" });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "extracted_answer", "library_reward", "judge_evaluations", "weight", "language"]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"4","extracted_answer":"4","library_reward":1\.0,"judge_evaluations":null,"weight":4\.0,"language":"en"}$/);
  });

  test("without weight and language both are null; a wrong answer scores 0.0 with its extracted answer", async () => {
    const body = (await verify(String.raw`\boxed{5}`)).json<Item>();
    assert.deepEqual([body.reward, body.extracted_answer, body.weight, body.language], [0, "5", null, null]);
  });

  test("weight is read as pydantic reads an Optional[float] (\"2\" is 2.0); a weight or question of the wrong type is a 422", async () => {
    assert.equal((await verify(String.raw`\boxed{4}`, { weight: "2" })).json<Item>().weight, 2);
    for (const [fields, field] of [[{ weight: "heavy" }, "weight"], [{ language: 3 }, "language"], [{ question: undefined }, "question"]] as const) {
      const answer = await verify(String.raw`\boxed{4}`, fields);
      assert.equal(answer.status, 422, field);
      assert.deepEqual(answer.json<any>().detail[0].loc, ["body", field]);
    }
  });

  test("a gap of the math-verify port is a 501 naming it, not a guessed 0 (NeMo Gym's math-verify scores these 1.0)", async () => {
    const integral = await verify(String.raw`\boxed{\int_0^2 2x\,dx}`);
    assert.equal(integral.status, 501);
    assert.match(integral.json<{ detail: string }>().detail, /\\int .*latex2sympy/);
    const union = await env.post("/verify", { ...ROW, expected_answer: String.raw`(-\infty, -\sqrt{2}) \cup (\sqrt{2}, \infty)`, response: responseWith([assistantMessage(String.raw`\boxed{(\sqrt{2},\infty)\cup(-\infty,-\sqrt{2})}`)]) });
    assert.equal(union.status, 501);
    assert.match(union.json<{ detail: string }>().detail, /union or intersection of intervals/);
  });

  test("a command latex2sympy does not know either fails there too: an ordinary 0.0, no 501", async () => {
    const body = (await verify(String.raw`\boxed{\foo{4}}`)).json<Item>();
    assert.deepEqual([body.reward, body.extracted_answer], [0, String.raw`\foo{4}`]);
  });
});

describe("the judge (should_use_judge: true)", () => {
  test("asked only when the library says no; it is the policy model of the config, as math_with_judge's", async () => {
    const judged = await injectServer(polymath, { ...CONFIG, should_use_judge: true });
    try {
      const body = (await judged.post("/verify", { ...ROW, response: responseWith([assistantMessage(String.raw`\boxed{4}`)]), weight: 1 })).json<Item>();
      assert.deepEqual([body.reward, body.library_reward, body.judge_evaluations], [1, 1, null]);
    } finally {
      await judged.close();
    }
  });
});

const rollout = (reward: number, answer: string | null, weight: number | null, language: string | null, taskIndex: number, rolloutIndex: number) => ({
  reward,
  library_reward: reward,
  extracted_answer: answer,
  judge_evaluations: null,
  weight,
  language,
  _ng_task_index: taskIndex,
  _ng_rollout_index: rolloutIndex,
});

describe("/aggregate_metrics", () => {
  test("weighted pass@k: a task counts by its weight (Skills' WeightedMathMetrics); per-language keys; weighted headline keys", async () => {
    // Task 0 (weight 1) always right, task 1 (weight 8) always wrong: weighted pass@1 = 1/9.
    const responses = [0, 1, 2, 3].flatMap((i) => [rollout(1, "1", 1, "en", 0, i), rollout(0, "2", 8, "zh", 1, i)]);
    const answer = await env.post("/aggregate_metrics", { verify_responses: responses });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics: metrics, key_metrics: key } = answer.json<{ agent_metrics: Item; key_metrics: Item }>();
    assert.equal(metrics["pass@1/symbolic_accuracy_weighted"], 11.11111111111111);
    assert.equal(metrics["pass@4/symbolic_accuracy_weighted"], 11.11111111111111);
    assert.equal(metrics["majority@4/symbolic_accuracy_weighted"], 11.11111111111111);
    assert.equal(metrics["pass@1/symbolic_accuracy"], 50);
    assert.equal(metrics["en/pass@4/symbolic_accuracy"], 100);
    assert.equal(metrics["zh/pass@1[avg-of-4]/symbolic_accuracy"], 0);
    assert.ok(!("pass@1/no_answer_weighted" in metrics), "no_answer is not one of the weighted scores");
    assert.deepEqual(key, {
      "pass@1[avg-of-4]/no_answer": 0,
      "pass@1[avg-of-4]/symbolic_accuracy": 50,
      "pass@1[avg-of-4]/symbolic_accuracy_weighted": 11.11111111111111,
      "pass@4/symbolic_accuracy": 50,
      "pass@4/symbolic_accuracy_weighted": 11.11111111111111,
      "majority@4/symbolic_accuracy": 50,
      "majority@4/symbolic_accuracy_weighted": 11.11111111111111,
    });
  });

  test("pass@1[avg-of-k] weighted, a missing or zero weight counting as 1, ties in majority@k averaged", async () => {
    // Task 0: weight 2, right 2 of 4; task 1: weight 4, always right; task 2: weight 0 → 1, answers split 1:1.
    const responses = [
      ...[1, 0, 1, 0].map((r, i) => rollout(r, r ? "1" : "2", 2, "en", 0, i)),
      ...[0, 1, 2, 3].map((i) => rollout(1, "3", 4, "de", 1, i)),
      ...[1, 0].map((r, i) => rollout(r, r ? "5" : "6", 0, null, 2, i)),
    ];
    const { agent_metrics: metrics } = (await env.post("/aggregate_metrics", { verify_responses: responses })).json<{ agent_metrics: Item }>();
    // Values of NeMo Gym's Python on the same rollouts.
    assert.equal(metrics["pass@1[avg-of-4]/symbolic_accuracy_weighted"], 83.33333333333333, "task 2 has only 2 rollouts: it counts up to k = 2");
    assert.equal(metrics["pass@1[avg-of-2]/symbolic_accuracy_weighted"], 78.57142857142857);
    assert.equal(metrics["majority@2/symbolic_accuracy_weighted"], 78.57142857142857);
    assert.equal(metrics["pass@2/symbolic_accuracy_weighted"], 95.23809523809526);
    assert.equal(metrics["pass@1[avg-of-1]/symbolic_accuracy_weighted"], 100);
    assert.equal(metrics["pass@4/symbolic_accuracy_weighted"], 100);
    assert.ok(!("null/pass@1/symbolic_accuracy" in metrics), "a task without a language has no per-language keys");
  });
});

describe("the data", () => {
  test("example rows are /run requests with a question, an expected answer, a language and a weight", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) for (const field of ["question", "expected_answer", "language"]) assert.equal(typeof row[field], "string");
  });

  test("verifier cases score as NeMo Gym's math-verify scores them (run locally); its port's gaps are 501s", async () => {
    const cases = readVerifierCaseFile(join(dataDir, "verifier_cases.jsonl"));
    assert.equal(cases.filter((c) => c.case === "refused").length, 2);
    await assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 12 });
  });
});
