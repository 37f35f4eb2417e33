// Relations read as sets, unions of intervals, ratios, functions f(x) and semicolon-separated solutions, as
// latex2sympy2_extended parses them and math-verify 0.8.0 compares them. Each positive case is a row of
// math-verify's tests/test_numina_cases.py; the negative ones check that the same rules stay exact.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { extractCandidates, normalizeLatex, parseLatex, sympyStr, verifyCandidates, verifyMath } from "../../../src/ports/math/index.ts";

/** math-verify's tests/test_all.py compare_strings: both texts parsed with the LaTeX (boxed first) and expression extractors. */
const compareStrings = (gold: string, pred: string) =>
  verifyCandidates(extractCandidates(gold, ["latex", "expr"], { boxedPriority: 0 }), extractCandidates(pred, ["latex", "expr"], { boxedPriority: 0 }));
const score = (expected: string, text: string) => verifyMath(expected, text).score;
const printed = (latex: string) => sympyStr(parseLatex(normalizeLatex(latex)));

describe("an inequality on |z| against a union of intervals", () => {
  test("test_numina_cases: 1 ≤ |z| ≤ 3/2 is z ∈ [-3/2, -1] ∪ [1, 3/2]", () => {
    assert.equal(compareStrings("$1\\leq|z|\\leq \\frac{3}{2}$", "$z \\in \\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]$"), true);
    assert.equal(score("1\\leq|z|\\leq \\frac{3}{2}", "$z \\in \\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]$"), 1);
  });

  test("the set must be the same: a wrong end, half of it, an open end are wrong", () => {
    assert.equal(score("1\\leq|z|\\leq \\frac{3}{2}", "$[-\\frac{3}{2}, -1] \\cup [1, 2]$"), 0);
    assert.equal(score("1\\leq|z|\\leq \\frac{3}{2}", "$[1, \\frac{3}{2}]$"), 0);
    assert.equal(score("1\\leq|z|\\leq \\frac{3}{2}", "$[-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2})$"), 0);
  });

  test("|x| and x ≠ c read as SymPy's as_set: |x| > 2, |x| < 2, |x| ≤ 0, x ≠ 3", () => {
    assert.equal(score("|x| > 2", "$(-\\infty, -2) \\cup (2, \\infty)$"), 1);
    assert.equal(score("|x| \\ge 2", "$(-\\infty, -2) \\cup (2, \\infty)$"), 0);
    assert.equal(score("|x| < 2", "$(-2, 2)$"), 1);
    assert.equal(score("|x| \\le 0", "$\\{0\\}$"), 1);
    assert.equal(score("x \\ne 3", "$(-\\infty, 3) \\cup (3, \\infty)$"), 1);
  });

  test("unions compare as sets (SymPy's symmetric_difference is empty), in any order", () => {
    assert.equal(score("(-\\infty, 2]", "$(-\\infty, 1) \\cup [1, 2]$"), 1);
    assert.equal(score("(-\\infty, 2]", "$(-\\infty, 1) \\cup (1, 2]$"), 0);
    assert.equal(score("(-\\infty, 1) \\cup (2, \\infty)", "$(2, \\infty) \\cup (-\\infty, 1)$"), 1);
  });
});

describe("ratios", () => {
  test("test_numina_cases: S_{MBCN}:S = 7:32 against 7:32 (a colon divides, as in latex2sympy)", () => {
    assert.equal(compareStrings("$S_{MBCN}:S=7:32$", "$\\boxed{7:32}$"), true);
    assert.equal(score("S_{MBCN}:S=7:32", "$\\boxed{7:32}$"), 1);
    assert.equal(printed("7:32"), "7/32");
  });

  test("the ratio's value decides: 32:7 is wrong, 7/32 is right", () => {
    assert.equal(score("S_{MBCN}:S=7:32", "$\\boxed{32:7}$"), 0);
    assert.equal(score("7:32", "$\\boxed{\\frac{7}{32}}$"), 1);
  });

  test("test_yujianll: a clock time divides by zero and only compares as a string", () => {
    assert.equal(compareStrings("$12:00$", "$1:00$"), false);
    assert.equal(compareStrings("$12:00$", "$12:00$"), true);
  });
});

describe("solutions separated by semicolons", () => {
  test("test_numina_cases: p=5,q=2;p=7,q=2 is the set of tuples {(5, 2), (7, 2)}", () => {
    assert.equal(printed("p=5,q=2;p=7,q=2"), "{(Eq(p, 5), Eq(q, 2)), (Eq(p, 7), Eq(q, 2))}");
    assert.equal(compareStrings("$p=5,q=2;p=7,q=2$", "$(5,2),(7,2)$"), true);
    assert.equal(score("p=5,q=2;p=7,q=2", "$(7,2),(5,2)$"), 1);
  });

  test("each tuple is ordered and every value counts", () => {
    assert.equal(score("p=5,q=2;p=7,q=2", "$(5,2),(7,3)$"), 0);
    assert.equal(score("p=5,q=2;p=7,q=2", "$(2,5),(2,7)$"), 0);
  });

  test("single elements between semicolons stay one flat set", () => {
    assert.equal(printed("1;2"), "{1, 2}");
    assert.equal(printed("1,2;3"), "{(1, 2), (3,)}");
  });
});

describe("functions f(x)", () => {
  test("test_numina_cases: 0 < f(x) < 1 is the interval (0, 1)", () => {
    assert.equal(compareStrings("$0<f(x)<1$", "$(0,1)$"), true);
    assert.equal(score("0<f(x)<1", "$(0,1)$"), 1);
  });

  test("a letter before one parenthesised atom is a function; before an expression, a product", () => {
    assert.equal(printed("f(x)"), "f(x)");
    assert.equal(printed("g(1, y)"), "g(1, y)");
    assert.equal(printed("x(x+1)"), "x*(x + 1)");
  });

  test("the bounds still count, and fx (a product of two unknowns) is not one variable", () => {
    assert.equal(score("0<f(x)<1", "$[0,1)$"), 0);
    assert.equal(score("0<fx<1", "$(0,1)$"), 0);
  });

  test("f(x) is an unknown of its own in equations and expressions, and differs from f(y) and f_x", () => {
    assert.equal(score("f(x)=2(x+1)", "$f(x)=2x+2$"), 1);
    assert.equal(score("2f(1)", "$f(1)+f(1)$"), 1);
    assert.equal(score("f(x)", "$f(y)$"), 0);
    assert.equal(score("f(x)", "$f_x$"), 0);
  });

  test("f(x) ≈ 3.2 is the value 3.2, as x ≈ 3.2 is (latex2sympy's is_expr_of_only_symbols holds for f(x))", () => {
    assert.equal(score("3.2", "$f(x) \\approx 3.2$"), 1);
  });
});
