// reasoning-gym's number readers: Fraction(text), the arithmetic evaluator standing in for SymPy, and bare
// tuples in the literal parser (expected values from CPython 3.11; Fraction's spaces around "/" are 3.12+).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { trueDivide } from "../../../src/python/math.ts";
import { parseFraction } from "../../../src/ports/reasoning-gym/python-fraction.ts";
import { evaluateArithmetic, ExpressionError, valueToFloat, valueToInt } from "../../../src/ports/reasoning-gym/arithmetic-expression.ts";
import { evalPythonLiteral } from "../../../src/ports/reasoning-gym/python-literal.ts";

describe("parseFraction (Python 3.13's Fraction(text))", () => {
  const value = (text: string) => {
    const { n, d } = parseFraction(text);
    return trueDivide(n, d);
  };
  test("fractions, decimals, exponents, underscores, whitespace", () => {
    assert.equal(value(" 5 / 16 "), 0.3125);
    assert.equal(value("1.5e-3"), 0.0015);
    assert.equal(value(".5"), 0.5);
    assert.equal(value("1_0/3"), 10 / 3);
    assert.equal(value("-0.25"), -0.25);
  });
  test("anything else is a ValueError; a zero denominator a ZeroDivisionError", () => {
    assert.throws(() => parseFraction("1/2/3"), /Invalid literal/);
    assert.throws(() => parseFraction("0x10"), /Invalid literal/);
    assert.throws(() => parseFraction("-1/-2"), /Invalid literal/);
    assert.throws(() => parseFraction("1/0"), { name: "ZeroDivisionError" });
  });
});

describe("evaluateArithmetic (SymPy's parse_expr on arithmetic, without eval)", () => {
  const float = (text: string) => valueToFloat(evaluateArithmetic(text));
  test("Python's precedence: ** binds tighter than unary minus and is right-associative; exact rationals", () => {
    assert.equal(float("-2**2"), -4);
    assert.equal(float("2**3**2"), 512);
    assert.equal(float("2**-1"), 0.5);
    assert.equal(float("(1/3) * 3"), 1);
    assert.equal(float("0.1 * 3"), 0.3);
    assert.equal(valueToInt(evaluateArithmetic("49 / 2")), 24n);
    assert.equal(float("4**(1/2)"), 2);
    assert.equal(float("1_000 + 1."), 1001);
  });
  test("x/0 is zoo (not a float); 0/0, zoo − zoo and 0·zoo are nan", () => {
    assert.throws(() => float("1/0"), TypeError);
    assert.ok(Number.isNaN(float("0/0")));
    assert.ok(Number.isNaN(float("1/0 - 1/0")));
    assert.ok(Number.isNaN(float("0 * (1/0)")));
  });
  test("names, calls, other operators and malformed numbers are refused", () => {
    for (const text of ["x + 1", "__import__('os')", "sqrt(4)", "4!", "7 // 2", "7 % 2", "2 ^ 3", "1 = 1", "03", "1__0", "2(3)", "1 +\n2", ""]) {
      assert.throws(() => evaluateArithmetic(text), ExpressionError, text);
    }
  });
});

describe("evalPythonLiteral: bare tuples", () => {
  test("a top-level comma makes a tuple, as eval does", () => {
    assert.deepEqual(evalPythonLiteral("1, 2"), [1n, 2n]);
    assert.deepEqual(evalPythonLiteral("'a',"), ["a"]);
    assert.throws(() => evalPythonLiteral("1,,2"));
  });
});
