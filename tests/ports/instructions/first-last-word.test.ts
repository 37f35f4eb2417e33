// first_word:* and last_word:* checkers: per sentence (the library's regex splitter) or for the whole answer.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("first_word:first_word_sent", () => {
  test("every sentence starts with the word, ignoring case", () => {
    const kwargs = { first_word: "relationship" };
    assert.equal(follows("first_word:first_word_sent", kwargs, "Relationship one. relationship two!"), true);
    assert.equal(follows("first_word:first_word_sent", kwargs, "Relationship one. Relationship-driven two."), false, "the whole whitespace token is compared");
  });
});

describe("first_word:first_word_answer", () => {
  test("the answer's first whitespace-separated word, ignoring case", () => {
    assert.equal(follows("first_word:first_word_answer", { first_word: "Yes" }, "  yes it is"), true);
    assert.equal(follows("first_word:first_word_answer", { first_word: "Yes" }, "Yes, it is"), false);
  });
});

describe("last_word:last_word_sent", () => {
  test("every sentence's last word, punctuation removed, ignoring case", () => {
    const kwargs = { last_word: "now" };
    assert.equal(follows("last_word:last_word_sent", kwargs, "Do it now. Go NOW!"), true);
    assert.equal(follows("last_word:last_word_sent", kwargs, "Do it now. Go later."), false);
  });
});

describe("last_word:last_word_answer", () => {
  test("the answer's last word, punctuation removed, ignoring case", () => {
    assert.equal(follows("last_word:last_word_answer", { last_word: "contest" }, "a new kind of Contest."), true);
    assert.equal(follows("last_word:last_word_answer", { last_word: "contest" }, "a contest indeed"), false);
  });

  test("an empty answer raises IndexError: not followed", () => {
    assert.equal(follows("last_word:last_word_answer", { last_word: "contest" }, "   "), false);
  });
});
