// The pass@k family a resources server's computeMetrics hook can build on: pass@k, pass@1[avg-of-k],
// majority@k, no_answer, spread across runs, per-subset variants and "the highest k" selection. pass@k,
// avg-of-k, majority@k, the per-run aggregates and their std dev / std err across runs are percentages
// (0–100); avg_sample_std_dev is in the scores' own units (0–1 for binary scores), as in NeMo Gym.
// Sums, means and the binomial ratio follow NeMo Gym's Python so results agree to the last bit for the
// usual sizes (exact binomials up to 256 rollouts per task, a product form beyond that).
import type { VerifyRecord } from "./reward-profile.ts";
import { compareStrings } from "../python/str.ts";
import { jsonStr, jsonTruthy } from "../python/json-value.ts";
import { pythonSampleStdDev } from "./stats.ts";
import { PythonSum, pythonSum } from "../python/sum.ts";

/** Named scores of one rollout; booleans count as 0/1. */
export type ScoreFn = (rollout: VerifyRecord) => Record<string, number | boolean>;

export interface PassMajorityOptions {
  /** Default: `{ accuracy: rollout.reward }`. */
  scoreFn?: ScoreFn;
  /** Field holding the extracted answer; enables majority@k and the binary `no_answer` score. */
  answerKey?: string;
  /** When set, the per-subset metrics of `computeSubsetMetrics` are appended to `metrics`. */
  subsetKey?: string;
}

export interface PassMajorityResult {
  /** Every numeric metric, keyed `{mode}/{score}`, in the order NeMo Gym writes them. */
  metrics: Record<string, number>;
  /** `{score: [pass@1 in percent using only rollout i of every task, for each i]}` (NeMo Gym's `per_sample_aggregate`). */
  perSampleAggregate: Record<string, number[]>;
  /** Scores of every rollout, per task (booleans already 0/1, `no_answer` included when answerKey is set). */
  allScoreDicts: Record<string, number>[][];
  /** Score names, sorted. */
  scoreNames: string[];
  /** The largest number of rollouts of any task. */
  maxK: number;
  /**
   * Where NeMo Gym's dict holds `per_sample_aggregate`: the number of `metrics` keys before it (the pass@k,
   * avg-of-k and majority@k keys). Undefined for no tasks, where NeMo Gym returns an empty dict.
   */
  perSampleAggregatePosition?: number;
}

const STAT_SUFFIXES = ["std_dev_across_runs", "std_err_across_runs", "avg_sample_std_dev"];

/**
 * The unbiased pass@k estimator for one task: the probability that at least one of k rollouts drawn without
 * replacement from n rollouts, c of them correct, is correct — `1 - C(n-c, k) / C(n, k)`, and 1 when fewer
 * than k are incorrect. Returns a probability in [0, 1].
 */
export function passAtKUnbiased(n: number, c: number, k: number): number {
  for (const [name, value] of [["n", n], ["c", c], ["k", k]] as const) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`passAtKUnbiased: ${name} must be a non-negative integer, got ${value}`);
  }
  if (c > n) throw new RangeError(`passAtKUnbiased: c (${c}) exceeds n (${n})`);
  if (k > n) throw new RangeError(`passAtKUnbiased: k (${k}) exceeds n (${n})`);
  const incorrect = n - c;
  if (incorrect < k) return 1.0;
  return 1.0 - binomialRatio(incorrect, n, k);
}

/** Sample standard deviation (ddof = 1) of per-run averages; NaN for fewer than two runs. */
export function stdDevAcrossRuns(runAverages: readonly number[]): number {
  return pythonSampleStdDev(runAverages);
}

/** Standard error of the mean of per-run averages: std dev across runs / √runs; NaN for fewer than two runs. */
export function stdErrAcrossRuns(runAverages: readonly number[]): number {
  return pythonSampleStdDev(runAverages) / Math.sqrt(runAverages.length);
}

/**
 * pass@k, pass@1[avg-of-k], majority@k (with answerKey), per-run aggregates and their spread, from rollouts
 * grouped per task (tasks[i] = the rollouts of task i). Mirrors NeMo Gym's compute_pass_majority_metrics.
 */
export function computePassMajorityMetrics(tasks: VerifyRecord[][], options: PassMajorityOptions = {}): PassMajorityResult {
  const result = passMajority(tasks, options.scoreFn, options.answerKey);
  if (options.subsetKey !== undefined) {
    Object.assign(result.metrics, computeSubsetMetrics(tasks, options.subsetKey, { scoreFn: options.scoreFn, answerKey: options.answerKey }));
  }
  return result;
}

function passMajority(tasks: VerifyRecord[][], scoreFn: ScoreFn = defaultScoreFn, answerKey?: string): PassMajorityResult {
  if (tasks.length === 0) return { metrics: {}, perSampleAggregate: {}, allScoreDicts: [], scoreNames: [], maxK: 0 };

  const maxK = tasks.reduce((max, rollouts) => Math.max(max, rollouts.length), 0);
  const metrics: Record<string, number> = {};

  const allScoreDicts: Record<string, number>[][] = [];
  const allAnswers: unknown[][] = [];
  for (const rollouts of tasks) {
    const taskScores: Record<string, number>[] = [];
    const taskAnswers: unknown[] = [];
    for (const rollout of rollouts) {
      const scores = normalizeScores(scoreFn(rollout));
      if (answerKey !== undefined) {
        const answer = rollout[answerKey] ?? null;
        taskAnswers.push(answer);
        // no_answer is a binary score like any other, so it gets pass@k, majority@k and spread statistics too.
        scores.no_answer = answer === null ? 1 : 0;
      }
      taskScores.push(scores);
    }
    allScoreDicts.push(taskScores);
    allAnswers.push(taskAnswers);
  }

  const names = new Set<string>();
  for (const taskScores of allScoreDicts) for (const scores of taskScores) for (const name in scores) names.add(name);
  const scoreNames = [...names].sort(compareStrings);

  const seriesByName = scoreNames.map((name) => allScoreDicts.map((taskScores, i) => scoreSeries(taskScores, name, answerKey === undefined ? undefined : allAnswers[i])));

  for (let k = 1; k <= maxK; k++) {
    scoreNames.forEach((name, n) => {
      const passValues: number[] = [];
      for (const { values, binary, incorrect, maxOfFirst } of seriesByName[n]) {
        if (values.length === 0 || k > values.length) continue;
        if (binary) passValues.push(incorrect < k ? 1.0 : 1.0 - binomialRatio(incorrect, values.length, k));
        else passValues.push(maxOfFirst[k - 1]);
      }
      if (passValues.length > 0) metrics[`pass@${k}/${name}`] = (100.0 * pythonSum(passValues)) / passValues.length;

      const avgValues: number[] = [];
      for (const { meanOfFirstRollouts } of seriesByName[n]) {
        const mean = atK(meanOfFirstRollouts, k);
        if (mean !== undefined) avgValues.push(mean);
      }
      if (avgValues.length > 0) metrics[`pass@1[avg-of-${k}]/${name}`] = (100.0 * pythonSum(avgValues)) / avgValues.length;

      if (answerKey !== undefined) {
        const majorityValues = seriesByName[n].map(({ majorityOfFirstRollouts }) => atK(majorityOfFirstRollouts, k) ?? 0);
        metrics[`majority@${k}/${name}`] = (100.0 * pythonSum(majorityValues)) / majorityValues.length;
      }
    });
  }
  const perSampleAggregatePosition = Object.keys(metrics).length;

  const perSampleAggregate: Record<string, number[]> = {};
  for (const name of scoreNames) {
    const runAccuracies: number[] = [];
    for (let run = 0; run < maxK; run++) {
      const runScores = allScoreDicts.filter((taskScores) => run < taskScores.length && name in taskScores[run]).map((taskScores) => taskScores[run][name]);
      if (runScores.length > 0) runAccuracies.push((100.0 * pythonSum(runScores)) / runScores.length);
    }
    if (runAccuracies.length > 0) perSampleAggregate[name] = runAccuracies;
  }

  for (let k = 2; k <= maxK; k++) {
    for (const name of scoreNames) {
      const runAverages = (perSampleAggregate[name] ?? []).slice(0, k);
      if (runAverages.length < 2) continue;
      metrics[`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`] = stdDevAcrossRuns(runAverages);
      metrics[`pass@1[avg-of-${k}]/${name}/std_err_across_runs`] = stdErrAcrossRuns(runAverages);
    }
  }

  return { metrics, perSampleAggregate, allScoreDicts, scoreNames, maxK, perSampleAggregatePosition };
}

/**
 * The dict NeMo Gym's compute_pass_majority_metrics returns: `metrics` with `per_sample_aggregate` at its
 * place (after the pass@k / avg-of-k / majority@k keys). A computeMetrics hook that returns this gives the
 * same agent_metrics as a Python server returning that dict.
 */
export function passMajorityMetricsAsDict(result: PassMajorityResult): Record<string, unknown> {
  const entries: [string, unknown][] = Object.entries(result.metrics);
  if (result.perSampleAggregatePosition !== undefined) entries.splice(result.perSampleAggregatePosition, 0, ["per_sample_aggregate", result.perSampleAggregate]);
  return Object.fromEntries(entries);
}

/**
 * Adds `pass@1[avg-of-{k}]/{score}/avg_sample_std_dev` (k ≥ 2) to `result.metrics`: the mean over tasks of
 * each task's sample std dev across its first k rollouts — spread within a task, next to the spread across
 * runs. Mirrors NeMo Gym's add_avg_sample_std_dev; a no-op when no task has more than one rollout.
 */
export function addAvgSampleStdDev(result: PassMajorityResult): void {
  if (result.maxK <= 1) return;
  // stdDevs[n][task][k - 2]: the task's sample std dev over its first k rollouts (NaN below two values).
  const stdDevs = result.scoreNames.map((name) =>
    result.allScoreDicts.map((taskScores) => {
      const values: number[] = [];
      const byK: number[] = [];
      for (let k = 1; k <= Math.max(taskScores.length, 2); k++) {
        const grew = k <= taskScores.length && name in taskScores[k - 1];
        if (grew) values.push(taskScores[k - 1][name]);
        if (k >= 2) byK.push(grew || byK.length === 0 ? pythonSampleStdDev(values) : byK[byK.length - 1]);
      }
      return byK;
    }),
  );
  for (let k = 2; k <= result.maxK; k++) {
    result.scoreNames.forEach((name, n) => {
      const sampleStdDevs = stdDevs[n].map((byK) => atK(byK, k - 1)).filter((std): std is number => std !== undefined && !Number.isNaN(std));
      if (sampleStdDevs.length > 0) {
        result.metrics[`pass@1[avg-of-${k}]/${name}/avg_sample_std_dev`] = pythonSum(sampleStdDevs) / sampleStdDevs.length;
      }
    });
  }
}

/**
 * pass@k metrics per subset: tasks are grouped by `subsetKey` of their first rollout (tasks whose value is
 * missing or falsy are left out) and each subset's metrics are keyed `{subset}/{metric}`, without
 * per_sample_aggregate. Mirrors NeMo Gym's compute_subset_metrics.
 */
export function computeSubsetMetrics(
  tasks: VerifyRecord[][],
  subsetKey: string,
  options: { scoreFn?: ScoreFn; answerKey?: string } = {},
): Record<string, number> {
  const subsets = new Map<unknown, { label: string; tasks: VerifyRecord[][] }>();
  for (const rollouts of tasks) {
    const value = rollouts.length > 0 ? rollouts[0][subsetKey] : undefined;
    if (!jsonTruthy(value)) continue;
    const mapKey = typeof value === "object" ? JSON.stringify(value) : value;
    if (!subsets.has(mapKey)) subsets.set(mapKey, { label: jsonStr(value), tasks: [] });
    subsets.get(mapKey)!.tasks.push(rollouts);
  }
  const metrics: Record<string, number> = {};
  for (const subset of subsets.values()) {
    const { metrics: subsetMetrics } = passMajority(subset.tasks, options.scoreFn, options.answerKey);
    for (const [key, value] of Object.entries(subsetMetrics)) metrics[`${subset.label}/${key}`] = value;
  }
  return metrics;
}

/**
 * The entries of `agentMetrics` matching `pattern` (with `{k}` standing for k, e.g. `"pass@{k}"` or
 * `"pass@1[avg-of-{k}]"`, followed by `/{score}`) at the highest k present. Spread statistics
 * (std_dev/std_err across runs, avg_sample_std_dev) are never returned; `scoreNames` keeps only those scores,
 * `excludeNames` then drops scores. Mirrors NeMo Gym's highest_k_metrics.
 */
export function highestKMetrics(
  agentMetrics: Record<string, unknown>,
  pattern: string,
  options: { scoreNames?: string[]; excludeNames?: string[] } = {},
): Record<string, unknown> {
  const regex = new RegExp(`^${pattern.split("{k}").map(escapeRegExp).join("(\\d+)")}/(.+)$`);
  const matches: { k: number; key: string }[] = [];
  for (const key of Object.keys(agentMetrics)) {
    const match = regex.exec(key);
    if (!match) continue;
    const k = Number.parseInt(match[1], 10);
    const scoreName = match[2];
    if (STAT_SUFFIXES.some((suffix) => scoreName.endsWith(suffix))) continue;
    if (options.scoreNames !== undefined && !options.scoreNames.includes(scoreName)) continue;
    if (options.excludeNames !== undefined && options.excludeNames.includes(scoreName)) continue;
    matches.push({ k, key });
  }
  if (matches.length === 0) return {};
  const maxK = matches.reduce((max, m) => Math.max(max, m.k), 0);
  return Object.fromEntries(matches.filter((m) => m.k === maxK).map((m) => [m.key, agentMetrics[m.key]]));
}

/**
 * The key metrics of NeMo Gym's pass/majority environments (math_with_judge's compute_key_metrics, repeated by its
 * physics, ugphysics and frontierscience judges): mean input/output tokens, then pass@1[avg-of-k], pass@k and
 * majority@k at the highest k, no_answer left out of the last two.
 */
export function passMajorityKeyMetrics(agentMetrics: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
  Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
  Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { excludeNames: ["no_answer"] }));
  Object.assign(key, highestKMetrics(agentMetrics, "majority@{k}", { excludeNames: ["no_answer"] }));
  return key;
}

function defaultScoreFn(rollout: VerifyRecord): Record<string, number | boolean> {
  const reward = rollout.reward;
  if (typeof reward !== "number" && typeof reward !== "boolean") {
    throw new TypeError(`computePassMajorityMetrics: a rollout has no numeric "reward" (got ${JSON.stringify(reward)}); pass a scoreFn`);
  }
  return { accuracy: reward };
}

function normalizeScores(raw: Record<string, number | boolean>): Record<string, number> {
  const scores: Record<string, number> = {};
  for (const name in raw) {
    if (!Object.hasOwn(raw, name)) continue;
    const value: unknown = raw[name];
    if (typeof value === "boolean") scores[name] = value ? 1 : 0;
    else if (typeof value === "number") scores[name] = value;
    else throw new TypeError(`computePassMajorityMetrics: score "${name}" is ${JSON.stringify(value)}, not a number or boolean`);
  }
  return scores;
}

/** One score of one task: what pass@k needs, and running values over the task's first k rollouts. */
interface ScoreSeries {
  /** The score of every rollout that has it, in order. */
  values: number[];
  /** Every value is 0 or 1 (use the unbiased estimator rather than best-of-k). */
  binary: boolean;
  incorrect: number;
  /** maxOfFirst[k - 1] = the best of values[0..k). */
  maxOfFirst: number[];
  /** [k - 1] = mean score among the first k rollouts (undefined when none of them has the score). */
  meanOfFirstRollouts: (number | undefined)[];
  /** [k - 1] = majority-vote score over the first k rollouts (empty without an answer key). */
  majorityOfFirstRollouts: number[];
}

function scoreSeries(taskScores: Record<string, number>[], name: string, answers: unknown[] | undefined): ScoreSeries {
  const values: number[] = [];
  const maxOfFirst: number[] = [];
  const meanOfFirstRollouts: (number | undefined)[] = [];
  const majorityOfFirstRollouts: number[] = [];
  const sum = new PythonSum();
  // Votes per (answer, score) pair, in first-seen order as Python's Counter keeps them.
  const votes = new Map<string, { score: number; count: number }>();
  taskScores.forEach((scores, i) => {
    if (name in scores) {
      const value = scores[name];
      values.push(value);
      maxOfFirst.push(maxOfFirst.length === 0 ? value : Math.max(maxOfFirst[maxOfFirst.length - 1], value));
      sum.add(value);
      if (answers !== undefined && answers[i] !== null) {
        const answer = typeof answers[i] === "boolean" ? Number(answers[i]) : answers[i];
        const key = JSON.stringify([answer, value]);
        const entry = votes.get(key);
        if (entry) entry.count += 1;
        else votes.set(key, { score: value, count: 1 });
      }
    }
    meanOfFirstRollouts.push(values.length > 0 ? sum.value() / values.length : undefined);
    if (answers !== undefined) majorityOfFirstRollouts.push(majorityScore(votes));
  });
  return { values, binary: values.every((v) => v === 0 || v === 1), incorrect: values.filter((v) => v === 0).length, maxOfFirst, meanOfFirstRollouts, majorityOfFirstRollouts };
}

/** The winning (answer, score) pair's score; ties average their scores; no answers at all score 0. */
function majorityScore(votes: Map<string, { score: number; count: number }>): number {
  if (votes.size === 0) return 0;
  let maxCount = 0;
  for (const { count } of votes.values()) maxCount = Math.max(maxCount, count);
  const tied = [...votes.values()].filter(({ count }) => count === maxCount).map(({ score }) => score);
  return pythonSum(tied) / tied.length;
}

/** The running value over the first k rollouts; a task shorter than k uses all its rollouts. */
function atK<T>(runningValues: T[], k: number): T | undefined {
  return runningValues.length === 0 ? undefined : runningValues[Math.min(k, runningValues.length) - 1];
}

// --- C(m, k) / C(n, k) without overflow -------------------------------------------------------------------

const EXACT_BINOMIAL_MAX_N = 256;
const MAX_SAFE_BIGINT = 2n ** 53n;

/**
 * C(m, k)/C(n, k) for k = 0, 1, … of one (m, n), extended on demand: exact falling factorials of m and n
 * (n ≤ 256), or the running floating-point product (larger n).
 */
interface RatioTable {
  numerator: bigint;
  denominator: bigint;
  product: number;
  ratios: number[];
}
const ratioTables = new Map<string, RatioTable>();

/**
 * C(m, k) / C(n, k) for 0 ≤ k ≤ m ≤ n, equal to ∏_{i<k} (m - i) / (n - i). Up to n = 256 the ratio of the
 * exact integers is rounded once, as Python's `comb(m, k) / comb(n, k)` is; beyond, the product is taken in
 * floating point (no overflow, a few ulps of error).
 */
function binomialRatio(m: number, n: number, k: number): number {
  const tableKey = `${m}/${n}`;
  let table = ratioTables.get(tableKey);
  if (!table) {
    if (ratioTables.size > 100_000) ratioTables.clear();
    table = { numerator: 1n, denominator: 1n, product: 1, ratios: [1] };
    ratioTables.set(tableKey, table);
  }
  while (table.ratios.length <= k) {
    const i = table.ratios.length - 1;
    if (n > EXACT_BINOMIAL_MAX_N) {
      table.product *= (m - i) / (n - i);
      table.ratios.push(table.product);
    } else {
      table.numerator *= BigInt(m - i);
      table.denominator *= BigInt(n - i);
      table.ratios.push(divideCorrectlyRounded(table.numerator, table.denominator));
    }
  }
  return table.ratios[k];
}

/** a / b for 0 ≤ a ≤ b, b > 0, rounded once to the nearest double (ties to even), like Python's int / int. */
function divideCorrectlyRounded(a: bigint, b: bigint): number {
  if (a === 0n) return 0;
  if (a <= MAX_SAFE_BIGINT && b <= MAX_SAFE_BIGINT) return Number(a) / Number(b);
  // Scale so the integer quotient has 55–56 bits, then round it to 53 using the dropped bits and the remainder.
  const shift = 55 + bitLength(b) - bitLength(a);
  const scaled = a << BigInt(shift);
  let quotient = scaled / b;
  const inexact = scaled % b !== 0n;
  const extraBits = BigInt(bitLength(quotient) - 53);
  const dropped = quotient & ((1n << extraBits) - 1n);
  const half = 1n << (extraBits - 1n);
  quotient >>= extraBits;
  if (dropped > half || (dropped === half && (inexact || (quotient & 1n) === 1n))) quotient += 1n;
  return Number(quotient) * 2 ** (Number(extraBits) - shift);
}

function bitLength(value: bigint): number {
  return value.toString(2).length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
