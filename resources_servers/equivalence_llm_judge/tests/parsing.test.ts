// equivalence_llm_judge's reading rules, one by one: the verdict in a judge answer (NeMo Gym's "first label wins"
// over the last content part of the last output item), and what the judge is shown — question, expected answer and
// generated answer, with and without their regexes (Python's semantics, last match, first non-blank group).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assistantMessage, responseWith } from "../../../src/testing/index.ts";
import type { NeMoGymResponse, ResponseCreateParams } from "../../../src/protocol/index.ts";
import { verdictOf, judgeInput } from "../judge.ts";
import { expectedAnswerOf, extractByRegex, lastAssistantText, questionText } from "../extract.ts";

const brackets = { equal: "[[A=B]]", notEqual: "[[A!=B]]" };
const words = { equal: "CORRECT", notEqual: "INCORRECT" };
const answer = (output: unknown[]) => responseWith(output as never) as unknown as NeMoGymResponse;
const said = (...texts: string[]) => answer([assistantMessage(...texts)]);

describe("the verdict in the judge's answer", () => {
  const cases: [string, NeMoGymResponse, boolean, string | null][] = [
    ["the equal label", said("Both name the sun.\n\n[[A=B]] they are equivalent"), true, "[[A=B]]"],
    ["the not-equal label", said("Different organelles.\n\n[[A!=B]] they are not equivalent"), false, "[[A!=B]]"],
    ["no label at all (missing verdict)", said("They look the same to me."), false, null],
    ["both labels: the first one wins (equal first)", said("[[A=B]] ... on reflection [[A!=B]]"), true, "[[A=B]]"],
    ["both labels: the first one wins (not-equal first)", said("Not [[A!=B]], or maybe [[A=B]]"), false, "[[A!=B]]"],
    ["the same label several times", said("[[A=B]] [[A=B]]"), true, "[[A=B]]"],
    ["a label inside a code block still counts", said("```\n[[A=B]]\n```"), true, "[[A=B]]"],
    ["lowercase is no label", said("[[a=b]] they are equivalent"), false, null],
    ["extra whitespace inside the brackets is no label", said("[[ A=B ]]"), false, null],
    ["whitespace around the label is fine", said("   \n\t[[A=B]]\n  "), true, "[[A=B]]"],
    ["only the LAST content part is read", said("[[A=B]]", "on second thought, no verdict"), false, null],
    ["the last part decides even when an earlier one disagrees", said("[[A!=B]]", "[[A=B]]"), true, "[[A=B]]"],
    ["an answer whose last item is no message", answer([assistantMessage("[[A=B]]"), { id: "rs_1", type: "reasoning", summary: [] }]), false, null],
    ["an answer with no output", answer([]), false, null],
    ["a message with no content", answer([{ ...assistantMessage(), content: [] }]), false, null],
    ["a refusal part has no text", answer([{ ...assistantMessage(), content: [{ type: "refusal", refusal: "[[A=B]]" }] }]), false, null],
  ];
  for (const [name, response, equal, label] of cases) {
    test(name, () => assert.deepEqual(verdictOf(response, brackets), { equal, label }));
  }

  test("word labels: INCORRECT holds CORRECT, yet the first position decides", () => {
    assert.deepEqual(verdictOf(said("INCORRECT"), words), { equal: false, label: "INCORRECT" });
    assert.deepEqual(verdictOf(said("The answer is CORRECT"), words), { equal: true, label: "CORRECT" });
    assert.deepEqual(verdictOf(said("correct"), words), { equal: false, label: null });
  });
});

describe("the judge's prompt", () => {
  test("the template is filled by str.format's rules ({{ }} are braces) and the system message comes first unless empty", () => {
    const template = "Q: {question}\nGOLD: {expected_answer}\nCANDIDATE: {generated_answer}\n{{literal}}";
    assert.deepEqual(judgeInput({ template, systemMessage: "be strict" }, "q?", "gold", "cand"), [
      { role: "system", content: "be strict" },
      { role: "user", content: "Q: q?\nGOLD: gold\nCANDIDATE: cand\n{literal}" },
    ]);
    assert.deepEqual(judgeInput({ template, systemMessage: "" }, "q", "e", "g").map((m) => m.role), ["user"]);
    assert.deepEqual(judgeInput({ template, systemMessage: null }, "q", "e", "g").map((m) => m.role), ["user"]);
  });

  test("a template naming a field NeMo Gym does not pass fails (Python's KeyError), it is not left in", () => {
    assert.throws(() => judgeInput({ template: "{question} {answer}", systemMessage: null }, "q", "e", "g"), /no argument 'answer'/);
  });
});

describe("regex extraction", () => {
  test("the LAST match is used, and its first capture group that is not blank (stripped)", () => {
    assert.equal(extractByRegex("((first)) then (( second ))", String.raw`\(\((.*?)\)\)`), "second");
    assert.equal(extractByRegex("x=1; x=  ; end", String.raw`x=(\s*)(\w*)|end`), "end", "a last match with only empty groups gives the whole match");
    // MULTILINE | DOTALL together: ^ may start at the first line and the greedy .* runs to the text's end.
    assert.equal(extractByRegex("A: 1\nA: 2", String.raw`^A:\s*(.*)$`), "1\nA: 2");
    assert.equal(extractByRegex("A: 1\nA: 2", String.raw`^A:\s*(.*?)$`), "2", "MULTILINE: a lazy group stops at a line end");
    assert.equal(extractByRegex("<text>doc</text>\n\nwhat?", String.raw`^QUESTION:\s*(.*)$|</text>\n\n(.*)$`), "what?", "lc_judge's alternation: the group that took part");
    assert.equal(extractByRegex("<a>one\ntwo</a>", "<a>(.*)</a>"), "one\ntwo", "DOTALL: . crosses lines");
  });

  test("without groups the whole last match; without a match, or with an invalid pattern, the text itself", () => {
    assert.equal(extractByRegex("cat dog", String.raw`\w+`), "dog");
    assert.equal(extractByRegex("no answer here", String.raw`\*\*(.*?)\*\*`), "no answer here");
    assert.equal(extractByRegex("text (", "("), "text (");
  });

  test("the generated answer: the last assistant message, its text parts joined by newlines and stripped", () => {
    const response = answer([assistantMessage("early"), { id: "fc", type: "function_call", call_id: "c", name: "f", arguments: "{}" }, assistantMessage("  part one", "part two  ")]);
    assert.equal(lastAssistantText(response, null, "FAIL"), "part one\npart two");
    assert.equal(lastAssistantText(answer([assistantMessage("   ")]), null, "FAIL"), "FAIL", "an empty last message is the failure message, not an earlier one");
    assert.equal(lastAssistantText(answer([]), null, "FAIL"), "FAIL");
    assert.equal(lastAssistantText(said("Work... so **42**."), String.raw`\*\*(.*?)\*\*`, "FAIL"), "42");
    assert.equal(lastAssistantText(said("no bold"), String.raw`\*\*(.*?)\*\*`, "FAIL"), "no bold", "no match keeps the whole text");
  });

  test("the question: the last user message (text blocks joined), stripped, cut by the regex's last match", () => {
    const params = {
      input: [
        { role: "user", content: "first question" },
        { role: "assistant", content: "reply" },
        { role: "user", content: [{ type: "input_text", text: " QUESTION: what is x?" }, { type: "input_image", image_url: "u" }, { type: "input_text", text: "extra " }] },
      ],
    } as unknown as ResponseCreateParams;
    assert.equal(questionText(params, null), "QUESTION: what is x?\nextra");
    assert.equal(questionText(params, String.raw`^QUESTION:\s*(.*)$`), "what is x?\nextra", "DOTALL: the group runs to the end");
    assert.equal(questionText(params, String.raw`^QUESTION:\s*([^\n]*)$`), "what is x?");
    const imageOnly = { input: [{ role: "user", content: "kept" }, { role: "user", content: [{ type: "input_image", image_url: "u" }] }] } as unknown as ResponseCreateParams;
    assert.equal(questionText(imageOnly, null), "kept", "a user turn without text leaves the earlier one standing");
    assert.equal(questionText({ input: "a plain string" } as unknown as ResponseCreateParams, null), "", "a string input has no user message");
  });

  test("the expected answer: the row's unless empty, else metadata's as str() prints it", () => {
    assert.equal(expectedAnswerOf({ expected_answer: "the sun" }), "the sun");
    assert.equal(expectedAnswerOf({ expected_answer: "", metadata: { expected_answer: 3 } }), "3");
    assert.equal(expectedAnswerOf({ expected_answer: null, metadata: { expected_answer: [1, "a"] } }), "[1, 'a']");
    assert.equal(expectedAnswerOf({ metadata: {} }), undefined);
  });
});
