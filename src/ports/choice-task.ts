// What mcqa and gpqa_diamond share beyond the letter extraction (choice-answer.ts): NeMo Gym's MCQARunRequest row,
// the grading modes, and their /aggregate_metrics additions — pass@k, pass@1[avg-of-k] and majority@k of `accuracy`
// (= reward), with `extracted_answer` as the voted answer (and its absence as `no_answer`).
import { z } from "zod";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../metrics/index.ts";

export const RowGradingMode = z.enum(["strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon"]);
export const ConfigGradingMode = z.enum([...RowGradingMode.options, "lenient_answer_colon_md"]);

/** NeMo Gym's MCQARunRequest: the fields verify reads (`uuid` and `metadata` are accepted and ignored). */
export const ChoiceRowSchema = z.object({
  uuid: z.string().nullish(),
  options: z.array(z.record(z.string(), z.string().nullable())).nullish(),
  expected_answer: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  grading_mode: RowGradingMode.default("strict_single_letter_boxed"),
  template_metadata: z.record(z.string(), z.unknown()).nullish(),
});

export const choiceMetrics = (tasks: VerifyRecord[][]): Record<string, unknown> =>
  passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: (rollout) => ({ accuracy: rollout.reward as number }), answerKey: "extracted_answer" }));

/** The headline numbers: mean reward, the highest-k avg-of-k / pass@k / majority@k, and pass@1 accuracy. */
export function choiceKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  if ("mean/reward" in agentMetrics) key["mean/reward"] = agentMetrics["mean/reward"];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy", "no_answer"] }));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["no_answer"] }));
  Object.assign(key, highestKMetrics(agentMetrics, "majority@{k}", { scoreNames: ["accuracy"] }));
  if ("pass@1/accuracy" in agentMetrics) key["pass@1/accuracy"] = agentMetrics["pass@1/accuracy"];
  return key;
}
