// length_constraints:* and paragraphs:* — sentence counts (NLTK punkt), word counts (\w+ runs), and the two
// paragraph layouts: `***` dividers vs blank lines.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("length_constraints:number_sentences", () => {
  test('"at least" counts punkt sentences; a known abbreviation does not end one', () => {
    const kwargs = { num_sentences: 3, relation: "at least" };
    assert.equal(follows("length_constraints:number_sentences", kwargs, "One. Two! Three?"), true);
    assert.equal(follows("length_constraints:number_sentences", kwargs, "Mr. Smith met Dr. Jones. Fine."), false);
  });

  test('"less than" is strict', () => {
    const kwargs = { num_sentences: 2, relation: "less than" };
    assert.equal(follows("length_constraints:number_sentences", kwargs, "Just one sentence here"), true);
    assert.equal(follows("length_constraints:number_sentences", kwargs, "One. Two."), false);
  });
});

describe("length_constraints:number_words", () => {
  test("words are runs of word characters: hyphens and apostrophes split them", () => {
    const kwargs = { num_words: 4, relation: "at least" };
    assert.equal(follows("length_constraints:number_words", kwargs, "well-known don't"), true);
    assert.equal(follows("length_constraints:number_words", kwargs, "three short words"), false);
  });

  test('"less than" is strict', () => {
    const kwargs = { num_words: 3, relation: "less than" };
    assert.equal(follows("length_constraints:number_words", kwargs, "two words"), true);
    assert.equal(follows("length_constraints:number_words", kwargs, "three whole words"), false);
  });
});

describe("length_constraints:number_paragraphs", () => {
  test("paragraphs are split on *** (blank lines do not count)", () => {
    const kwargs = { num_paragraphs: 2 };
    assert.equal(follows("length_constraints:number_paragraphs", kwargs, "First.\n\nStill first.\n***\nSecond."), true);
    assert.equal(follows("length_constraints:number_paragraphs", kwargs, "First.\n\nSecond."), false);
  });

  test("blank pieces at the ends are dropped; an empty paragraph in between fails", () => {
    assert.equal(follows("length_constraints:number_paragraphs", { num_paragraphs: 2 }, "***\nA\n***\nB\n***"), true);
    assert.equal(follows("length_constraints:number_paragraphs", { num_paragraphs: 2 }, "A\n***\n***\nB"), false);
  });
});

describe("length_constraints:nth_paragraph_first_word", () => {
  const kwargs = { num_paragraphs: 3, nth_paragraph: 2, first_word: "Crash" };
  test("paragraphs split on blank lines; the nth starts with the word, case-insensitively, quotes and punctuation ignored", () => {
    assert.equal(follows("length_constraints:nth_paragraph_first_word", kwargs, 'One.\n\n"crash," it went.\n\nThree.'), true);
  });

  test("the paragraph count must match too", () => {
    assert.equal(follows("length_constraints:nth_paragraph_first_word", kwargs, "One.\n\nCrash.\n\nThree.\n\nFour."), false);
  });

  test("the first word runs up to .,?!'\" only: an em dash keeps it going", () => {
    assert.equal(follows("length_constraints:nth_paragraph_first_word", kwargs, "One.\n\nCrash—emotion.\n\nThree."), false);
  });
});

describe("paragraphs:paragraphs", () => {
  test("exactly two paragraphs separated by ***", () => {
    assert.equal(follows("paragraphs:paragraphs", {}, "Intro text.\n***\nMore text."), true);
    assert.equal(follows("paragraphs:paragraphs", {}, "Intro text.\n\nMore text."), false);
  });
});

describe("paragraphs:paragraphs2", () => {
  test("exactly two paragraphs separated by a blank line", () => {
    assert.equal(follows("paragraphs:paragraphs2", {}, "Intro text.\n\nMore text."), true);
    assert.equal(follows("paragraphs:paragraphs2", {}, "Intro text.\n***\nMore text."), false);
    assert.equal(follows("paragraphs:paragraphs2", {}, "A\n\n\n\nB"), false, "a blank paragraph in between");
  });
});
