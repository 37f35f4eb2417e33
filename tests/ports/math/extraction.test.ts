// Which answer math-verify takes from a model's text: priorities (final-answer phrases and \boxed{} first, then
// "answer", then anything), rightmost match first, the first that parses wins, and the string of the first
// match tried is kept as a second candidate.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { extractBoxedContent, extractCandidates, sympyStr, verifyMath, type Candidate } from "../../../src/ports/math/index.ts";

const shown = (candidates: Candidate[]) => candidates.map((c) => (typeof c === "string" ? c : sympyStr(c)));
const prediction = (text: string) => shown(extractCandidates(text, ["expr", "latex"]));

describe("answer extraction", () => {
  test("\\boxed{} wins over numbers after it; the parsed value comes first, then the extracted string", () => {
    assert.deepEqual(prediction("So \\boxed{\\frac{83}{499}} is it. Check: 7 + 5 = 12"), ["83/499", "\\frac{83}{499}"]);
  });

  test("the last \\boxed{} is taken when boxes are far apart; braces inside are balanced", () => {
    const farApart = "First try \\boxed{3}, which is wrong because the sum of the two largest divisors was miscounted earlier on in the computation. Final: \\boxed{\\frac{4}{5}}";
    assert.deepEqual(prediction(farApart), ["4/5", "\\frac{4}{5}"]);
    // Closer than 70 characters with a separator in between, both boxes count.
    assert.deepEqual(prediction("First \\boxed{3}, then after a recount, \\boxed{\\frac{4}{5}}"), ["{4/5, 3}", "3,\\frac{4}{5}"]);
    assert.equal(extractBoxedContent("a \\boxed{\\frac{1}{\\sqrt{2}}} b"), "\\frac{1}{\\sqrt{2}}");
  });

  test("\\fbox counts as a box inside math delimiters; a bare \\fbox is not searched for", () => {
    assert.equal(extractBoxedContent("\\fbox{42}"), "42");
    assert.deepEqual(prediction("The result is $\\fbox{42}$."), ["42", "42"]);
    assert.deepEqual(prediction("The result is \\fbox{42}."), []);
  });

  test("boxes next to each other are all kept, as a set", () => {
    assert.deepEqual(prediction("\\boxed{2}, \\boxed{3}"), ["{2, 3}", "2,3"]);
  });

  test("without a box: $…$, \\(…\\) and \\[…\\] LaTeX, rightmost first", () => {
    assert.deepEqual(prediction("We get $x = 2$ and finally \\(\\frac{1}{4}\\)"), ["1/4", "\\frac{1}{4}"]);
    assert.deepEqual(prediction("Thus \\[ \\sqrt{5} \\] is the length"), ["sqrt(5)", "\\sqrt{5}"]);
  });

  test("'final answer is … I hope' has the highest priority", () => {
    assert.deepEqual(prediction("The final answer is $7$. I hope it is correct. Later I wrote \\boxed{8}."), ["7", "7"]);
  });

  test("after the word 'answer' comes before other numbers", () => {
    assert.deepEqual(prediction("The answer is 42, computed from 6 and 7."), ["42", "42"]);
  });

  test("the last plain number (or a/b expression) is the fallback", () => {
    assert.deepEqual(prediction("We try 12 first and end up with 42"), ["42", "42"]);
    assert.deepEqual(prediction("so it is 3/4"), ["3/4", "3/4"]);
    assert.deepEqual(prediction("a ratio of 25%"), ["25/100", "25"]);
  });

  test("a number glued to letters is not an answer (XDY2K is not 2)", () => {
    assert.equal(verifyMath("2", "AZYUK2A").score, 0);
  });

  test("no answer at all: score 0, no extracted answer", () => {
    const result = verifyMath("5", "I do not know how to solve this.");
    assert.deepEqual([result.score, result.extractedAnswer, result.extractedPrediction], [0, null, []]);
  });

  test("a LaTeX answer that does not parse still yields its string", () => {
    assert.deepEqual(prediction("\\boxed{\\mathbb{Q}}"), ["\\mathbb{Q}"]);
  });
});
