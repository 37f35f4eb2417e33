// latex2sympy2_extended's normalize_latex as math-verify configures it, and the expression tree of what it
// leaves, printed as SymPy prints it (NeMo Gym reports that string as `extracted_answer`).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { normalizeLatex, parseLatex, sympyStr } from "../../../src/ports/math/index.ts";

const printed = (latex: string) => sympyStr(parseLatex(normalizeLatex(latex)));

describe("LaTeX normalisation", () => {
  test("\\dfrac/\\tfrac become \\frac, \\left/\\right go, \\frac12 gets its braces", () => {
    assert.equal(normalizeLatex("\\left(\\dfrac{1}{2}, \\tfrac12\\right)"), "(\\frac{1}{2}, \\frac{1}{2})");
  });

  test("trailing units go: \\text{ cm}, \\mbox{ cm}^2, plain unit words", () => {
    assert.equal(normalizeLatex("5\\text{ cm}"), "5");
    assert.equal(normalizeLatex("15\\mbox{ cm}^2"), "15");
    assert.equal(normalizeLatex("12 inches"), "12");
  });

  test("0.5 is rewritten to \\frac{1}{2}, and a bare a/b of integers to \\frac{a}{b}", () => {
    assert.equal(normalizeLatex("0.5"), "\\frac{1}{2}");
    assert.equal(normalizeLatex("2/3"), "\\frac{2}{3}");
    assert.equal(normalizeLatex(".25"), "0.25");
  });

  test("percent words become \\%", () => {
    assert.equal(normalizeLatex("28 percent"), "28\\%");
  });
});

describe("LaTeX parsing, printed as SymPy's str()", () => {
  test("numbers: integers, reduced rationals, Floats with 15 significant digits", () => {
    assert.equal(printed("32"), "32");
    assert.equal(printed("\\frac{6}{8}"), "3/4");
    assert.equal(printed("-\\frac{10}{9}"), "-10/9");
    assert.equal(printed("0.375"), "0.375000000000000");
    assert.equal(printed("1,000,000"), "1000000");
  });

  test("radicals, powers and products", () => {
    assert.equal(printed("\\sqrt{2}"), "sqrt(2)");
    assert.equal(printed("3\\sqrt{2}"), "3*sqrt(2)");
    assert.equal(printed("\\sqrt[3]{x}"), "x**(1/3)");
    assert.equal(printed("\\frac{\\pi}{2}"), "pi/2");
    assert.equal(printed("2^{10}"), "2**10");
  });

  test("sums order their terms as SymPy does", () => {
    assert.equal(printed("1-\\sqrt{3}"), "1 - sqrt(3)");
    assert.equal(printed("\\sqrt{3}+1"), "1 + sqrt(3)");
    assert.equal(printed("1+2x+x^2"), "x**2 + 2*x + 1");
    assert.equal(
      printed("\\frac{(1+\\sqrt{3})^{4033}-(1-\\sqrt{3})^{4033}}{2^{2017}\\sqrt{3}}"),
      "(-(1 - sqrt(3))**4033 + (1 + sqrt(3))**4033)/((2**2017*sqrt(3)))",
    );
  });

  test("sets, intervals, tuples, equations", () => {
    assert.equal(printed("\\{3, 1, 2\\}"), "{1, 2, 3}");
    assert.equal(printed("(0, 1]"), "Interval.Lopen(0, 1)");
    assert.equal(printed("[0, 1)"), "Interval.Ropen(0, 1)");
    assert.equal(printed("(1, 2, 3)"), "(1, 2, 3)");
    assert.equal(printed("(3, 1)"), "(3, 1)");
    assert.equal(printed("x = 5"), "Eq(x, 5)");
  });

  test("symbols are lowercased; e is Euler's number", () => {
    assert.equal(printed("A"), "a");
    assert.equal(printed("e^{2}"), "E**2");
  });
});
