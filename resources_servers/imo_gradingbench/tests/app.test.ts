// imo_gradingbench: the last-word grade rule by rule, verify's response fields and their order, the gold grade's
// normalisation, and the metrics (pass@k family plus the MAE of the grades' points). The pinned metrics and the
// per-case fields below are what NeMo Gym's own app.py (07d6b0d) returned for the same rollouts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, caseVerifyRequest, injectServer, readRows, readVerifierCaseFile, responseWith, type InjectedServer } from "../../../src/testing/index.ts";
import imoGradingBench, { extractGrade, normalizeExpectedGrade } from "../app.ts";

type Item = Record<string, unknown>;
const dataDir = join(import.meta.dirname, "../data");
const params = { input: [{ role: "user", content: "Grade this proof." }] };

let env: InjectedServer;
before(async () => {
  env = await injectServer(imoGradingBench);
});
after(() => env.close());

const verify = (output: Item[], fields: Item = {}) => env.post("/verify", { responses_create_params: params, response: responseWith(output), expected_answer: "almost", ...fields });
async function graded(text: string, fields: Item = {}) {
  const answer = await verify([assistantMessage(text)], fields);
  assert.equal(answer.status, 200, answer.text);
  const { reward, extracted_grade, binary_match, score_diff } = answer.json<Item>();
  return { reward, extracted_grade, binary_match, score_diff };
}

describe("the grade", () => {
  test("the last word, without markdown and punctuation, lower-cased", () => {
    for (const [text, grade] of [
      ["Fine work. **Correct**.", "correct"],
      ["Verdict: `almost`!", "almost"],
      ["(partial)", "partial"],
      ["[INCORRECT]", "incorrect"],
      ["grade:\n\n*__Almost__*;", "almost"],
    ] as const) assert.equal(extractGrade(text), grade, text);
  });

  test("only the last word counts; other characters, other words, nothing at all: no grade", () => {
    for (const text of ["correct, I would say", "correct-ish", "\"correct\"", "7", "", "   \n ", "in-correct"]) assert.equal(extractGrade(text), null, text);
  });

  test("the gold grade is stripped and lower-cased; anything else is none", () => {
    assert.equal(normalizeExpectedGrade("  Partial\n"), "partial");
    for (const gold of ["partial.", "7", "", null, undefined]) assert.equal(normalizeExpectedGrade(gold), null, String(gold));
  });
});

describe("the verify response", () => {
  test("NeMo Gym's fields in order, then the row's own (grading_id, problem_id, then the rest); the row's `reward` is not echoed", async () => {
    const answer = await verify([assistantMessage("Nearly there. almost")], { grading_id: "g1", points: "6", reward: "almost", problem_id: "p1" });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json<Item>()), ["responses_create_params", "response", "reward", "expected_answer", "extracted_grade", "binary_match", "score_diff", "grading_id", "problem_id", "points"]);
    assert.match(answer.text, /"reward":1\.0,"expected_answer":"almost","extracted_grade":"almost","binary_match":true,"score_diff":0\.0,"grading_id":"g1","problem_id":"p1","points":"6"}$/);
  });

  test("without the optional fields they are null", async () => {
    const body = (await env.post("/verify", { responses_create_params: params, response: responseWith([assistantMessage("x")]) })).json<Item>();
    assert.deepEqual([body.expected_answer, body.extracted_grade, body.binary_match, body.score_diff, body.grading_id, body.problem_id], [null, null, false, null, null, null]);
  });

  test("a grade in the same bucket is a binary match; score_diff is the distance of the points 7 / 6 / 1 / 0", async () => {
    assert.deepEqual(await graded("correct"), { reward: 0, extracted_grade: "correct", binary_match: true, score_diff: 1 });
    assert.deepEqual(await graded("partial"), { reward: 0, extracted_grade: "partial", binary_match: false, score_diff: 5 });
    assert.deepEqual(await graded("incorrect", { expected_answer: "Correct" }), { reward: 0, extracted_grade: "incorrect", binary_match: false, score_diff: 7 });
    assert.deepEqual(await graded("partial", { expected_answer: "INCORRECT " }), { reward: 0, extracted_grade: "partial", binary_match: true, score_diff: 1 });
  });

  test("a gold value that is no grade: reward 0, no binary match, no score_diff, even for the same word", async () => {
    assert.deepEqual(await graded("almost", { expected_answer: "almost." }), { reward: 0, extracted_grade: "almost", binary_match: false, score_diff: null });
  });

  test("the text is every assistant message, one per line; reasoning and function calls are not read", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "so: correct" }] };
    const call = { type: "function_call", call_id: "c1", name: "grade", arguments: '{"g": "almost"}' };
    assert.equal((await verify([assistantMessage("It is"), assistantMessage("almost")])).json<Item>().reward, 1);
    assert.equal((await verify([assistantMessage("almost"), reasoning, call])).json<Item>().reward, 1);
    assert.equal((await verify([assistantMessage("I lean to"), reasoning])).json<Item>().extracted_grade, null);
    assert.equal((await verify([assistantMessage("al", "most")])).json<Item>().extracted_grade, null, "two parts are two lines");
  });

  test("expected_answer, grading_id and problem_id must be strings (a 422 naming the field)", async () => {
    const answer = await verify([assistantMessage("almost")], { expected_answer: 6 });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.json<any>().detail[0].loc, ["body", "expected_answer"]);
    assert.equal((await verify([], { problem_id: 3 })).status, 422);
  });
});

// NeMo Gym's compute_metrics and get_key_metrics over these rollouts (3 tasks × 3), run in Python.
const NEMO_METRICS = {"pass@1/binarized_accuracy": 44.44444444444445, "pass@1[avg-of-1]/binarized_accuracy": 66.66666666666667, "majority@1/binarized_accuracy": 66.66666666666667, "pass@1/exact_accuracy": 22.222222222222225, "pass@1[avg-of-1]/exact_accuracy": 33.333333333333336, "majority@1/exact_accuracy": 33.333333333333336, "pass@1/no_answer": 33.333333333333336, "pass@1[avg-of-1]/no_answer": 33.333333333333336, "majority@1/no_answer": 0.0, "pass@2/binarized_accuracy": 66.66666666666667, "pass@1[avg-of-2]/binarized_accuracy": 66.66666666666667, "majority@2/binarized_accuracy": 66.66666666666667, "pass@2/exact_accuracy": 44.44444444444445, "pass@1[avg-of-2]/exact_accuracy": 33.333333333333336, "majority@2/exact_accuracy": 33.333333333333336, "pass@2/no_answer": 55.555555555555564, "pass@1[avg-of-2]/no_answer": 33.333333333333336, "majority@2/no_answer": 0.0, "pass@3/binarized_accuracy": 66.66666666666667, "pass@1[avg-of-3]/binarized_accuracy": 44.444444444444436, "majority@3/binarized_accuracy": 55.55555555555555, "pass@3/exact_accuracy": 66.66666666666667, "pass@1[avg-of-3]/exact_accuracy": 22.222222222222218, "majority@3/exact_accuracy": 27.777777777777775, "pass@3/no_answer": 66.66666666666667, "pass@1[avg-of-3]/no_answer": 33.333333333333336, "majority@3/no_answer": 0.0, "per_sample_aggregate": {"binarized_accuracy": [66.66666666666667, 66.66666666666667, 0.0], "exact_accuracy": [33.333333333333336, 33.333333333333336, 0.0], "no_answer": [33.333333333333336, 33.333333333333336, 33.333333333333336]}, "pass@1[avg-of-2]/binarized_accuracy/std_dev_across_runs": 0.0, "pass@1[avg-of-2]/binarized_accuracy/std_err_across_runs": 0.0, "pass@1[avg-of-2]/exact_accuracy/std_dev_across_runs": 0.0, "pass@1[avg-of-2]/exact_accuracy/std_err_across_runs": 0.0, "pass@1[avg-of-2]/no_answer/std_dev_across_runs": 0.0, "pass@1[avg-of-2]/no_answer/std_err_across_runs": 0.0, "pass@1[avg-of-3]/binarized_accuracy/std_dev_across_runs": 38.490017945975055, "pass@1[avg-of-3]/binarized_accuracy/std_err_across_runs": 22.222222222222225, "pass@1[avg-of-3]/exact_accuracy/std_dev_across_runs": 19.245008972987527, "pass@1[avg-of-3]/exact_accuracy/std_err_across_runs": 11.111111111111112, "pass@1[avg-of-3]/no_answer/std_dev_across_runs": 0.0, "pass@1[avg-of-3]/no_answer/std_err_across_runs": 0.0, "pass@1[avg-of-1]/mae": 0.5, "pass@1[avg-of-1]/mae_count": 2.0, "pass@1/mae": 0.5, "pass@1/mae_count": 2.0, "pass@1[avg-of-2]/mae": 0.5, "pass@1[avg-of-2]/mae_count": 4.0, "pass@2/mae": 0.0, "pass@2/mae_count": 2.0, "pass@1[avg-of-3]/mae": 2.1666666666666665, "pass@1[avg-of-3]/mae_count": 6.0, "pass@3/mae": 1.6666666666666667, "pass@3/mae_count": 3.0, "mae": 2.1666666666666665, "mae_count": 6.0};
const NEMO_KEY_METRICS = {"mean/reward": 0.2222222222222222, "pass@1[avg-of-3]/binarized_accuracy": 44.444444444444436, "pass@1[avg-of-3]/exact_accuracy": 22.222222222222218, "pass@1[avg-of-3]/no_answer": 33.333333333333336, "pass@1[avg-of-3]/mae": 2.1666666666666665, "pass@3/binarized_accuracy": 66.66666666666667, "pass@3/exact_accuracy": 66.66666666666667, "pass@3/mae": 1.6666666666666667, "majority@3/binarized_accuracy": 55.55555555555555, "majority@3/exact_accuracy": 27.777777777777775, "mae": 2.1666666666666665, "mae_count": 6.0};

describe("the metrics", () => {
  const rollout = (reward: number, extracted_grade: string | null, binary_match: boolean, score_diff: number | null) => ({ reward, extracted_grade, binary_match, score_diff });
  const tasks = [
    [rollout(1, "correct", true, 0), rollout(0, "almost", true, 1), rollout(0, null, false, null)],
    [rollout(0, "incorrect", true, 1), rollout(1, "partial", true, 0), rollout(0, "correct", false, 6)],
    [rollout(0, null, false, null), rollout(0, null, false, null), rollout(0, "almost", false, 5)],
  ];

  test("compute_metrics: NeMo Gym's keys in its order and its values (pass@k family, per_sample_aggregate, MAE)", () => {
    const metrics = imoGradingBench.spec.computeMetrics!(tasks, {} as never) as Record<string, unknown>;
    assert.deepEqual(Object.keys(metrics), Object.keys(NEMO_METRICS));
    for (const [name, value] of Object.entries(NEMO_METRICS)) {
      if (typeof value === "number") assert.ok(Math.abs((metrics[name] as number) - value) < 1e-9, `${name}: ${metrics[name]} vs ${value}`);
      else assert.deepEqual(metrics[name], value, name);
    }
  });

  test("key metrics: the highest k of each family, then mae and mae_count", () => {
    const metrics = imoGradingBench.spec.computeMetrics!(tasks, {} as never) as Record<string, unknown>;
    const key = imoGradingBench.spec.keyMetrics!({ "mean/reward": 0.2222222222222222, ...metrics });
    assert.deepEqual(Object.keys(key), Object.keys(NEMO_KEY_METRICS));
    for (const [name, value] of Object.entries(NEMO_KEY_METRICS)) assert.ok(Math.abs((key[name] as number) - value) < 1e-9, name);
  });

  test("no rollout with both grades: no MAE keys", () => {
    const metrics = imoGradingBench.spec.computeMetrics!([[rollout(0, null, false, null)]], {} as never) as Record<string, unknown>;
    assert.ok(!Object.keys(metrics).some((name) => name.includes("mae")));
  });

  test("/aggregate_metrics over verify responses reports them", async () => {
    const rows: Item[] = [];
    for (const [task, texts] of [["almost", "correct"], ["partial", "nothing"]].entries()) {
      for (const [i, text] of texts.entries()) rows.push({ ...(await verify([assistantMessage(text)])).json<Item>(), _ng_task_index: task, _ng_rollout_index: i });
    }
    const answer = await env.post("/aggregate_metrics", { verify_responses: rows });
    assert.equal(answer.status, 200, answer.text);
    const { agent_metrics, key_metrics } = answer.json<{ agent_metrics: Record<string, number>; key_metrics: Record<string, number> }>();
    assert.equal(agent_metrics["pass@1[avg-of-2]/exact_accuracy"], 25);
    assert.equal(agent_metrics.mae, 2, "|6-6|, |7-6|, |1-6| pooled");
    assert.equal(key_metrics["pass@2/mae"], 2.5, "best of task 1 is 0, of task 2 is 5");
  });
});

// What NeMo Gym's verify returned for each verifier case (line → fields).
const NEMO_CASE_FIELDS: Record<number, Item> = {
  "1": {
    "reward": 1.0,
    "expected_answer": "correct",
    "extracted_grade": "correct",
    "binary_match": true,
    "score_diff": 0.0,
    "grading_id": "ours_1",
    "problem_id": "odd_square",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "2": {
    "reward": 1.0,
    "expected_answer": "partial",
    "extracted_grade": "partial",
    "binary_match": true,
    "score_diff": 0.0,
    "grading_id": "ours_2",
    "problem_id": "three_consecutive",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "3": {
    "reward": 1.0,
    "expected_answer": "almost",
    "extracted_grade": "almost",
    "binary_match": true,
    "score_diff": 0.0,
    "grading_id": "ours_3",
    "problem_id": "am_gm_two",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "4": {
    "reward": 0.0,
    "expected_answer": "incorrect",
    "extracted_grade": "partial",
    "binary_match": true,
    "score_diff": 1.0,
    "grading_id": "ours_4",
    "problem_id": "infinite_primes",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "5": {
    "reward": 0.0,
    "expected_answer": "correct",
    "extracted_grade": null,
    "binary_match": false,
    "score_diff": null,
    "grading_id": "ours_5",
    "problem_id": "sum_odds",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "6": {
    "reward": 0.0,
    "expected_answer": "correct",
    "extracted_grade": null,
    "binary_match": false,
    "score_diff": null,
    "grading_id": "ours_1",
    "problem_id": "odd_square",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "7": {
    "reward": 0.0,
    "expected_answer": "1 point",
    "extracted_grade": "partial",
    "binary_match": false,
    "score_diff": null,
    "grading_id": "ours_2",
    "problem_id": "three_consecutive",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  },
  "8": {
    "reward": 0.0,
    "expected_answer": "almost",
    "extracted_grade": null,
    "binary_match": false,
    "score_diff": null,
    "grading_id": "ours_3",
    "problem_id": "am_gm_two",
    "agent_ref": {
      "type": "responses_api_agents",
      "name": "imo_gradingbench_simple_agent"
    }
  }
};

describe("the data", () => {
  test("example rows are /run requests with a gold grade", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assert.equal(rows.length, 5);
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok(normalizeExpectedGrade(row.expected_answer as string) !== null);
  });

  test("verifier cases score as written", () => assertVerifierCasesScore(env, join(dataDir, "verifier_cases.jsonl"), { minCases: 8, kinds: ["full_reward", "zero_reward", "malformed"] }));

  test("verifier cases: every field as NeMo Gym's verify gave it", async () => {
    for (const verifierCase of readVerifierCaseFile(join(dataDir, "verifier_cases.jsonl"))) {
      const body = (await env.post("/verify", caseVerifyRequest(verifierCase))).json<Item>();
      const { responses_create_params: _p, response: _r, ...fields } = body;
      assert.deepEqual(fields, NEMO_CASE_FIELDS[verifierCase.lineNumber], `line ${verifierCase.lineNumber}`);
    }
  });
});
