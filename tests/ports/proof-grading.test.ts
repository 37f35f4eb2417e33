// The \boxed{} score NeMo Gym's proof servers read from judges and policies, rule by rule, and their other shared
// rules (thinking, length limits, assistant text, token counts).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { afterThinking, assistantText, extractBoxedScore, generatedTokenCount, textLengthError } from "../../src/ports/proof-grading.ts";

describe("extractBoxedScore", () => {
  test("0, 0.5 and 1 in any float spelling", () => {
    for (const [text, score] of [["\\boxed{1}", 1], ["\\boxed{0}", 0], ["\\boxed{0.5}", 0.5], ["\\boxed{ 1.0 }", 1], ["\\boxed{.5}", 0.5], ["\\boxed{1e0}", 1], ["\\boxed{0.50}", 0.5], ["\\boxed{\n0\n}", 0]] as const) {
      assert.equal(extractBoxedScore(text), score, text);
    }
  });

  test("several verdicts: the last \\boxed counts", () => {
    assert.equal(extractBoxedScore("First \\boxed{0}, on reflection \\boxed{1}"), 1);
    assert.equal(extractBoxedScore("\\boxed{1} ... final: \\boxed{banana}"), null, "a bad last verdict is no verdict, the earlier one is not used");
  });

  test("any other number, a word, an empty box, nested braces, no closing brace: none", () => {
    for (const text of ["\\boxed{2}", "\\boxed{0.25}", "\\boxed{-1}", "\\boxed{one}", "\\boxed{}", "\\boxed{\\frac{1}{2}}", "\\boxed{1", "\\boxed {1}"]) {
      assert.equal(extractBoxedScore(text), null, text);
    }
  });

  test("missing verdict, other casing: none", () => {
    assert.equal(extractBoxedScore("The proof is correct. Score: 1"), null);
    assert.equal(extractBoxedScore("\\Boxed{1}"), null);
    assert.equal(extractBoxedScore("\\BOXED{1}"), null);
  });

  test("a verdict inside a code block or with text around it still counts", () => {
    assert.equal(extractBoxedScore("```\n\\boxed{0.5}\n```"), 0.5);
    assert.equal(extractBoxedScore("**Score:** $\\boxed{1}$."), 1);
  });
});

describe("the policy's text", () => {
  test("only what follows the last </think>, stripped; </think> required only with assert_think_end", () => {
    assert.equal(afterThinking("<think>a</think> x </think>\n y \n", false), "y");
    assert.equal(afterThinking("  no thinking  ", false), "no thinking");
    assert.equal(afterThinking("no thinking", true), null);
    assert.equal(afterThinking("<think>t</think>ok", true), "ok");
  });

  test("a text over its limit (in code points) is reported with its length", () => {
    assert.equal(textLengthError("😀".repeat(5), "proof", 5), undefined);
    assert.deepEqual(textLengthError("abcdef", "proof", 5), { r_format: 0, reason: "proof_too_long", proof_length: 6n, proof_max_length: 5n });
  });

  test("assistant text: output_text parts of assistant messages only, joined", () => {
    const response = {
      output: [
        { type: "reasoning", summary: [{ type: "summary_text", text: "hidden" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }, { type: "refusal", refusal: "r" }, { type: "output_text", text: "b" }] },
        { type: "message", role: "user", content: [{ type: "output_text", text: "not mine" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "c" }] },
      ],
    };
    assert.equal(assistantText(response), "abc");
    assert.equal(assistantText({ output: [] }), "");
  });

  test("generated tokens: usage.output_tokens, else completion_tokens, else 0", () => {
    assert.equal(generatedTokenCount({ usage: { output_tokens: 7, completion_tokens: 9 } }), 7);
    assert.equal(generatedTokenCount({ usage: { output_tokens: null, completion_tokens: 9 } }), 9);
    assert.equal(generatedTokenCount({ usage: null }), 0);
  });
});
