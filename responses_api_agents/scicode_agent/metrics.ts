// SciCode's headline numbers, computed by the agent (NeMo Gym runs /aggregate_metrics on the agent server):
// `subtask_accuracy`, sub-steps passed over sub-steps scored, pooled over every rollout (not a mean of ratios), and,
// with several repeats per problem, how much each headline number varies from run to run.
import { pythonSampleStdDev } from "../../src/metrics/stats.ts";
import { ROLLOUT_INDEX_KEY, type VerifyRecord } from "../../src/metrics/reward-profile.ts";

const count = (record: VerifyRecord, key: string) => Number(record[key] ?? 0);

function pooledSubtaskAccuracy(records: VerifyRecord[]): number | undefined {
  let passed = 0;
  let total = 0;
  for (const record of records) {
    passed += count(record, "num_steps_passed");
    total += count(record, "num_steps_total");
  }
  return total ? passed / total : undefined;
}

/**
 * Run i is "repeat i of every problem" (repeats ordered by rollout index; as many runs as the fewest repeats of a
 * problem, so every run covers every problem). Per run: the mean of problem_accuracy and the pooled sub-step
 * accuracy; their sample std dev across runs. Nothing for a single repeat.
 */
function acrossRunStats(tasks: VerifyRecord[][]): Record<string, number> {
  const nonEmpty = tasks.filter((task) => task.length > 0);
  const runs = nonEmpty.length === 0 ? 0 : Math.min(...nonEmpty.map((task) => task.length));
  if (runs < 2) return {};
  const byRun = nonEmpty.map((task) => [...task].sort((a, b) => Number(a[ROLLOUT_INDEX_KEY] ?? 0) - Number(b[ROLLOUT_INDEX_KEY] ?? 0)).slice(0, runs));

  const problemRuns: number[] = [];
  const subtaskRuns: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = byRun.map((repeats) => repeats[i]!);
    const accuracies = run.filter((r) => r.problem_accuracy !== undefined && r.problem_accuracy !== null).map((r) => Number(r.problem_accuracy));
    if (accuracies.length > 0) problemRuns.push(accuracies.reduce((a, b) => a + b, 0) / accuracies.length);
    const subtask = pooledSubtaskAccuracy(run);
    if (subtask !== undefined) subtaskRuns.push(subtask);
  }
  const metrics: Record<string, number> = {};
  for (const [key, values] of [["mean/problem_accuracy", problemRuns], ["subtask_accuracy", subtaskRuns]] as const) {
    if (values.length < 2) continue;
    metrics[`${key}/std_dev_across_runs`] = values.every((v) => v === values[0]) ? 0 : pythonSampleStdDev(values);
  }
  return metrics;
}

export function scicodeMetrics(tasks: VerifyRecord[][]): Record<string, number> {
  return { subtask_accuracy: pooledSubtaskAccuracy(tasks.flat()) ?? 0, ...acrossRunStats(tasks) };
}

/** The headline: every `mean/*` and every `subtask_accuracy*` entry. */
export const scicodeKeyMetrics = (agentMetrics: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(agentMetrics).filter(([key]) => key.startsWith("mean/") || key.startsWith("subtask_accuracy")));
