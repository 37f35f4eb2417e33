// mcqa's (and gpqa_diamond's) /aggregate_metrics additions: pass@k, pass@1[avg-of-k] and majority@k of
// `accuracy` (= reward), with `extracted_answer` as the voted answer (and its absence as `no_answer`).
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/rollouts/metrics.ts";

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
