// mcqa's and gpqa_diamond's answer extraction, rule by rule (spec §2.4 and §2.23). Every expected letter is what
// NeMo Gym's Python functions return for the same input (checked with python3 against its app.py).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { allowedLetters, answerColonLetter, answerColonMarkdownLetter, boxedOptionLetter, containsAmbiguousChoiceList, extractBoxedInner, extractGpqaAnswer, extractMcqaAnswer, gpqaLetter, letterFromTemplateRegex, letterFromTemplateRegexes, normalizeExtractedAnswer, normalizeForMatch, stripLatexTextWrappers, strictBoxedLetter, type ChoiceOption, type GradingMode } from "../../src/ports/choice-answer.ts";
import { AttributeError } from "../../src/python/exception.ts";

const OPTIONS: ChoiceOption[] = [{ A: "Karyotyping" }, { B: "Polymerase Chain Reaction (PCR)" }, { C: "Whole-genome sequencing" }, { D: "Chromosome painting" }];
const ABCD = allowedLetters(OPTIONS);
const mcqa = (text: string, gradingMode: GradingMode, templateMetadata?: Record<string, unknown>, options: ChoiceOption[] | null = OPTIONS) =>
  extractMcqaAnswer({ text, options, gradingMode, templateMetadata });

describe("allowed letters", () => {
  test("one-letter keys with a text, upper-cased; null texts, longer keys and non-letters are left out", () => {
    assert.deepEqual([...allowedLetters([{ a: "x" }, { B: null }, { AB: "y" }, { "1": "z" }, { é: "w" }, { C: "" }])].sort(), ["A", "C", "É"]);
    assert.equal(allowedLetters(null).size, 0);
  });
});

describe("normalisation", () => {
  test("Arabic, Bengali and full-width letters read as A–D (with a leading space, then stripped)", () => {
    assert.equal(normalizeExtractedAnswer("ب"), "B");
    assert.equal(normalizeExtractedAnswer("ঢ"), "D");
    assert.equal(normalizeExtractedAnswer("Ｃ"), "C");
    assert.equal(normalizeExtractedAnswer("xأ"), "x A");
  });

  test("option texts compare lower-cased with whitespace collapsed", () => {
    assert.equal(normalizeForMatch("  Whole-genome \n\t SEQUENCING "), "whole-genome sequencing");
  });
});

describe("template_metadata.output_regex", () => {
  const boxed = String.raw`\\boxed\{\s*([A-Za-z])\s*\}`;

  test("the LAST match wins, case-insensitively, upper-cased", () => {
    assert.equal(letterFromTemplateRegex(String.raw`\boxed{A} then \boxed{ c }`, boxed, ABCD, OPTIONS), "C");
    assert.equal(letterFromTemplateRegex("final choice: d", "Final Choice:\\s*([A-Za-z])", ABCD, OPTIONS), "D");
  });

  test("a single letter is trusted even when it is not one of the options", () => {
    assert.equal(letterFromTemplateRegex("Final Choice: Z", "Final Choice:\\s*([A-Za-z])", ABCD, OPTIONS), "Z");
  });

  test("Arabic, Bengali and full-width captures are normalised to letters", () => {
    assert.equal(letterFromTemplateRegex("Final Choice: ب", "Final Choice:\\s*(\\S)", ABCD, OPTIONS), "B");
    assert.equal(letterFromTemplateRegex("Final Choice: Ｄ", "Final Choice:\\s*(\\S)", ABCD, OPTIONS), "D");
  });

  test("otherwise the capture must equal an option's text (normalised)", () => {
    assert.equal(letterFromTemplateRegex("Final Choice:  chromosome   PAINTING", "Final Choice:\\s*(.+)", ABCD, OPTIONS), "D");
    assert.equal(letterFromTemplateRegex("Final Choice: chromosome paint", "Final Choice:\\s*(.+)", ABCD, OPTIONS), undefined);
  });

  test("a pattern without groups yields the whole match, which is then not a letter", () => {
    assert.equal(letterFromTemplateRegex("Final Choice: B", "Final Choice: [A-Z]", ABCD, OPTIONS), undefined);
  });

  test("an invalid pattern (re.error) gives no letter; two groups and non-string patterns fail as in Python", () => {
    assert.equal(letterFromTemplateRegex("Final Choice: B", "(", ABCD, OPTIONS), undefined);
    assert.throws(() => letterFromTemplateRegex("Final: B c", String.raw`Final: (\w) (\w)`, ABCD, OPTIONS), AttributeError);
    assert.throws(() => letterFromTemplateRegex("Final: B", 5, ABCD, OPTIONS), /first argument must be string/);
    assert.throws(() => letterFromTemplateRegex("Final: B", ["x"], ABCD, OPTIONS), /unhashable type: 'list'/);
  });

  test("a list of patterns is tried in order until one gives a letter", () => {
    const patterns = ["(", "Chosen option:\\s*(.+)", "Answer:\\s*([A-Za-z])"];
    assert.equal(letterFromTemplateRegexes("Chosen option: nothing\nAnswer: c", patterns, ABCD, OPTIONS), "C");
    assert.equal(letterFromTemplateRegexes("Chosen option: Karyotyping\nAnswer: c", patterns, ABCD, OPTIONS), "A");
    assert.throws(() => letterFromTemplateRegexes("x", null, ABCD, OPTIONS), /'NoneType' object is not iterable/);
  });

  test("mcqa tries the template first and falls back to the grading mode", () => {
    assert.equal(mcqa(String.raw`Final Choice: C \boxed{B}`, "strict_single_letter_boxed", { output_regex: "Final Choice:\\s*([A-Za-z])" }), "C");
    assert.equal(mcqa(String.raw`no choice \boxed{B}`, "strict_single_letter_boxed", { output_regex: "Final Choice:\\s*([A-Za-z])" }), "B");
    assert.equal(mcqa(String.raw`Final Choice: C \boxed{B}`, "strict_single_letter_boxed", {}), "B", "an empty template_metadata is ignored");
  });
});

describe("strict_single_letter_boxed", () => {
  test("a bare upper-case letter, or one wrapped in non-letters, in the LAST box", () => {
    assert.equal(strictBoxedLetter(String.raw`\boxed{A} … \boxed{C}`, ABCD), "C");
    assert.equal(strictBoxedLetter(String.raw`\boxed{(B)}`, ABCD), "B");
    assert.equal(strictBoxedLetter(String.raw`\boxed{ [D] }`, ABCD), "D");
  });

  test("nested \\text{} wrappers are stripped; braces are counted", () => {
    assert.equal(strictBoxedLetter(String.raw`\boxed{\text{C}}`, ABCD), "C");
    assert.equal(strictBoxedLetter(String.raw`\boxed{\text{ \text{D} }}`, ABCD), "D");
    assert.equal(extractBoxedInner(String.raw`\boxed{\text{E}} x`), String.raw`\text{E}`);
    assert.equal(stripLatexTextWrappers(String.raw`\text{\text{ B }}`), "B");
  });

  test("the \\boxed{C: …} fix: a leading letter followed by : ) . or - labels the option text", () => {
    assert.equal(strictBoxedLetter("\\boxed{\nC: Whole-genome sequencing\n}", ABCD), "C");
    assert.equal(strictBoxedLetter(String.raw`\boxed{B) PCR}`, ABCD), "B");
    assert.equal(strictBoxedLetter(String.raw`\boxed{Whole-genome sequencing}`, ABCD), undefined, "option text alone is lenient_boxed's job");
  });

  test("lower-case fails, a letter not among the options fails, an unbalanced box fails", () => {
    assert.equal(strictBoxedLetter(String.raw`\boxed{b}`, ABCD), undefined);
    assert.equal(strictBoxedLetter(String.raw`\boxed{E}`, ABCD), undefined);
    assert.equal(strictBoxedLetter(String.raw`\boxed{A} and \boxed{B`, ABCD), undefined, "only the last box counts, and it never closes");
    assert.equal(strictBoxedLetter("no box at all: B", ABCD), undefined);
  });

  test("two letters in the box fail", () => {
    assert.equal(strictBoxedLetter(String.raw`\boxed{A or B}`, ABCD), undefined);
  });
});

describe("lenient_boxed", () => {
  test("strict first, then the one option whose text the box contains", () => {
    assert.equal(mcqa(String.raw`\boxed{B}`, "lenient_boxed"), "B");
    assert.equal(mcqa(String.raw`\boxed{\text{whole-genome   SEQUENCING}}`, "lenient_boxed"), "C");
    assert.equal(boxedOptionLetter(String.raw`\boxed{I pick Karyotyping.}`, OPTIONS, ABCD), "A");
  });

  test("no letter when two options match, or the text is outside the box", () => {
    assert.equal(boxedOptionLetter(String.raw`\boxed{Karyotyping or Chromosome painting}`, OPTIONS, ABCD), undefined);
    assert.equal(boxedOptionLetter("Karyotyping", OPTIONS, ABCD), undefined);
  });
});

describe("lenient_answer_colon", () => {
  test("the FIRST `answer:` line: a letter among the options, case-insensitive", () => {
    assert.equal(answerColonLetter("Answer: b\nAnswer: C", OPTIONS, ABCD), "B");
    assert.equal(answerColonLetter(String.raw`answer:\text{D}`, OPTIONS, ABCD), "D");
    assert.equal(answerColonLetter("Answer: E", OPTIONS, ABCD), undefined);
  });

  test("or exactly an option's text", () => {
    assert.equal(answerColonLetter("Answer:   chromosome painting", OPTIONS, ABCD), "D");
    assert.equal(answerColonLetter("Answer: B because PCR", OPTIONS, ABCD), undefined);
  });

  test("a null option text under an allowed letter fails as NeMo Gym's does", () => {
    assert.throws(() => answerColonLetter("Answer: pcr", [{ A: null }, { A: "x" }], allowedLetters([{ A: null }, { A: "x" }])), AttributeError);
  });
});

describe("lenient_answer_colon_md", () => {
  test("markdown around Answer, the LAST usable line wins", () => {
    assert.equal(answerColonMarkdownLetter("**Answer:** C", ABCD), "C");
    assert.equal(answerColonMarkdownLetter("Answer: B\n_Answer_: **D**.", ABCD), "D");
    assert.equal(answerColonMarkdownLetter("Answer: B\nAnswer: none of these", ABCD), "B", "a line with no letter falls back to the one before");
  });

  test("a leading letter, else the last standalone capital", () => {
    assert.equal(answerColonMarkdownLetter("Answer: B because it amplifies DNA", ABCD), "B");
    assert.equal(answerColonMarkdownLetter("Answer: option C", ABCD), "C");
  });

  test("an ambiguous list of different letters is rejected", () => {
    assert.equal(answerColonMarkdownLetter("Answer: A or B", ABCD), undefined);
    assert.equal(answerColonMarkdownLetter("Answer: A/C", ABCD), undefined);
    assert.equal(answerColonMarkdownLetter("Answer: A, and D", ABCD), "A", "', and' is not one of the separators");
    assert.equal(answerColonMarkdownLetter("Answer: A and a", ABCD), "A", "the same letter twice is not ambiguous");
    assert.equal(containsAmbiguousChoiceList("B & D", ABCD), true);
    assert.equal(containsAmbiguousChoiceList("B & E", ABCD), false, "E is not an option");
  });

  test("is only reachable through the mode, and reads full-width letters", () => {
    assert.equal(mcqa("Answer: Ｂ", "lenient_answer_colon_md"), "B");
  });
});

describe("gpqa extract_letter", () => {
  test("the last box: a lone capital, else its last standalone capital", () => {
    assert.equal(gpqaLetter(String.raw`\boxed{A} \boxed{C}`), "C");
    assert.equal(gpqaLetter(String.raw`\boxed{x B y C}`), "C");
    assert.equal(gpqaLetter(String.raw`\boxed{Ⓑ}`), "Ⓑ", "Python's isupper() is the Unicode Uppercase property");
  });

  test("boxes do not nest here: [^}]* stops at the first closing brace", () => {
    assert.equal(gpqaLetter(String.raw`\boxed{\text{D}}`), "D");
  });

  test("without a box letter: the last `Answer: X`, case-insensitive, not followed by a letter or digit", () => {
    assert.equal(gpqaLetter("**Answer:** b\nAnswer: d"), "D");
    assert.equal(gpqaLetter("Answer: Because"), undefined);
    assert.equal(gpqaLetter(String.raw`\boxed{42} Answer: C`), "C");
  });

  test("the letter must be an option's when the row has options", () => {
    assert.equal(extractGpqaAnswer({ text: String.raw`\boxed{x B y D}`, options: [{ A: "1" }, { B: "2" }, { C: "3" }], templateMetadata: undefined }), undefined);
    assert.equal(extractGpqaAnswer({ text: "Answer: E", options: null, templateMetadata: undefined }), "E");
  });

  test("a template regex comes first and is trusted; gpqa takes one pattern, not a list", () => {
    assert.equal(extractGpqaAnswer({ text: "Choice: F", options: OPTIONS, templateMetadata: { output_regex: "Choice: (\\w)" } }), "F");
    assert.throws(() => extractGpqaAnswer({ text: "Answer: B", options: OPTIONS, templateMetadata: { output_regex: ["Answer: (\\w)"] } }), /unhashable type: 'list'/);
  });
});
