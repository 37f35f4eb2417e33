// `\( … \)` inside an answer, as math-verify 0.8.0 (latex2sympy2_extended 1.10.2) reads it. Its grammar has the
// visual parentheses only in set atoms — an ordered tuple `\( a; b \)` (one element is that element) or an
// interval with any mix of `(`/`[`/`\(` and `)`/`]`/`\)` — so `\(\sqrt{2}\)` parses where an element, a relation's
// right side, a set operation's operand or a plain parenthesis at that level stands, and an answer that puts one
// inside arithmetic does not parse: the boxed match then yields only its string, and the search goes on to the
// lower-priority patterns, where the `\(\sqrt{2}\)` inside the box is found as inline math on its own.
// Every score and extraction below is what math-verify 0.8.0 itself gives (run from its source).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseLatex, sympyStr, verifyMath } from "../../../src/ports/math/index.ts";

const outcome = (expected: string, text: string) => {
  const result = verifyMath(expected, text);
  return [result.score, result.extractedPrediction];
};
const parses = (latex: string) => {
  try {
    return sympyStr(parseLatex(latex));
  } catch {
    return null;
  }
};

describe("\\( … \\) inside a boxed answer", () => {
  test("\\boxed{2*(\\(\\sqrt{2}\\))} against \\(\\sqrt{2}\\) scores 1: the box does not parse, the inline \\(\\sqrt{2}\\) in it does", () => {
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\(\\sqrt{2}\\))}"), [1, ["sqrt(2)", "2*(\\(\\sqrt{2}\\))"]]);
    // The same product with plain parentheses parses, and is not √2.
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\sqrt{2})}"), [0, ["2*sqrt(2)", "2*(\\sqrt{2})"]]);
    // The rule, not the value: a wrong inline value inside the box scores 0.
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\(\\sqrt{3}\\))}"), [0, ["sqrt(3)", "2*(\\(\\sqrt{3}\\))"]]);
  });

  test("any arithmetic around the set atom is refused the same way: product, power, sign, factorial, sum, command argument", () => {
    for (const box of ["2\\(\\sqrt{2}\\)", "\\(\\sqrt{2}\\)^2", "-\\(\\sqrt{2}\\)", "\\(\\sqrt{2}\\)!", "\\(\\sqrt{2}\\)+0", "\\frac{\\(\\sqrt{2}\\)}{1}", "|\\(\\sqrt{2}\\)|"]) {
      assert.deepEqual(outcome("\\(\\sqrt{2}\\)", `\\boxed{${box}}`), [1, ["sqrt(2)", box]], box);
    }
    assert.deepEqual(outcome("2", "\\boxed{3*\\(2\\)}"), [1, ["2", "3*\\(2\\)"]]);
    // Only a later match can rescue the answer: inside $…$ there is none, and "so 5" is found instead.
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "$\\boxed{2*(\\(\\sqrt{2}\\))}$"), [0, ["2*(\\(\\sqrt{2}\\))"]]);
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\(\\sqrt{2}\\))} so 5"), [0, ["5", "2*(\\(\\sqrt{2}\\))"]]);
  });

  test("two boxed values joined into one answer that does not parse fall back to the inline \\(\\sqrt{2}\\) too", () => {
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\(\\sqrt{2}\\))} and \\boxed{\\sqrt{2}}"), [1, ["sqrt(2)", "2*(\\(\\sqrt{2}\\)),\\sqrt{2}"]]);
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2*(\\(\\sqrt{2}\\))}, \\boxed{2*(\\(\\sqrt{2}\\))}"), [1, ["sqrt(2)", "2*(\\(\\sqrt{2}\\)),2*(\\(\\sqrt{2}\\))"]]);
    // Two boxes that do parse are one set: the same value twice is that value, two values are not √2.
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{\\(\\sqrt{2}\\)} \\boxed{\\(\\sqrt{2}\\)}"), [1, ["{sqrt(2)}", "\\(\\sqrt{2}\\),\\(\\sqrt{2}\\)"]]);
    assert.equal(outcome("\\(\\sqrt{2}\\)", "\\boxed{2} \\boxed{\\(\\sqrt{2}\\)}")[0], 0);
    // Boxes far apart: only the last counts.
    assert.equal(outcome("\\(\\sqrt{2}\\)", "First I got \\boxed{2}, which is wrong; after rechecking every single step the correct value is \\boxed{\\sqrt{2}}")[0], 1);
  });

  test("where a set atom may stand it parses: alone, nested, in a plain parenthesis, after =, as an interval or in a union", () => {
    assert.deepEqual(
      ["\\(\\sqrt{2}\\)", "\\(\\(\\sqrt{2}\\)\\)", "(\\(3\\))", "x = \\(\\sqrt{2}\\)", "\\(1, 2\\)", "\\(1, 2]", "[1, 2\\)", "\\(1,2\\) \\cup \\(3,4\\)", "\\(1\\)\\cup\\(2\\)"].map(parses),
      ["sqrt(2)", "sqrt(2)", "3", "Eq(x, sqrt(2))", "Interval.open(1, 2)", "Interval.Lopen(1, 2)", "Interval.Ropen(1, 2)", "Union(Interval.open(1, 2), Interval.open(3, 4))", "Union(1, 2)"],
    );
    assert.deepEqual(outcome("\\([1,2)\\)", "\\boxed{[1, 2\\)}"), [1, ["Interval.Ropen(1, 2)", "[1, 2\\)"]]);
  });

  test("where it may not, or half-written, it does not parse; \\[ \\] are not parentheses at all", () => {
    for (const latex of ["2*(\\(\\sqrt{2}\\))", "\\(\\sqrt{2}\\) = x", "\\(\\sqrt{2}\\) \\pm 1", "\\sqrt{\\(2\\)}", "(\\sqrt{2}\\)", "\\(3", "\\[1\\]+1", "\\[\\sqrt{2}\\]"]) {
      assert.equal(parses(latex), null, latex);
    }
    // "\\left(" normalises to "\(": a product with it is refused as well.
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{\\\\left(\\sqrt{2}\\\\right)}"), [1, ["sqrt(2)", "\\(\\sqrt{2}\\)"]]);
    assert.deepEqual(outcome("\\(\\sqrt{2}\\)", "\\boxed{2\\\\left(\\sqrt{2}\\\\right)}"), [0, ["2\\(\\sqrt{2}\\)"]]);
  });
});
