// The text measures the checkers share, pinned to what the library (with NLTK) returns for the same input:
// punkt sentences, the library's regex sentence splitter, NLTK's word_tokenize, and word counting.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { punktSentences } from "../../../src/ports/instructions/punkt.ts";
import { countSentences, countWords, splitIntoSentences } from "../../../src/ports/instructions/text.ts";
import { wordTokenize } from "../../../src/ports/instructions/word-tokenize.ts";

describe("punkt sentences (NLTK's algorithm, approximated English parameters)", () => {
  test("a period, ? or ! followed by whitespace and a token ends a sentence", () => {
    assert.deepEqual(punktSentences("Is it done?! Yes... I think so."), ["Is it done?!", "Yes...", "I think so."]);
  });

  test("known abbreviations do not end a sentence unless a sentence starter follows", () => {
    assert.deepEqual(punktSentences("Mr. Smith went to Washington. He arrived at 3 p.m. and left."), ["Mr. Smith went to Washington.", "He arrived at 3 p.m. and left."]);
    assert.deepEqual(punktSentences("Dr. Who visited e.g. Paris. J. S. Bach stayed."), ["Dr. Who visited e.g. Paris.", "J. S. Bach stayed."]);
  });

  test("closing quotes and brackets stay with the sentence they close", () => {
    assert.deepEqual(punktSentences('He said "Stop." Then he left.'), ['He said "Stop."', "Then he left."]);
    assert.deepEqual(punktSentences("(Sent1.) Sent2."), ["(Sent1.)", "Sent2."]);
  });

  test("empty and blank text has no sentence; trailing whitespace is not part of the last one", () => {
    assert.equal(countSentences(""), 0);
    assert.equal(countSentences("  \n "), 0);
    assert.deepEqual(punktSentences("One.  Two.  \n"), ["One.", "Two."]);
  });
});

describe("split_into_sentences (the library's regex splitter)", () => {
  test("titles, websites, decimals and initials keep their periods", () => {
    assert.deepEqual(splitIntoSentences("Hello Mr. Smith. He is here! Really? Yes."), ["Hello Mr. Smith.", "He is here!", "Really?", "Yes."]);
    assert.deepEqual(splitIntoSentences("I visited google.com today. It was 3.5 hours."), ["I visited google.com today.", "It was 3.5 hours."]);
    assert.deepEqual(splitIntoSentences("See J. R. R. Tolkien. He wrote."), ["See J. R. R. Tolkien.", "He wrote."]);
  });
});

describe("word_tokenize (NLTK: punkt sentences, then the Treebank rules)", () => {
  test("punctuation, currency, sentence-final periods and contractions become tokens", () => {
    assert.deepEqual(wordTokenize("Good muffins cost $3.88\nin New York.  Please buy me two of them. Thanks."), [
      "Good", "muffins", "cost", "$", "3.88", "in", "New", "York", ".", "Please", "buy", "me", "two", "of", "them", ".", "Thanks", ".",
    ]);
    assert.deepEqual(wordTokenize('"I can\'t," she said (quietly).'), ["``", "I", "ca", "n't", ",", "''", "she", "said", "(", "quietly", ")", "."]);
  });
});

describe("count_words", () => {
  test("counts runs of Unicode word characters", () => {
    assert.equal(countWords("It's a well-known fact: café au lait — 3 times_2."), 11);
  });
});
