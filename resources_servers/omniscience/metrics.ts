// omniscience's metrics (NeMo Gym's compute_metrics, NeMo Skills' OmniMetrics): pass@k / majority@k of four judge
// scores — judge_correct, judge_incorrect (scored -1), judge_partially_correct, judge_abstained — and at every
// aggregation level the omniscience index (correct − incorrect) and the hallucination rate (incorrect among the
// answers that are not correct).
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";

/** A rollout without a verdict counts as incorrect. */
function judgeScores(rollout: VerifyRecord): Record<string, number> {
  const verdict = rollout.verdict ?? "incorrect";
  return {
    judge_correct: verdict === "correct" ? 1 : 0,
    judge_incorrect: verdict === "incorrect" ? -1 : 0,
    judge_partially_correct: verdict === "partial" ? 1 : 0,
    judge_abstained: verdict === "not_attempted" ? 1 : 0,
  };
}

export function omniscienceMetrics(tasks: VerifyRecord[][]): Record<string, unknown> {
  const metrics = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: judgeScores, answerKey: "extracted_answer" }));
  const value = (key: string) => (typeof metrics[key] === "number" ? (metrics[key] as number) : 0);
  for (const key of Object.keys(metrics)) {
    if (!key.includes("/judge_correct")) continue;
    const aggregate = key.slice(0, key.lastIndexOf("/judge_correct"));
    const correct = value(`${aggregate}/judge_correct`);
    const incorrect = -value(`${aggregate}/judge_incorrect`);
    const notCorrect = incorrect + value(`${aggregate}/judge_partially_correct`) + value(`${aggregate}/judge_abstained`);
    metrics[`${aggregate}/judge_omni_index`] = correct - incorrect;
    metrics[`${aggregate}/judge_omni_hallucination`] = notCorrect > 0 ? (100 * incorrect) / notCorrect : 0;
  }
  return metrics;
}

export function omniscienceKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { excludeNames: ["no_answer"] }));
  return key;
}
