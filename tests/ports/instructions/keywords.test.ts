// keywords:* checkers, from verifiable-instructions' semantics: keywords are case-insensitive Python regexes,
// forbidden words match whole words only, letters are counted case-folded.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("keywords:existence", () => {
  test("every keyword must appear, in any case, even inside a longer word", () => {
    const kwargs = { keywords: ["apple", "pie"] };
    assert.equal(follows("keywords:existence", kwargs, "APPLE pies are great"), true);
    assert.equal(follows("keywords:existence", kwargs, "apple tart"), false);
  });

  test("keywords are regular expressions", () => {
    assert.equal(follows("keywords:existence", { keywords: ["colou?r"] }, "What a color"), true);
    assert.equal(follows("keywords:existence", { keywords: ["c++"] }, "I write c"), true, "Python 3.11+ reads c++ as a possessive c+");
    assert.equal(follows("keywords:existence", { keywords: ["(unclosed"] }, "(unclosed"), false, "an invalid pattern raises: not followed");
  });
});

describe("keywords:frequency and keywords:word_count_different_numbers", () => {
  for (const id of ["keywords:frequency", "keywords:word_count_different_numbers"]) {
    test(`${id}: "at least" counts case-insensitive occurrences, substrings included`, () => {
      const kwargs = { keyword: "cat", frequency: 2, relation: "at least" };
      assert.equal(follows(id, kwargs, "Cat and concatenate"), true);
      assert.equal(follows(id, kwargs, "one cat only"), false);
    });

    test(`${id}: "less than" is strict`, () => {
      const kwargs = { keyword: "cat", frequency: 2, relation: "less than" };
      assert.equal(follows(id, kwargs, "one cat"), true);
      assert.equal(follows(id, kwargs, "cat cat"), false);
    });
  }

  test("any other relation is a ValueError: not followed", () => {
    assert.equal(follows("keywords:frequency", { keyword: "cat", frequency: 0, relation: "at most" }, "dog"), false);
  });
});

describe("keywords:forbidden_words", () => {
  test("a forbidden word as a whole word, in any case, fails", () => {
    const kwargs = { forbidden_words: ["part", "inevitable"] };
    assert.equal(follows("keywords:forbidden_words", kwargs, "A partial answer, departed"), true);
    assert.equal(follows("keywords:forbidden_words", kwargs, "It was Inevitable."), false);
  });

  test("word boundaries are Unicode-aware, as Python's \\b", () => {
    assert.equal(follows("keywords:forbidden_words", { forbidden_words: ["caf"] }, "un café"), true);
    assert.equal(follows("keywords:forbidden_words", { forbidden_words: ["café"] }, "un café!"), false);
  });
});

describe("keywords:letter_frequency and letters:letter_counting2", () => {
  for (const id of ["keywords:letter_frequency", "letters:letter_counting2"]) {
    test(`${id}: the letter is counted case-insensitively`, () => {
      const kwargs = { letter: "A", let_frequency: 3, let_relation: "at least" };
      assert.equal(follows(id, kwargs, "Aardvark"), true);
      assert.equal(follows(id, kwargs, "bana"), false);
    });
  }

  test('"less than" is strict', () => {
    const kwargs = { letter: "z", let_frequency: 2, let_relation: "less than" };
    assert.equal(follows("keywords:letter_frequency", kwargs, "zebra"), true);
    assert.equal(follows("keywords:letter_frequency", kwargs, "pizza"), false);
  });
});

describe("keywords:no_adjacent_consecutive", () => {
  test("no two neighbouring words may start with consecutive letters (case-insensitive)", () => {
    assert.equal(follows("keywords:no_adjacent_consecutive", {}, "apple cherry apple"), true);
    assert.equal(follows("keywords:no_adjacent_consecutive", {}, "Apple banana"), false);
  });
});

describe("keywords:word_once", () => {
  test("the keyword occurs exactly once", () => {
    assert.equal(follows("keywords:word_once", { keyword: "moon" }, "The Moon rises."), true);
    assert.equal(follows("keywords:word_once", { keyword: "moon" }, "moon, moon"), false);
    assert.equal(follows("keywords:word_once", { keyword: "moon" }, "no satellite"), false);
  });
});

describe("keywords:exclude_word_harder", () => {
  test("only the keyword between two spaces counts, case-sensitively", () => {
    assert.equal(follows("keywords:exclude_word_harder", { keyword: "very" }, "Very good, very."), true);
    assert.equal(follows("keywords:exclude_word_harder", { keyword: "very" }, "a very good day"), false);
  });
});

describe("keywords:palindrome", () => {
  test("some whitespace-separated word reads the same reversed", () => {
    assert.equal(follows("keywords:palindrome", {}, "my racecar"), true);
    assert.equal(follows("keywords:palindrome", {}, "my car."), false);
  });
});

describe("keywords:keyword_specific_position", () => {
  test("the m-th NLTK token of the n-th sentence is the keyword (case-sensitive)", () => {
    const kwargs = { keyword: "blue", n: 2, m: 4 };
    assert.equal(follows("keywords:keyword_specific_position", kwargs, "Hello there. The sky, blue today."), true, "tokens: The, sky, ',', blue");
    assert.equal(follows("keywords:keyword_specific_position", kwargs, "Hello there. The sky was very blue."), false);
    assert.equal(follows("keywords:keyword_specific_position", kwargs, "Only one sentence with blue."), false);
  });
});

describe("keywords:start_end", () => {
  test("the first and last NLTK tokens are the same word, ignoring case", () => {
    assert.equal(follows("keywords:start_end", {}, "Love is all you need, love"), true);
    assert.equal(follows("keywords:start_end", {}, "Love is all you need, love."), false, "the final period is a token of its own");
  });
});

describe("count:count_increment_word", () => {
  test("keyword1 exactly once and keyword2 exactly twice", () => {
    const kwargs = { keyword1: "sun", keyword2: "rain" };
    assert.equal(follows("count:count_increment_word", kwargs, "Sun, rain and more rain."), true);
    assert.equal(follows("count:count_increment_word", kwargs, "sun and rain"), false);
  });
});

describe("kwargs the library would randomise from its word list", () => {
  test("a missing keyword is not followed (the word list is not shipped)", () => {
    assert.equal(follows("keywords:word_once", {}, "anything"), false);
    assert.equal(follows("keywords:forbidden_words", { forbidden_words: null }, "anything"), false);
  });
});
