// Python's round(x, 2) and statistics.mean; expectations produced by python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { floatParts, pythonMean, pythonRound } from "../../src/python/float.ts";

describe("round(x, 2)", () => {
  test("exact binary ties go to even, everything else to the nearest", () => {
    const cases: [number, number][] = [
      [0.625, 0.62], [0.125, 0.12], [0.375, 0.38], [-0.625, -0.62], [2.675, 2.67], [0.005, 0.01], [0.015, 0.01], [0.025, 0.03], [1.005, 1], [0.845, 0.84],
      [0.2 + 0.8 * 0.5333333333333333, 0.63], [0.2 + 0.8 * 0.9333333333333333, 0.95], [0.2 + 0.8 * (13 / 16), 0.85],
    ];
    for (const [x, expected] of cases) assert.equal(pythonRound(x, 2), expected, String(x));
  });
});

describe("statistics.mean", () => {
  test("the exactly rounded mean", () => {
    assert.equal(pythonMean([0.1, 0.2, 0.3]), 0.2);
    assert.equal(pythonMean([1, 0, 0.63]), 0.5433333333333333);
    assert.equal(pythonMean([0.95, 0.63, 1, 1, 1]), 0.916);
  });
});

describe("floatParts", () => {
  test("|x| as mantissa · 2^exponent, exactly (float.as_integer_ratio)", () => {
    assert.deepEqual(floatParts(-0.5), { mantissa: 1n << 52n, exponent: -53 });
    assert.deepEqual(floatParts(5e-324), { mantissa: 1n, exponent: -1074 });
  });
});
