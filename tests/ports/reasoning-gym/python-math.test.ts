// The Python number semantics the new scorers rely on: math.exp as glibc computes it, int/int true division,
// format(x, ".10g"), Fraction(text), the arithmetic evaluator standing in for SymPy, and bare tuples in the
// literal parser (expected values from CPython 3.11 on glibc 2.36; Fraction's spaces around "/" are 3.12+).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatG, pythonExp, trueDivide } from "../../../src/ports/reasoning-gym/python-math.ts";
import { parseFraction } from "../../../src/ports/reasoning-gym/python-fraction.ts";
import { evaluateArithmetic, ExpressionError, valueToFloat, valueToInt } from "../../../src/ports/reasoning-gym/arithmetic-expression.ts";
import { evalPythonLiteral } from "../../../src/ports/reasoning-gym/python-literal.ts";

describe("pythonExp (glibc's exp)", () => {
  test("bit for bit where V8's Math.exp is not", () => {
    assert.equal(pythonExp(-5 / 3), 0.18887560283756183);
    assert.equal(pythonExp(-5 * (2 / 42)), 0.788127627745311);
    assert.equal(pythonExp(700), 1.0142320547350045e304);
  });
  test("underflow to subnormals and zero; overflow raises", () => {
    assert.equal(pythonExp(-745.1), 5e-324);
    assert.equal(pythonExp(-800), 0);
    assert.throws(() => pythonExp(710), /math range error/);
  });
});

describe("trueDivide and formatG", () => {
  test("int / int is the exact ratio rounded once, at any size", () => {
    assert.equal(trueDivide(10n ** 30n + 1n, 3n * 10n ** 29n), 3.3333333333333335);
    assert.equal(trueDivide(2n ** 70n, 3n), 3.935305402391371e20);
    assert.ok(Object.is(trueDivide(-1n, 10n ** 400n), -0));
    assert.throws(() => trueDivide(10n ** 400n, 1n), /too large/);
  });
  test("format(x, '.10g'): half-even on the exact binary value, Python's exponent form", () => {
    assert.equal(formatG(0.000030517578125, 10), "3.051757812e-05");
    assert.equal(formatG(12345678905, 10), "1.23456789e+10");
    assert.equal(formatG(1 / 3, 10), "0.3333333333");
    assert.equal(formatG(100, 10), "100");
    assert.equal(formatG(1e-5, 10), "1e-05");
    assert.equal(formatG(0.0001, 10), "0.0001");
    assert.equal(formatG(-0, 10), "-0");
  });
});

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
