// The aggregate metrics NeMo Gym's long-context servers (mrcr, graphwalks, ruler2) share: pass@k over a continuous
// accuracy (the reward itself, so pass@k is the best of k; no majority@k, there being no discrete answer), a
// breakdown by one row field, and as key metrics the mean token counts with pass@1[avg-of-k] and pass@k at the
// highest k.
import { computePassMajorityMetrics, computeSubsetMetrics, highestKMetrics, passMajorityMetricsAsDict, type ScoreFn } from "../../metrics/index.ts";

type Tasks = Parameters<typeof computePassMajorityMetrics>[0];

/** `{"accuracy": r["reward"]}`. */
export const rewardAccuracy: ScoreFn = (rollout) => ({ accuracy: rollout.reward as number });

/** compute_pass_majority_metrics(tasks, score_fn=accuracy)'s metrics dict. */
export const rewardMetrics = (tasks: Tasks): Record<string, unknown> => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: rewardAccuracy }));

/** compute_subset_metrics(tasks, subset_key, score_fn=accuracy): `<value>/<metric>` keys. */
export const rewardSubsetMetrics = (tasks: Tasks, subsetKey: string): Record<string, number> => computeSubsetMetrics(tasks, subsetKey, { scoreFn: rewardAccuracy });

/** The overall metrics, then the subset ones with each key `<value>/…` written `<subsetKey>=<value>/…` (mrcr, graphwalks). */
export function rewardMetricsByNamedSubset(tasks: Tasks, subsetKey: string): Record<string, unknown> {
  const metrics = rewardMetrics(tasks);
  for (const [key, value] of Object.entries(rewardSubsetMetrics(tasks, subsetKey))) metrics[key.includes("/") ? `${subsetKey}=${key}` : key] = value;
  return metrics;
}

/** mean/input_tokens and mean/output_tokens when present, then pass@1[avg-of-k] and pass@k at the highest k. */
export function longContextKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}"));
  return key;
}
