// Column statistics and sums with the rounding behaviour of the Python they mirror (pandas/numpy for the
// reward profile; CPython 3.12's builtin sum is tests/python/sum.test.ts).
import { test, describe as suite } from "node:test";
import assert from "node:assert/strict";
import { columnStats, describe, numpySum } from "../../src/metrics/index.ts";

const naiveSum = (values: number[]) => values.reduce((total, x) => total + x, 0);

suite("numpySum", () => {
  test("sums blocks of eight with interleaved accumulators, as numpy does", () => {
    const tenths = Array<number>(10).fill(0.1);
    assert.equal(naiveSum(tenths), 0.9999999999999999);
    assert.equal(numpySum(tenths), 1); // ((.2+.2)+(.1+.1)) + ((.1+.1)+(.1+.1))
  });

  test("short arrays are summed left to right", () => {
    assert.equal(numpySum([0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
    assert.equal(numpySum([]), 0);
  });

  test("long arrays are split in halves of multiples of eight", () => {
    // 300 values: 144 + 156, then 72 + 72 and 72 + 84; the sum stays exact for integers either way
    const values = Array.from({ length: 300 }, (_, i) => i);
    assert.equal(numpySum(values), (299 * 300) / 2);
  });
});

suite("columnStats", () => {
  test("pandas' mean, max, min, median and sample std, missing values skipped", () => {
    const stats = columnStats([1, null, 4, undefined, 2, NaN, 5]);
    assert.deepEqual(stats, { mean: 3, max: 5, min: 1, median: 3, std: Math.sqrt(10 / 3), count: 4 });
  });

  test("std needs two values", () => {
    assert.ok(Number.isNaN(columnStats([7]).std));
    assert.ok(Number.isNaN(columnStats([]).mean));
  });

  test("mean and std of a longer column match pandas' rounding", () => {
    const values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1];
    const stats = columnStats(values);
    assert.equal(stats.mean, 0.6);
    assert.equal(stats.std, 0.33166247903554); // √(1.1 / 10)
    assert.ok(Math.abs(stats.std - Math.sqrt(0.11)) < 1e-15);
  });
});

suite("describe", () => {
  test("the five statistics of one column", () => {
    assert.deepEqual(describe([0, 1, 0, 1]), { mean: 0.5, max: 1, min: 0, median: 0.5, std: Math.sqrt(1 / 3) });
  });

  test("a single value has std 0", () => {
    assert.deepEqual(describe([3]), { mean: 3, max: 3, min: 3, median: 3, std: 0 });
  });

  test("a single value next to a missing one has no std", () => {
    assert.deepEqual(describe([3, null]), { mean: 3, max: 3, min: 3, median: 3 });
  });

  test("no values, no statistics", () => {
    assert.deepEqual(describe([]), {});
    assert.deepEqual(describe([null, undefined]), {});
  });
});
