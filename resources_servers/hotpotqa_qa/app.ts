// Short-answer QA, HotpotQA closed-book style (NeMo Gym's HotpotQAQAResourcesServer): deterministic, no judge, no
// tools. The predicted answer is the `answer` of the model's last JSON object (scoring.ts); against
// `expected_answer` verify reports SQuAD EM and F1, the lenient and strict alternative-aware substring matches, and
// whether the ground truth is unreliable for substring matching (too long, or a multi-word name). The reward is
// `is_correct_strict`. /aggregate_metrics: pass@k / majority@k of the four scores, and with
// `report_filtered_metrics` the same over the tasks whose ground truth is kept, prefixed `filtered_`.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { jsonTruthy } from "../../src/python/json-value.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { answerExactMatch, answerF1Score, isCorrect, isCorrectStrict, normalizeGt, parseGeneration } from "./scoring.ts";

const Config = z.looseObject({ report_filtered_metrics: z.boolean().default(true) });

const SCORES = ["answer_em", "answer_f1", "is_correct", "is_correct_strict"] as const;
// VerifyResponse(**body.model_dump(), reward=…, extracted_answer=…, …): a row field of one of these names is
// NeMo Gym's TypeError (a 500); here a 422 naming it.
const RESPONSE_FIELDS = ["reward", "extracted_answer", ...SCORES, "gt_should_remove", "gt_remove_reason"];

function hotpotqaScores(rollout: VerifyRecord): Record<string, number> {
  const scores: Record<string, number> = {};
  for (const key of SCORES) if (key in rollout) scores[key] = pythonFloat(rollout[key]);
  return scores;
}

const passMajority = (tasks: VerifyRecord[][]) => computePassMajorityMetrics(tasks, { scoreFn: hotpotqaScores, answerKey: "extracted_answer" });

function computeMetrics(tasks: VerifyRecord[][], config: { report_filtered_metrics: boolean }): Record<string, unknown> {
  const metrics: Record<string, unknown> = passMajorityMetricsAsDict(passMajority(tasks));
  if (config.report_filtered_metrics) {
    // A task is kept unless its first rollout flags the ground truth (all its rollouts share it).
    const kept = tasks.filter((rollouts) => rollouts.length > 0 && !jsonTruthy(rollouts[0]!.gt_should_remove ?? false));
    if (kept.length > 0) {
      for (const [key, value] of Object.entries(passMajority(kept).metrics)) metrics[`filtered_${key}`] = value;
    }
    metrics.filtered_num_tasks = kept.length;
    metrics.unfiltered_num_tasks = tasks.length;
  }
  return metrics;
}

function keyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  for (const prefix of ["", "filtered_"]) {
    for (const pattern of [`${prefix}pass@1[avg-of-{k}]`, `${prefix}pass@{k}`, `${prefix}majority@{k}`]) {
      Object.assign(key, highestKMetrics(agentMetrics, pattern, { scoreNames: [...SCORES] }));
    }
  }
  return key;
}

export default resourcesServer({
  name: "HotpotQAQAResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.looseObject({ expected_answer: z.string() }),
    run(_state, body) {
      const { responses_create_params: _params, response, expected_answer, ...extras } = body;
      for (const field of RESPONSE_FIELDS) {
        if (field in extras) throw new RequestValidationError([{ type: "value_error", loc: ["body", field], msg: `'${field}' is a field of the verify response and cannot be a row field`, input: extras[field] }]);
      }
      const predicted = parseGeneration(responseOutputText(response));
      const gt = normalizeGt(expected_answer);
      const strict = isCorrectStrict(gt.alternatives, predicted) ? 1 : 0;
      return {
        reward: strict,
        expected_answer,
        extracted_answer: predicted || null,
        answer_em: answerExactMatch(predicted, expected_answer),
        answer_f1: answerF1Score(predicted, expected_answer)[0],
        is_correct: isCorrect(gt.alternatives, predicted) ? 1 : 0,
        is_correct_strict: strict,
        gt_should_remove: gt.should_remove,
        gt_remove_reason: gt.remove_reason,
        ...extras,
      };
    },
  },
  floatFields: [...SCORES],
  computeMetrics,
  keyMetrics,
  reverifyMode: "stateless",
});
