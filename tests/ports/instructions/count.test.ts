// count:* and letters:letter_counting checkers, and change_case:capital_word_frequency.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("count:lowercase_counting", () => {
  test("at most N whole all-lowercase ASCII words", () => {
    const kwargs = { N: 2 };
    assert.equal(follows("count:lowercase_counting", kwargs, "ALL CAPS but two words"), false);
    assert.equal(follows("count:lowercase_counting", kwargs, "ALL CAPS, ONLY two lower"), true);
  });

  test("a word glued to a non-ASCII letter is not a lowercase word (\\b is Unicode-aware)", () => {
    assert.equal(follows("count:lowercase_counting", { N: 0 }, "café Zoë"), true);
  });
});

describe("letters:letter_counting", () => {
  test('"at least" N ASCII letters', () => {
    assert.equal(follows("letters:letter_counting", { N: 5, relation: "at least" }, "Hello!"), true);
    assert.equal(follows("letters:letter_counting", { N: 5, relation: "at least" }, "Héllo"), false);
  });

  test('"less than" N, and any other relation is never followed', () => {
    assert.equal(follows("letters:letter_counting", { N: 5, relation: "less than" }, "Hi 123"), true);
    assert.equal(follows("letters:letter_counting", { N: 5, relation: "exactly" }, "Hi"), false);
  });
});

describe("count:counting_composition", () => {
  test("three *** paragraphs of n_sent sentences of n_words NLTK tokens each", () => {
    const kwargs = { n_sent: 1, n_words: 3 };
    assert.equal(follows("count:counting_composition", kwargs, "Cats sleep. *** Dogs bark. *** Birds sing."), true);
    assert.equal(follows("count:counting_composition", kwargs, "Cats sleep. *** Dogs bark loudly. *** Birds sing."), false);
  });
});

describe("count:count_unique", () => {
  test("no NLTK token repeats (case-sensitive, punctuation tokens included)", () => {
    assert.equal(follows("count:count_unique", {}, "The cat saw the dog"), true);
    assert.equal(follows("count:count_unique", {}, "Wait, what, why"), false);
  });
});

describe("change_case:capital_word_frequency", () => {
  test('"at least" N all-capital NLTK tokens', () => {
    const kwargs = { capital_frequency: 2, capital_relation: "at least" };
    assert.equal(follows("change_case:capital_word_frequency", kwargs, "NASA and the USA"), true);
    assert.equal(follows("change_case:capital_word_frequency", kwargs, "Only NASA here"), false);
  });
});
