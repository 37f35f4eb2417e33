// How abstention reads texts, rule by rule as NeMo Gym's verifier does: the boxed answer, SQuAD normalisation,
// thinking blocks, the last assistant message, and the judge's grade (including the odd answers a judge gives).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../../src/testing/index.ts";
import { extractBoxedAnswer, lastAssistantText, normalizeAnswer, parseJudgeGrade, stripThinkingTraces } from "../answer.ts";

describe("extractBoxedAnswer", () => {
  test("the content of \\boxed{}", () => assert.equal(extractBoxedAnswer("so \\boxed{Paris}."), "Paris"));
  test("none: undefined", () => assert.equal(extractBoxedAnswer("Paris"), undefined));
  test("nested braces are balanced", () => assert.equal(extractBoxedAnswer("\\boxed{\\frac{1}{2}}"), "\\frac{1}{2}"));
  test("the last one wins", () => assert.equal(extractBoxedAnswer("\\boxed{A} then \\boxed{B}"), "B"));
  test("the abstention token", () => assert.equal(extractBoxedAnswer("\\boxed{[IDK]}"), "[IDK]"));
  test("empty box: the empty string", () => assert.equal(extractBoxedAnswer("\\boxed{}"), ""));
  test("a box that never closes: undefined", () => assert.equal(extractBoxedAnswer("\\boxed{open {still"), undefined));
  test("an unclosed last box hides a closed earlier one", () => assert.equal(extractBoxedAnswer("\\boxed{ok} \\boxed{open"), undefined));
});

describe("normalizeAnswer", () => {
  test("lower case", () => assert.equal(normalizeAnswer("PARIS"), "paris"));
  test("articles are dropped as words only", () => assert.equal(normalizeAnswer("The Theatre and an Anthem"), "theatre and anthem"));
  test("punctuation is dropped", () => assert.equal(normalizeAnswer("Arthur's Magazine!"), "arthurs magazine"));
  test("whitespace collapses", () => assert.equal(normalizeAnswer("  New \t York\n City "), "new york city"));
  test("[IDK] and idk are the same", () => assert.equal(normalizeAnswer("[IDK]"), normalizeAnswer(" idk ")));
  test("unicode letters are word characters (Python's \\w)", () => assert.equal(normalizeAnswer("Zürich, café"), "zürich café"));
});

describe("stripThinkingTraces", () => {
  test("<think> blocks go", () => assert.equal(stripThinkingTraces("<think>hmm</think> \\boxed{X}"), "\\boxed{X}"));
  test("<thinking> blocks go", () => assert.equal(stripThinkingTraces("<thinking>a\nb</thinking>\nX"), "X"));
  test("an unpaired </think>: everything before it goes", () => assert.equal(stripThinkingTraces("reasoning...\n</think>\nX"), "X"));
  test("an unpaired </thinking>: everything before it goes", () => assert.equal(stripThinkingTraces("r</thinking>X"), "X"));
  test("no tags: only stripped", () => assert.equal(stripThinkingTraces("  X  "), "X"));
  test("several blocks over several lines", () => assert.equal(stripThinkingTraces("<think>1\n2</think>A<think>3</think>B"), "AB"));
});

describe("lastAssistantText", () => {
  test("parts joined by newlines, stripped", () => assert.equal(lastAssistantText(responseWith([assistantMessage(" a", "b ")]) as never), "a\nb"));
  test("the last assistant message with text; an empty later one is skipped", () => {
    const empty = { ...assistantMessage(), id: "msg_2" };
    assert.equal(lastAssistantText(responseWith([assistantMessage("first"), empty]) as never), "first");
  });
  test("thinking is stripped", () => assert.equal(lastAssistantText(responseWith([assistantMessage("<think>x</think>y")]) as never), "y"));
  test("no message: empty", () => assert.equal(lastAssistantText(responseWith([{ type: "reasoning", id: "rs", summary: [] }]) as never), ""));
});

describe("parseJudgeGrade", () => {
  test("one letter", () => {
    for (const letter of ["A", "B", "C"] as const) assert.equal(parseJudgeGrade(letter), letter);
  });
  test("extra whitespace around the letter", () => assert.equal(parseJudgeGrade("  \n C \n"), "C"));
  test("the letter on the last line", () => assert.equal(parseJudgeGrade("The prediction does not match.\nB"), "B"));
  test("the letter inside text: the first of A, B, C present, by that order, not by position", () => {
    assert.equal(parseJudgeGrade("Grade: C"), "C");
    // "Answer" holds a capital A: NeMo Gym's rule reads it as CORRECT.
    assert.equal(parseJudgeGrade("Answer: B"), "A");
    assert.equal(parseJudgeGrade("B or C"), "B");
  });
  test("several verdicts on the last line: not one letter, so the substring rule decides", () => assert.equal(parseJudgeGrade("hmm\nC B"), "B"));
  test("a verdict in a code block: the fence is a line of its own, so the substring rule finds it", () => assert.equal(parseJudgeGrade("```\nC\n```"), "C"));
  test("lower case letters are no grade: B", () => assert.equal(parseJudgeGrade("c"), "B"));
  test("no verdict at all: B (incorrect)", () => assert.equal(parseJudgeGrade("no idea"), "B"));
  test("empty: B", () => assert.equal(parseJudgeGrade(""), "B"));
});
