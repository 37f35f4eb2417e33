// Python's round(x, 2) and statistics.mean; expectations produced by python3.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { complexRepr, floatParts, floatRepr, pythonMean, pythonRound } from "../../src/python/float.ts";

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

  test("no data is Python's StatisticsError", () => {
    assert.throws(() => pythonMean([]), { name: "StatisticsError", message: "mean requires at least one data point" });
  });
});

describe("floatParts", () => {
  test("|x| as mantissa · 2^exponent, exactly (float.as_integer_ratio)", () => {
    assert.deepEqual(floatParts(-0.5), { mantissa: 1n << 52n, exponent: -53 });
    assert.deepEqual(floatParts(5e-324), { mantissa: 1n, exponent: -1074 });
  });
});

describe("repr(float) and repr(complex)", () => {
  test("repr(float): shortest round-trip digits, exponent form outside 1e-4 ≤ |x| < 1e16", () => {
    const cases: [number, string][] = [
      [0, "0.0"], [-0, "-0.0"], [1, "1.0"], [0.1, "0.1"], [4096, "4096.0"], [1e-4, "0.0001"], [1e-5, "1e-05"], [0.00012, "0.00012"],
      [1e15, "1000000000000000.0"], [9999999999999998, "9999999999999998.0"], [1e16, "1e+16"], [1.5e16, "1.5e+16"], [2 ** 63, "9.223372036854776e+18"],
      [5e-324, "5e-324"], [1.7976931348623157e308, "1.7976931348623157e+308"], [NaN, "nan"], [Infinity, "inf"], [-Infinity, "-inf"], [-123.456, "-123.456"],
    ];
    for (const [x, expected] of cases) assert.equal(floatRepr(x), expected, String(x));
    assert.equal(floatRepr(4096, false), "4096");
  });

  test("repr(complex)", () => {
    assert.equal(complexRepr(0, 2), "2j");
    assert.equal(complexRepr(1.5, -2), "(1.5-2j)");
    assert.equal(complexRepr(-0, 1), "(-0+1j)");
    assert.equal(complexRepr(0, -0), "-0j");
    assert.equal(complexRepr(1e16, 1e-5), "(1e+16+1e-05j)");
  });
});
