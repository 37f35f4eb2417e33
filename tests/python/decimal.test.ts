// Python's decimal.Decimal as the arithmetic scorers use it (expected values taken from python3's decimal module).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { decimalAbs, decimalEquals, decimalLessOrEqual, decimalQuantize, decimalSubtract, parseDecimal, type Decimal, type FiniteDecimal } from "../../src/python/decimal.ts";
import { InvalidOperation } from "../../src/python/exception.ts";

const finite = (text: string) => parseDecimal(text) as FiniteDecimal;
const show = (d: Decimal) => (d.kind === "finite" ? `${d.negative ? "-" : ""}${d.coefficient}e${d.exponent}` : d.kind);

describe("Decimal(text)", () => {
  test("reads what CPython reads: whitespace around (\\x1c too), any underscores, Unicode digits, inf/nan spellings", () => {
    const cases: [string, string][] = [
      [" 1.5 ", "15e-1"], ["\x1c1\x1c", "1e0"], ["1__0", "10e0"], ["_1", "1e0"], ["1_0.0_1", "1001e-2"], [".5", "5e-1"], ["5.", "5e0"],
      ["-0", "-0e0"], ["1E+2", "1e2"], ["١.٥e٢", "15e1"], ["+inf", "infinity"], ["-Infinity", "infinity"], ["NaN12", "nan"], ["snan", "nan"],
    ];
    for (const [text, expected] of cases) assert.equal(show(parseDecimal(text)), expected, JSON.stringify(text));
  });

  test("refuses what CPython refuses", () => {
    for (const text of [".", "\ufeff1", "1 000", "1,5", "0x10", "1e", "e1", "+-1", "Inf1", "_", "1e9999999999999999999999"]) assert.throws(() => parseDecimal(text), InvalidOperation, JSON.stringify(text));
  });
});

describe("Decimal arithmetic", () => {
  test("== by value; NaN equals nothing; sNaN raises", () => {
    assert.equal(decimalEquals(parseDecimal("1000"), parseDecimal("1.000e3")), true);
    assert.equal(decimalEquals(parseDecimal("-0"), parseDecimal("0.00")), true);
    assert.equal(decimalEquals(parseDecimal("NaN"), parseDecimal("NaN")), false);
    assert.equal(decimalEquals(parseDecimal("-inf"), parseDecimal("-Infinity")), true);
    assert.throws(() => decimalEquals(parseDecimal("sNaN"), parseDecimal("1")), InvalidOperation);
  });

  test("subtraction rounds to 28 digits, half to even", () => {
    assert.equal(show(decimalSubtract(finite("1"), finite("1e-30"))), "1000000000000000000000000000e-27");
    assert.equal(show(decimalSubtract(finite("0.0010000000000000000000000000005"), finite("0"))), "1000000000000000000000000000e-30");
    assert.equal(show(decimalSubtract(finite("0.0010000000000000000000000000015"), finite("0"))), "1000000000000000000000000002e-30");
    assert.equal(show(decimalAbs(decimalSubtract(finite("1"), finite("3")))), "2e0");
    assert.equal(decimalLessOrEqual(finite("0.001"), finite("1e-3")), true);
  });

  test("quantize rounds half to even to the exponent; infinities and exponents past the context raise", () => {
    assert.equal(show(decimalQuantize(parseDecimal("12250"), 2n)), "122e2");
    assert.equal(show(decimalQuantize(parseDecimal("12350"), 2n)), "124e2");
    assert.equal(show(decimalQuantize(parseDecimal("9.995"), -2n)), "1000e-2");
    assert.throws(() => decimalQuantize(parseDecimal("inf"), 0n), InvalidOperation);
    assert.throws(() => decimalQuantize(parseDecimal("1e999999999"), 999999997n), InvalidOperation);
  });
});
