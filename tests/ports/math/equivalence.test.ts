// verifyMath(expected, text) rule by rule, as NeMo Gym's math_with_judge scores them with math-verify 0.8.0
// (gold = \boxed{expected}; the prediction is searched with the expression and LaTeX extractors; precision 6).
// Expected scores follow math-verify's own tests (tests/test_all.py) and its grader's rules.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { verifyMath } from "../../../src/ports/math/index.ts";

const score = (expected: string, text: string) => verifyMath(expected, text).score;
const assertScores = (cases: [string, string, 0 | 1][]) => {
  for (const [expected, text, want] of cases) assert.equal(score(expected, text), want, `${expected} vs ${text}`);
};

describe("math equivalence: numbers", () => {
  test("a fraction equals its decimal and its a/b form; \\dfrac and \\tfrac are \\frac", () => {
    assertScores([
      ["\\frac{1}{2}", "\\boxed{0.5}", 1],
      ["\\frac{1}{2}", "\\boxed{1/2}", 1],
      ["0.5", "\\boxed{\\frac{1}{2}}", 1],
      ["\\frac{1}{3}", "\\boxed{\\dfrac{1}{3}}", 1],
      ["\\frac{1}{3}", "\\boxed{\\tfrac{1}{3}}", 1],
      ["\\frac{10}{9}", "The answer is 10/9", 1],
      ["\\frac{1}{3}", "$\\frac13$", 1],
    ]);
  });

  test("a decimal on either side compares rounded to 6 places: 1/3 = 0.333333 but not 0.33", () => {
    assertScores([
      ["\\frac{1}{3}", "\\boxed{0.333333}", 1],
      ["\\frac{1}{3}", "\\boxed{0.3333333}", 1],
      ["\\frac{1}{3}", "\\boxed{0.33}", 0],
      ["\\frac{1}{3}", "\\boxed{0.333}", 0],
      ["1000", "\\boxed{1000.0}", 1],
    ]);
  });

  test("answers that look close are wrong: 2/3 vs 3/2, sign errors, 1000 vs 1,001", () => {
    assertScores([
      ["\\frac{2}{3}", "\\boxed{\\frac{3}{2}}", 0],
      ["-3", "\\boxed{3}", 0],
      ["3", "\\boxed{-3}", 0],
      ["1000", "\\boxed{1,001}", 0],
      ["-\\frac{1}{2}", "\\boxed{\\frac{1}{2}}", 0],
    ]);
  });

  test("thousands separators: 1,000,000 is one number, in text and in a box", () => {
    assertScores([
      ["1000000", "\\boxed{1,000,000}", 1],
      ["7425000", "so we get 7,425,000", 1],
      ["1000", "which is 1 000", 1],
      ["1000.99", "costs $1,000.99", 1],
    ]);
  });

  test("a number with a comma decimal separator in text: 1000,99 is 1000.99", () => {
    assertScores([["1000.99", "it is 1000,99", 1]]);
  });

  test("percent: 50\\% is 1/2, so it equals 0.5 and 1/2 but not 50", () => {
    assertScores([
      ["0.5", "\\boxed{50\\%}", 1],
      ["\\frac{1}{2}", "\\boxed{50\\%}", 1],
      ["50", "\\boxed{50\\%}", 0],
      ["50\\%", "\\boxed{50}", 0],
      ["28\\%", "28 percent", 1],
      ["28\\%", "$\\boxed{28 pct}", 1],
    ]);
  });

  test("mixed numbers: 2\\frac{1}{2} is 5/2", () => {
    assertScores([["\\frac{5}{2}", "\\boxed{2\\frac{1}{2}}", 1]]);
  });

  test("units and degrees are dropped: 5\\text{ cm}, 15\\mbox{ cm}^2, 30^\\circ, 12 cm", () => {
    assertScores([
      ["5", "\\boxed{5\\text{ cm}}", 1],
      ["15", "\\boxed{15\\mbox{ cm}^2}", 1],
      ["30", "\\boxed{30^\\circ}", 1],
      ["30", "\\boxed{30^{\\circ}}", 1],
      ["12", "\\boxed{12 cm}", 1],
    ]);
  });
});

describe("math equivalence: expressions", () => {
  test("radicals: \\sqrt{2}/2 = \\frac{\\sqrt2}{2} = 1/\\sqrt{2}; \\sqrt[3]{8} = 2", () => {
    assertScores([
      ["\\frac{\\sqrt{2}}{2}", "\\boxed{\\sqrt{2}/2}", 1],
      ["\\frac{\\sqrt2}{2}", "\\boxed{\\frac{1}{\\sqrt{2}}}", 1],
      ["\\sqrt[3]{8}", "\\boxed{2}", 1],
      ["3\\sqrt{2}", "\\boxed{\\sqrt{18}}", 1],
      ["\\sqrt{2}", "\\boxed{\\sqrt{3}}", 0],
    ]);
  });

  test("\\pi forms: \\frac{\\pi}{2} = \\pi/2 = 1.570796, \\frac94\\pi = \\frac{9\\pi}{4}", () => {
    assertScores([
      ["\\frac{\\pi}{2}", "\\boxed{\\pi/2}", 1],
      ["\\frac{\\pi}{2}", "\\boxed{1.570796}", 1],
      ["\\frac{\\pi}{2}", "\\boxed{1.57}", 0],
      ["\\frac{9}{4}\\pi", "Therefore $\\boxed{\\frac94\\pi}$.", 1],
      ["2\\pi", "\\boxed{\\pi}", 0],
    ]);
  });

  test("with variables, expressions are equal when they agree everywhere (SymPy's simplify(a - b) == 0)", () => {
    assertScores([
      ["x^2 - 1", "\\boxed{(x-1)(x+1)}", 1],
      ["x^2 + 1", "\\boxed{(x+1)^2}", 0],
      ["\\frac{\\pi r}{h+r}", "\\boxed{\\frac{r\\pi}{r+h}}", 1],
      ["2x", "\\boxed{2y}", 0],
    ]);
  });

  test("huge exact values compare: (2+\\sqrt3)^{2016} sums against (1+\\sqrt3)^{4033} forms", () => {
    assertScores([
      ["\\frac{(3-\\sqrt{3})(2-\\sqrt{3})^{2016}+(3+\\sqrt{3})(2+\\sqrt{3})^{2016}}{6}", "\\boxed{\\dfrac{(1+\\sqrt{3})^{4033}-(1-\\sqrt{3})^{4033}}{2^{2017}\\sqrt{3}}}", 1],
      ["2^{100}", "\\boxed{1267650600228229401496703205376}", 1],
      ["2^{100}", "\\boxed{1267650600228229401496703205377}", 0],
    ]);
  });

  test("infinity", () => {
    assertScores([
      ["\\infty", "\\boxed{\\infty}", 1],
      ["-\\infty", "\\boxed{\\infty}", 0],
    ]);
  });
});

describe("math equivalence: structures", () => {
  test("sets compare without order; a lone value equals the one-element set", () => {
    assertScores([
      ["\\{1, 2\\}", "\\boxed{\\{2, 1\\}}", 1],
      ["\\{1, 2\\}", "\\boxed{\\{1, 3\\}}", 0],
      ["\\{1, 2\\}", "\\boxed{\\{1, 2, 3\\}}", 0],
      ["\\{\\frac{1}{3}\\}", "\\boxed{\\{0.333333\\}}", 1],
      ["5", "\\boxed{\\{5\\}}", 1],
      ["1, 2", "\\boxed{2, 1}", 1],
    ]);
  });

  test("intervals compare bounds and open/closed ends", () => {
    assertScores([
      ["(1, 2]", "\\boxed{(1, 2]}", 1],
      ["(1, 2]", "\\boxed{[1, 2]}", 0],
      ["[0,1)", "$[0,1)$", 1],
      ["[0,9)", "$[0,1)$", 0],
      ["(0, \\infty)", "\\boxed{(0,\\infty)}", 1],
      ["[1, \\infty)", "\\boxed{\\left[1, \\infty\\right)}", 1],
    ]);
  });

  test("an inequality chain equals the interval it describes", () => {
    assertScores([["-793 < a < 10", "$$(-793, 10)$$", 1]]);
  });

  test("tuples are ordered", () => {
    assertScores([
      ["(1, 2, 3)", "\\boxed{(1, 2, 3)}", 1],
      ["(1, 2, 3)", "\\boxed{(3, 2, 1)}", 0],
      ["(p,q)=(3,2)", "\\boxed{(3, 2)}", 1],
    ]);
  });

  test("± stands for both values", () => {
    assertScores([
      ["1 \\pm \\sqrt{2}", "\\boxed{1 + \\sqrt{2}, 1 - \\sqrt{2}}", 1],
      ["\\{1 - \\sqrt{2}, 1 + \\sqrt{2}\\}", "\\boxed{1 \\pm \\sqrt{2}}", 1],
    ]);
  });

  test("equations: x = 5 against 5 compares the right side; equivalent equations are equal", () => {
    assertScores([
      ["5", "\\boxed{x = 5}", 1],
      ["x = 5", "\\boxed{5}", 1],
      ["x = 5", "\\boxed{x = 6}", 0],
      ["y = 2x + 1", "\\boxed{y = 1 + 2x}", 1],
      ["2x+4y-3=0", "$y=-\\frac{1}{2}x+\\frac{3}{4}$", 1],
      ["x \\le 2", "Thus $x <= 2$ is our answer.", 1],
      ["x \\le 1", "$-x >= -1$", 1],
      ["x \\neq 5", "The solution is $x != 5$", 1],
    ]);
  });

  test("an approximation keeps the exact side: x = 1/3 ≈ 0.33", () => {
    assertScores([
      ["\\frac{1}{3}", "$x=1/3\\approx0.33$", 1],
      ["11", "$x\\approx11$", 1],
    ]);
  });

  test("matrices compare entry by entry, also after adding them up", () => {
    assertScores([
      ["\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}", "\\boxed{\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}}", 1],
      ["\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}", "\\boxed{\\begin{pmatrix}1 & 2 \\\\ 4 & 3\\end{pmatrix}}", 0],
      ["\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}", "$\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}$", 1],
    ]);
  });

  test("text answers compare as words, letters case-insensitively: \\text{C} = \\text{(C)}", () => {
    assertScores([
      ["\\text{C}", "$\\boxed{\\text{(C)}}.$", 1],
      ["\\text{Monday}", "\\boxed{\\text{monday}}", 1],
      ["\\text{Monday}", "\\boxed{\\text{Tuesday}}", 0],
    ]);
  });
});
