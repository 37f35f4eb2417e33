// The key figures of one run as `gym view` plots them, from the line summaries alone: the reward distribution, the
// pass@k curve and the rollouts that failed for good, by class.
import { passAtKUnbiased } from "../../metrics/pass-at-k.ts";
import { rolloutKeyOf, type LineSummary } from "./line-summary.ts";

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

export interface PassAtKPoint {
  k: number;
  /** Percent, as NeMo Gym's pass@k metrics. */
  value: number;
}

export interface RunMetrics {
  rollouts: number;
  tasks: number;
  meanReward: number | null;
  /** Rollouts whose last failure ended them (not retried, no success later). */
  failedRollouts: number;
  /** Failure lines (every failed attempt, retried ones included). */
  failedAttempts: number;
  rewardHistogram: HistogramBin[];
  /** pass@k for k = 1 … the most repeats of any task; unbiased for 0/1 rewards, the mean best-of-first-k otherwise. */
  passAtK: PassAtKPoint[];
  failuresByClass: { failureClass: string; rollouts: number; attempts: number }[];
  meanTokens: number | null;
  meanTurns: number | null;
}

const BINS = 10;

function histogram(rewards: readonly number[]): HistogramBin[] {
  if (rewards.length === 0) return [];
  let low = rewards[0]!;
  let high = low;
  for (const reward of rewards) {
    if (reward < low) low = reward;
    if (reward > high) high = reward;
  }
  // Rewards are usually in [0, 1]: then the bins are the same for every run, so two runs' plots compare by eye.
  if (low >= 0 && high <= 1) [low, high] = [0, 1];
  if (high === low) return [{ from: low, to: high, count: rewards.length }];
  const width = (high - low) / BINS;
  const bins = Array.from({ length: BINS }, (_, i) => ({ from: low + i * width, to: low + (i + 1) * width, count: 0 }));
  for (const reward of rewards) bins[Math.min(BINS - 1, Math.floor((reward - low) / width))]!.count++;
  return bins;
}

function passAtKCurve(rollouts: readonly LineSummary[]): PassAtKPoint[] {
  const byTask = new Map<number | null, LineSummary[]>();
  for (const rollout of rollouts) {
    const list = byTask.get(rollout.task);
    if (list) list.push(rollout);
    else byTask.set(rollout.task, [rollout]);
  }
  const binary = rollouts.every((rollout) => rollout.reward === 0 || rollout.reward === 1);
  const tasks = [...byTask.values()].map((list) => list.sort((a, b) => (a.repeat ?? 0) - (b.repeat ?? 0)).map((rollout) => rollout.reward ?? 0));
  const maxK = tasks.reduce((most, rewards) => Math.max(most, rewards.length), 0);
  const curve: PassAtKPoint[] = [];
  for (let k = 1; k <= maxK; k++) {
    // As NeMo Gym: a task with fewer than k rollouts has no pass@k.
    const values = tasks
      .filter((rewards) => rewards.length >= k)
      .map((rewards) => (binary ? passAtKUnbiased(rewards.length, rewards.filter((reward) => reward === 1).length, k) : Math.max(...rewards.slice(0, k))));
    curve.push({ k, value: (100 * values.reduce((sum, value) => sum + value, 0)) / values.length });
  }
  return curve;
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
}

export function runMetrics(rollouts: readonly LineSummary[], failures: readonly LineSummary[]): RunMetrics {
  const rewards = rollouts.map((rollout) => rollout.reward).filter((reward): reward is number => reward !== null);
  const done = new Set(rollouts.map(rolloutKeyOf));
  // A rollout's last failure line is its class; it failed for good when that line was not retried and it never succeeded.
  const lastFailure = new Map<string, LineSummary>();
  const attemptsByClass = new Map<string, number>();
  for (const failure of failures) {
    lastFailure.set(rolloutKeyOf(failure), failure);
    attemptsByClass.set(failure.failureClass!, (attemptsByClass.get(failure.failureClass!) ?? 0) + 1);
  }
  const rolloutsByClass = new Map<string, number>();
  for (const [key, failure] of lastFailure) {
    if (done.has(key) || failure.willRetry) continue;
    rolloutsByClass.set(failure.failureClass!, (rolloutsByClass.get(failure.failureClass!) ?? 0) + 1);
  }
  const failuresByClass = [...attemptsByClass]
    .map(([failureClass, attempts]) => ({ failureClass, attempts, rollouts: rolloutsByClass.get(failureClass) ?? 0 }))
    .sort((a, b) => b.rollouts - a.rollouts || b.attempts - a.attempts || a.failureClass.localeCompare(b.failureClass));
  return {
    rollouts: rollouts.length,
    tasks: new Set(rollouts.map((rollout) => rollout.task)).size,
    meanReward: mean(rewards),
    failedRollouts: [...rolloutsByClass.values()].reduce((sum, count) => sum + count, 0),
    failedAttempts: failures.length,
    rewardHistogram: histogram(rewards),
    passAtK: passAtKCurve(rollouts.filter((rollout) => rollout.reward !== null)),
    failuresByClass,
    meanTokens: mean(rollouts.map((rollout) => rollout.tokens)),
    meanTurns: mean(rollouts.map((rollout) => rollout.turns)),
  };
}
