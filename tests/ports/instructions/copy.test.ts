// copy:* and new:copy_span_idx checkers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("copy:copy and copy:copying_simple", () => {
  for (const id of ["copy:copy", "copy:copying_simple"]) {
    test(`${id}: the response is the prompt, ignoring case and surrounding whitespace`, () => {
      const kwargs = { prompt_to_repeat: "Tell me a joke." };
      assert.equal(follows(id, kwargs, "\ntell me a JOKE.  "), true);
      assert.equal(follows(id, kwargs, "Tell me a joke. Why did..."), false);
    });
  }

  test("an empty prompt_to_repeat is a ValueError", () => {
    assert.equal(follows("copy:copy", { prompt_to_repeat: "" }, ""), false);
  });
});

describe("copy:copying_multiple", () => {
  test("the prompt N times separated by ******", () => {
    const kwargs = { prompt_to_repeat: "Say hi", N: 2 };
    assert.equal(follows("copy:copying_multiple", kwargs, "Say hi\n******\nsay hi"), true);
    assert.equal(follows("copy:copying_multiple", kwargs, "Say hi\n******\nSay hi\n******\nSay hi"), false);
  });
});

describe("new:copy_span_idx", () => {
  test("the response is prompt[n_start:n_end] (character indices, end excluded)", () => {
    const kwargs = { prompt_to_repeat: "The quick brown fox", n_start: 4, n_end: 9 };
    assert.equal(follows("new:copy_span_idx", kwargs, "QUICK"), true);
    assert.equal(follows("new:copy_span_idx", kwargs, "quick brown"), false);
  });
});

describe("copy:repeat_phrase", () => {
  test("the phrase small_n times, found from its first to its last word, with one word changed", () => {
    const kwargs = { phrase: "The early bird catches the worm", small_n: 2 };
    const twice = "The early cat catches the worm. The early bird eats the worm.";
    assert.equal(follows("copy:repeat_phrase", kwargs, twice), true);
    assert.equal(follows("copy:repeat_phrase", kwargs, "The early bird catches the worm. The early bird catches the worm."), false, "unchanged");
    assert.equal(follows("copy:repeat_phrase", kwargs, "The early cat catches the worm."), false, "once only");
  });
});
