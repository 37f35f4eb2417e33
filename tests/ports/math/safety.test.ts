// NeMo Gym kills math-verify after 10 s and scores 0. verifyMath must return quickly on any input: bounded
// exponents, bounded work, no regular expression that backtracks without end; it scores 0 with a reason.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MAX_TEXT_CHARS, stripMathDelimiters, verifyMath } from "../../../src/ports/math/index.ts";

function timed(expected: string, text: string) {
  const started = Date.now();
  const result = verifyMath(expected, text);
  return { ...result, ms: Date.now() - started };
}

describe("math verification is bounded", () => {
  test("a power tower is not computed exactly and still answers (wrong, not hung)", () => {
    const result = timed("5", "\\boxed{2^{2^{2^{2^{100}}}}}");
    assert.equal(result.score, 0);
    assert.ok(result.ms < 2000, `${result.ms} ms`);
  });

  test("a huge factorial is not expanded", () => {
    const result = timed("5", "\\boxed{100000!}");
    assert.equal(result.score, 0);
    assert.ok(result.ms < 2000, `${result.ms} ms`);
  });

  test("an unclosed $$ full of boxes does not backtrack for minutes", () => {
    const result = timed("7", "$$ " + "\\boxed{1} x ".repeat(5000));
    assert.ok(result.ms < 3000, `${result.ms} ms`);
  });

  test("a text longer than the limit scores 0 with a reason", () => {
    const result = verifyMath("7", "7 ".repeat(MAX_TEXT_CHARS));
    assert.equal(result.score, 0);
    assert.match(result.reason ?? "", /longer than/);
  });

  test("a very long run of digits and operators scores 0 with a reason", () => {
    const result = verifyMath("7", "1+".repeat(10_000) + "7");
    assert.equal(result.score, 0);
    assert.match(result.reason ?? "", /run of digits/);
  });

  test("running out of the work budget scores 0 with the reason", () => {
    const result = verifyMath("x^2 - 1", "\\boxed{(x-1)(x+1)}", { maxSteps: 50, deadlineMs: 1000 });
    assert.deepEqual([result.score, result.reason], [0, "work limit of 50 steps exceeded"]);
  });

  test("deeply nested input answers", () => {
    const result = timed("1", "\\boxed{" + "{".repeat(3000) + "1" + "}".repeat(3000) + "}");
    assert.ok(result.ms < 3000, `${result.ms} ms`);
  });
});

describe("the expected answer", () => {
  test("an outer \\( \\) and then an outer $ $ are stripped before boxing (NeMo Gym's _strip_math_delimiters)", () => {
    assert.equal(stripMathDelimiters("  \\(\\frac{1}{2}\\) "), "\\frac{1}{2}");
    assert.equal(stripMathDelimiters("$\\sqrt{2}$"), "\\sqrt{2}");
    assert.equal(stripMathDelimiters("\\($x$\\)"), "x");
    assert.equal(stripMathDelimiters("$"), "$");
    assert.equal(verifyMath("\\(\\frac{333}{1997}\\)", "\\boxed{\\frac{333}{1997}}").score, 1);
  });

  test("an expected answer that yields nothing scores 0 with a reason", () => {
    const result = verifyMath("", "\\boxed{1}");
    assert.equal(result.score, 0);
    assert.equal(result.extractedAnswer, null);
  });

  test("extracted_answer is the first predicted string equal to a gold string, else the first", () => {
    assert.equal(verifyMath("\\frac{1}{2}", "\\boxed{0.5}").extractedAnswer, "1/2");
    assert.equal(verifyMath("3", "\\boxed{3.0}").extractedAnswer, "3.00000000000000");
    assert.equal(verifyMath("-3", "\\boxed{-4}").extractedAnswer, "-4");
  });
});
