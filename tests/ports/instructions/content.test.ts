// detectable_content:*, combination:*, startend:* and punctuation:* checkers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { follows } from "./follows.ts";

describe("detectable_content:number_placeholders", () => {
  test("at least N [placeholders], each on one line", () => {
    const kwargs = { num_placeholders: 2 };
    assert.equal(follows("detectable_content:number_placeholders", kwargs, "Dear [name], at [address]."), true);
    assert.equal(follows("detectable_content:number_placeholders", kwargs, "Dear [name], at [multi\nline]."), false);
  });
});

describe("detectable_content:postscript", () => {
  test("P.S. starts a postscript, case-insensitively, a space allowed after each period", () => {
    assert.equal(follows("detectable_content:postscript", { postscript_marker: "P.S." }, "Bye.\np. s. see you"), true);
    assert.equal(follows("detectable_content:postscript", { postscript_marker: "P.S." }, "Bye. PS see you"), false);
  });

  test("P.P.S does not need its last period", () => {
    assert.equal(follows("detectable_content:postscript", { postscript_marker: "P.P.S" }, "Bye.\nP.P.S more"), true);
    assert.equal(follows("detectable_content:postscript", { postscript_marker: "P.P.S" }, "Bye.\nP.S. more"), false);
  });
});

describe("combination:two_responses", () => {
  test("two different non-blank answers separated by ******", () => {
    assert.equal(follows("combination:two_responses", {}, "Yes.\n******\nNo."), true);
    assert.equal(follows("combination:two_responses", {}, "Yes.\n******\n Yes. "), false);
  });
});

describe("combination:repeat_prompt", () => {
  test("the response starts with the prompt, ignoring case and surrounding whitespace", () => {
    const kwargs = { prompt_to_repeat: "Write a haiku." };
    assert.equal(follows("combination:repeat_prompt", kwargs, "  write a HAIKU. Here it is..."), true);
    assert.equal(follows("combination:repeat_prompt", kwargs, "Sure! Write a haiku."), false);
  });
});

describe("startend:end_checker", () => {
  test("ends with the phrase, ignoring case, whitespace and wrapping double quotes", () => {
    const kwargs = { end_phrase: "Any other questions?" };
    assert.equal(follows("startend:end_checker", kwargs, '"Done. any other questions?" \n'), true);
    assert.equal(follows("startend:end_checker", kwargs, "Any other questions? Thanks."), false);
  });
});

describe("startend:quotation", () => {
  test("wrapped in double quotes after stripping whitespace", () => {
    assert.equal(follows("startend:quotation", {}, ' "Hello" '), true);
    assert.equal(follows("startend:quotation", {}, '"'), false);
  });
});

describe("punctuation:*", () => {
  test("no_comma", () => {
    assert.equal(follows("punctuation:no_comma", {}, "No commas here."), true);
    assert.equal(follows("punctuation:no_comma", {}, "One, two"), false);
  });
  test("punctuation_dot", () => {
    assert.equal(follows("punctuation:punctuation_dot", {}, "No dots here!"), true);
    assert.equal(follows("punctuation:punctuation_dot", {}, "A dot."), false);
  });
  test("punctuation_exclamation", () => {
    assert.equal(follows("punctuation:punctuation_exclamation", {}, "Calm."), true);
    assert.equal(follows("punctuation:punctuation_exclamation", {}, "Wow!"), false);
  });
});
