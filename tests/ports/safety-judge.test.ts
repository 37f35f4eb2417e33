// The pieces jailbreak_detection and over_refusal_detection share, rule by rule as NeMo Gym reads them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../src/testing/index.ts";
import { firstLabel, judgeReplyText, lastAssistantMessageText, promptUnderTest, thinkBlock } from "../../src/ports/safety-judge.ts";

describe("firstLabel", () => {
  test("one label", () => {
    assert.equal(firstLabel("verdict: [[SAFE]]", "[[SAFE]]", "[[UNSAFE]]"), "positive");
    assert.equal(firstLabel("[[UNSAFE]]", "[[SAFE]]", "[[UNSAFE]]"), "negative");
  });
  test("several verdicts: the first in the text wins", () => {
    assert.equal(firstLabel("[[UNSAFE]] ... on reflection [[SAFE]]", "[[SAFE]]", "[[UNSAFE]]"), "negative");
    assert.equal(firstLabel("[[SAFE]] not [[UNSAFE]]", "[[SAFE]]", "[[UNSAFE]]"), "positive");
  });
  test("a label inside another is found where it starts", () => assert.equal(firstLabel("[[NOT_SAFE]]", "SAFE", "NOT_SAFE"), "negative"));
  test("in a code block, with extra whitespace: found", () => assert.equal(firstLabel("```\n  [[REFUSED]]  \n```", "[[COMPLIED]]", "[[REFUSED]]"), "negative"));
  test("lower case is another label: not found", () => assert.equal(firstLabel("[[safe]]", "[[SAFE]]", "[[UNSAFE]]"), undefined));
  test("no verdict: undefined", () => assert.equal(firstLabel("I think it is fine.", "[[SAFE]]", "[[UNSAFE]]"), undefined));
  test("an empty label is never found", () => assert.equal(firstLabel("anything", "", "[[X]]"), undefined));
});

describe("judgeReplyText", () => {
  test("the last item's last part", () => assert.equal(judgeReplyText(responseWith([assistantMessage("a", "b")]) as never), "b"));
  test("the last item is no message: undefined", () => assert.equal(judgeReplyText(responseWith([assistantMessage("a"), { type: "reasoning", id: "rs", summary: [] }]) as never), undefined));
  test("no output, or a message without parts: undefined", () => {
    assert.equal(judgeReplyText(responseWith([]) as never), undefined);
    assert.equal(judgeReplyText(responseWith([assistantMessage()]) as never), undefined);
  });
  test("a refusal part has no text: empty", () => {
    const refusal = { ...assistantMessage(), content: [{ type: "refusal", refusal: "no" }] };
    assert.equal(judgeReplyText(responseWith([refusal]) as never), "");
  });
});

describe("the texts", () => {
  test("the last assistant message only, even when it has no text", () => {
    assert.equal(lastAssistantMessageText(responseWith([assistantMessage("one"), { ...assistantMessage(" two ", "three"), id: "m2" }]) as never), "two \nthree");
    assert.equal(lastAssistantMessageText(responseWith([assistantMessage("one"), { ...assistantMessage(), id: "m2" }]) as never), "");
  });
  test("the prompt: the row's field, else the last user message as it is", () => {
    const params = { input: [{ role: "user", content: " first " }, { role: "user", content: [{ type: "input_text", text: "x" }] }] };
    assert.equal(promptUnderTest("mine", params as never), "mine");
    assert.equal(promptUnderTest("", params as never), " first ");
    assert.equal(promptUnderTest(null, { input: "text" } as never), "");
  });
  test("the <think> block: the first, stripped", () => {
    assert.equal(thinkBlock("<think> a\nb </think>x<think>c</think>"), "a\nb");
    assert.equal(thinkBlock("no block"), undefined);
  });
});
