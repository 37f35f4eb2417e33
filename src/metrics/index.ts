// src/metrics: what NeMo Gym computes over verify responses — the reward profile, pass@k and majority@k, column
// statistics, and /aggregate_metrics.
export {
  addAvgSampleStdDev,
  computePassMajorityMetrics,
  computeSubsetMetrics,
  highestKMetrics,
  passMajorityKeyMetrics,
  passAtKUnbiased,
  passMajorityMetricsAsDict,
  stdDevAcrossRuns,
  stdErrAcrossRuns,
  type PassMajorityOptions,
  type PassMajorityResult,
  type ScoreFn,
} from "./pass-at-k.ts";
export { describe, columnStats, numpySum, type ColumnStats } from "./stats.ts";
export {
  alignRowsAndResults,
  prepareForSerialization,
  profileCompletionSummary,
  profileFromData,
  rolloutInfoFromResult,
  AGENT_REF_KEY,
  ROLLOUT_INDEX_KEY,
  TASK_INDEX_KEY,
  type CompletionSummary,
  type RewardProfile,
} from "./reward-profile.ts";

export * from "./aggregate-metrics.ts";
