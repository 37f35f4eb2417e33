// MultiChallenge's scoring pieces rule by rule: how a verdict is read from a judge answer (labels, the last-line
// fallback, the odd answers), how a final answer loses its thinking, how the judge context is built from raw
// messages, and every aggregation mode exactly.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { aggregateScores, contextFromMessages, extractVerdict, finalAnswerText, rubricItemScore } from "../rubric.ts";

const verdict = (text: string) => extractVerdict(text, "[[YES]]", "[[NO]]");

describe("extractVerdict", () => {
  test("a single label decides", () => {
    assert.equal(verdict("The reply remembers the allergy.\n[[YES]]"), "YES");
    assert.equal(verdict("It suggests peanut butter.\n[[NO]]"), "NO");
  });

  test("several labels: the one occurring last wins, wherever it is", () => {
    assert.equal(verdict("At first [[NO]], but on reflection [[YES]]"), "YES");
    assert.equal(verdict("[[YES]] ... no wait, [[NO]]"), "NO");
    assert.equal(verdict("[[YES]] [[YES]] [[NO]] [[YES]] trailing words"), "YES");
  });

  test("a label inside a code block or mid-line still counts", () => {
    assert.equal(verdict("Verdict:\n```\n[[YES]]\n```"), "YES");
    assert.equal(verdict("Final: [[NO]]. Done."), "NO");
  });

  test("labels are case-sensitive: a lowercase [[yes]] is no label, so the last line decides", () => {
    assert.equal(verdict("I think so.\n[[yes]]"), "YES", "last line upper-cased contains YES");
    assert.equal(verdict("Not really.\n[[no]]"), "NO");
  });

  test("no label: YES in the last line (any case) is YES, else NO in it is NO, else NO", () => {
    assert.equal(verdict("Reasoning...\nyes"), "YES");
    assert.equal(verdict("Reasoning...\nAnswer: No"), "NO");
    assert.equal(verdict("YES on this line\nbut the last line is undecided"), "NO", "only the last line is read");
    assert.equal(verdict("Reasoning...\nI cannot tell"), "NO", "'cannot' contains NO");
    assert.equal(verdict("Reasoning...\nunclear"), "NO", "nothing at all: the default is NO");
    assert.equal(verdict(""), "NO", "an empty answer is NO, never an error");
  });

  test("the fallback checks YES before NO: a last line with both is YES", () => {
    assert.equal(verdict("...\nNO, YES"), "YES");
    assert.equal(verdict("...\nnot yet sure"), "NO", "NOT contains NO");
    assert.equal(verdict("...\nin the eyes of the user, no"), "YES", "substring match: EYES contains YES");
  });

  test("surrounding whitespace is stripped before the last line is taken", () => {
    assert.equal(verdict("Reasoning\n   yes   \n\n\n"), "YES");
    assert.equal(verdict("  \n\t"), "NO");
  });

  test("custom labels are found the same way", () => {
    assert.equal(extractVerdict("PASS then FAIL", "PASS", "FAIL"), "NO");
    assert.equal(extractVerdict("FAIL then PASS", "PASS", "FAIL"), "YES");
    assert.equal(extractVerdict("same label", "X", "X"), "NO", "equal positions are NO");
  });
});

describe("rubricItemScore", () => {
  test("YES criteria pass on YES, NO criteria pass on NO (any case), anything else passes on YES", () => {
    assert.deepEqual([rubricItemScore("YES", "YES"), rubricItemScore("YES", "NO")], [1, 0]);
    assert.deepEqual([rubricItemScore("no", "NO"), rubricItemScore("No", "YES")], [1, 0]);
    assert.deepEqual([rubricItemScore("mentions Paris", "YES"), rubricItemScore("mentions Paris", "NO")], [1, 0]);
  });
});

describe("finalAnswerText", () => {
  const message = (...texts: string[]) => ({ type: "message", role: "assistant", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) });
  const out = (...items: unknown[]) => finalAnswerText({ output: items } as never);

  test("the last assistant message, its parts joined by newlines and stripped", () => {
    assert.equal(out(message("first"), { type: "reasoning", summary: [] }, message("  a", "b  ")), "a\nb");
  });

  test("paired think blocks are removed, and everything up to an unpaired closing tag", () => {
    assert.equal(out(message("<think>plan</think>Answer<thinking>more</thinking> done")), "Answer done");
    assert.equal(out(message("reasoning without an opening tag</think>\nThe answer")), "The answer");
    assert.equal(out(message("a</thinking>b</thinking>c")), "b</thinking>c", "only the first unpaired closing tag");
  });

  test("no assistant message: empty", () => {
    assert.equal(out({ type: "function_call", name: "f", arguments: "{}", call_id: "c" }), "");
    assert.equal(out(), "");
  });
});

describe("contextFromMessages", () => {
  test("[ROLE]: content, blank-line separated, thinking left out, missing role is UNKNOWN", () => {
    const context = contextFromMessages([
      { role: "user", content: "hi" },
      { role: "thinking", content: "hmm" },
      { role: "assistant", content: "hello" },
      { content: "orphan" },
      { role: "user" },
    ]);
    assert.equal(context, "[USER]: hi\n\n[ASSISTANT]: hello\n\n[UNKNOWN]: orphan\n\n[USER]: ");
  });

  test("non-string content is printed as Python prints it", () => {
    assert.equal(contextFromMessages([{ role: "user", content: [{ type: "text", text: "x" }] }]), "[USER]: [{'type': 'text', 'text': 'x'}]");
    assert.equal(contextFromMessages([{ role: "user", content: null }]), "[USER]: None");
  });

  test("a message that is not a mapping, or a role that is not a string, is NeMo Gym's AttributeError", () => {
    assert.throws(() => contextFromMessages(["text"]), { name: "AttributeError" });
    assert.throws(() => contextFromMessages([{ role: null, content: "x" }]), { name: "AttributeError" });
  });
});

describe("aggregateScores", () => {
  const items = (...pairs: [number, number][]) => pairs.map(([score, weight]) => ({ score, weight }));
  const mixed = items([1, 3], [0, 1], [1, 0.5], [0, 0.5]);

  test("mean, min, max", () => {
    assert.equal(aggregateScores("mean", mixed), 0.5);
    assert.equal(aggregateScores("mean", items([1, 1], [0, 1], [0, 1])), 1 / 3);
    assert.equal(aggregateScores("min", mixed), 0);
    assert.equal(aggregateScores("max", mixed), 1);
  });

  test("all and any are binary", () => {
    assert.equal(aggregateScores("all", mixed), 0);
    assert.equal(aggregateScores("all", items([1, 1], [1, 1])), 1);
    assert.equal(aggregateScores("any", mixed), 1);
    assert.equal(aggregateScores("any", items([0, 1], [0, 1])), 0);
  });

  test("weighted: sum(score * weight) / sum(weight); zero total weight is 0", () => {
    assert.equal(aggregateScores("weighted", mixed), (3 + 0.5) / 5);
    assert.equal(aggregateScores("weighted", items([1, 0.1], [0, 0.2])), 0.1 / (0.1 + 0.2));
    assert.equal(aggregateScores("weighted", items([1, 0], [1, 0])), 0);
    assert.equal(aggregateScores("weighted", items([1, 2], [0, -2])), 0, "weights summing to zero");
  });

  test("no rubric items: 0 in every mode", () => {
    for (const mode of ["mean", "min", "max", "all", "any", "weighted"] as const) assert.equal(aggregateScores(mode, []), 0);
  });
});
