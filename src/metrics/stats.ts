// Numeric building blocks for metrics, written so results match NeMo Gym's Python to the last bit where
// that is practical: the per-column statistics follow pandas (which sums with numpy's pairwise summation, kept
// here: only these pandas statistics use it), and the pass@k family follows CPython 3.12's builtin `sum`
// (Neumaier-compensated for floats; src/python/sum.ts).
import { PythonSum } from "../python/sum.ts";

/** A value pandas would treat as missing: absent, null, or NaN. */
export function isMissing(value: number | null | undefined): value is null | undefined {
  return value === null || value === undefined || Number.isNaN(value);
}

/**
 * numpy's `ndarray.sum` along a contiguous axis: the reduction starts from 0 and adds the pairwise sum of
 * the values (blocks of up to 128 summed with eight interleaved accumulators, longer runs split in halves).
 */
export function numpySum(values: readonly number[]): number {
  return 0 + pairwiseSum(values, 0, values.length);
}

function pairwiseSum(values: readonly number[], start: number, count: number): number {
  if (count < 8) {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += values[start + i];
    return sum;
  }
  if (count <= 128) {
    const acc = values.slice(start, start + 8);
    let i = 8;
    for (; i < count - (count % 8); i += 8) {
      for (let j = 0; j < 8; j++) acc[j] += values[start + i + j];
    }
    // prettier-ignore
    let sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < count; i++) sum += values[start + i];
    return sum;
  }
  let half = Math.floor(count / 2);
  half -= half % 8;
  return pairwiseSum(values, start, half) + pairwiseSum(values, start + half, count - half);
}

/**
 * Sample standard deviation (ddof = 1) the way NeMo Gym's pass@k helpers compute it in plain Python:
 * mean, then the sum of squared deviations over n - 1, then the square root. NaN for fewer than 2 values.
 */
export function pythonSampleStdDev(values: readonly number[]): number {
  const count = values.length;
  if (count < 2) return Number.NaN;
  // Indexed loops: this runs once per task per k in addAvgSampleStdDev, where iterators cost 3×.
  const sum = new PythonSum();
  for (let i = 0; i < count; i++) sum.add(values[i]);
  const mean = sum.value() / count;
  const squares = new PythonSum();
  for (let i = 0; i < count; i++) {
    const deviation = values[i] - mean;
    squares.add(deviation * deviation);
  }
  return Math.sqrt(squares.value() / (count - 1));
}

/** One column's statistics as pandas computes them with skipna; NaN where pandas gives NaN. */
export interface ColumnStats {
  mean: number;
  max: number;
  min: number;
  median: number;
  /** Sample standard deviation (ddof = 1); NaN for fewer than two values. */
  std: number;
  /** How many values are present (not missing). */
  count: number;
}

/** pandas' `mean`, `max`, `min`, `median` and `std` of one column, missing values skipped. */
export function columnStats(values: readonly (number | null | undefined)[]): ColumnStats {
  const present: number[] = [];
  // pandas replaces missing entries with 0 before summing, so the pairwise grouping keeps their positions.
  const zeroFilled = values.map((value) => {
    if (isMissing(value)) return 0;
    present.push(value);
    return value;
  });
  const count = present.length;
  if (count === 0) return { mean: NaN, max: NaN, min: NaN, median: NaN, std: NaN, count };

  const mean = numpySum(zeroFilled) / count;
  let max = present[0];
  let min = present[0];
  for (const value of present) {
    if (value > max) max = value;
    if (value < min) min = value;
  }
  const sorted = [...present].sort((a, b) => a - b);
  const middle = Math.floor(count / 2);
  const median = count % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;

  let std = NaN;
  if (count >= 2) {
    const squaredDeviations = values.map((value) => (isMissing(value) ? 0 : (mean - value) * (mean - value)));
    std = Math.sqrt(numpySum(squaredDeviations) / (count - 1));
  }
  return { mean, max, min, median, std, count };
}

/**
 * The five statistics NeMo Gym reports for one column of rollouts, with its rule for single rollouts:
 * when the standard deviation is undefined and no value is missing, it is reported as 0. Statistics that
 * stay undefined (no values at all, or a missing value and fewer than two present) are left out.
 */
export function describe(values: (number | null | undefined)[]): { mean?: number; max?: number; min?: number; median?: number; std?: number } {
  const stats = columnStats(values);
  if (stats.count === 0) return {};
  const std = Number.isNaN(stats.std) && stats.count === values.length ? 0 : stats.std;
  const described: { mean?: number; max?: number; min?: number; median?: number; std?: number } = {
    mean: stats.mean,
    max: stats.max,
    min: stats.min,
    median: stats.median,
  };
  if (!Number.isNaN(std)) described.std = std;
  return described;
}
