// SimpleQA's metrics (NeMo Gym's compute_metrics / get_key_metrics): pass@k and majority@k for each verdict tier,
// and at every aggregation level SimpleQA-Verified's F1 and accuracy_given_attempted (NeMo Skills' SimpleQAMetrics).
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";

/** A verdict tier per rollout; a rollout without a verdict counts as not attempted. */
function tierScores(rollout: VerifyRecord): Record<string, number> {
  const verdict = rollout.verdict ?? "not_attempted";
  return { correct: verdict === "correct" ? 1 : 0, incorrect: verdict === "incorrect" ? 1 : 0, not_attempted: verdict === "not_attempted" ? 1 : 0 };
}

export function simpleqaMetrics(tasks: VerifyRecord[][]): Record<string, unknown> {
  const metrics = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: tierScores, answerKey: "extracted_answer" }));
  // Every key naming a "/correct" score: P = correct / attempted, R = correct, F1 = 2PR / (P + R), in NeMo Gym's 0–100.
  for (const key of Object.keys(metrics)) {
    if (!key.includes("/correct")) continue;
    const aggregate = key.slice(0, key.lastIndexOf("/correct"));
    const incorrectKey = `${aggregate}/incorrect`;
    if (!(incorrectKey in metrics)) continue;
    const correct = (metrics[`${aggregate}/correct`] as number) / 100;
    const incorrect = (metrics[incorrectKey] as number) / 100;
    const attempted = correct + incorrect;
    const accuracyGivenAttempted = attempted > 0 ? correct / attempted : 0;
    const denominator = accuracyGivenAttempted + correct;
    const f1 = denominator > 0 ? (2 * accuracyGivenAttempted * correct) / denominator : 0;
    metrics[`${aggregate}/f1`] = 100 * f1;
    metrics[`${aggregate}/accuracy_given_attempted`] = 100 * accuracyGivenAttempted;
  }
  return metrics;
}

export function simpleqaKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { excludeNames: ["no_answer"] }));
  return key;
}
