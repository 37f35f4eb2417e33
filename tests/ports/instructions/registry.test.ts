// The registry: the ids it knows, and how unknown ids and bad kwargs end (not followed, with a reason).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { checkInstruction, INSTRUCTIONS, UNSUPPORTED_INSTRUCTIONS } from "../../../src/ports/instructions/index.ts";

describe("the instruction registry", () => {
  test("knows the library's ids except the three that need langdetect", () => {
    assert.equal(INSTRUCTIONS.size, 51);
    assert.deepEqual(UNSUPPORTED_INSTRUCTIONS, ["language:response_language", "change_case:english_capital", "change_case:english_lowercase"]);
    for (const id of UNSUPPORTED_INSTRUCTIONS) assert.equal(INSTRUCTIONS.has(id), false);
  });

  test("an unknown or unsupported id is not followed, and says why", () => {
    assert.deepEqual(checkInstruction("nope:nothing", {}, "text"), { followed: false, error: 'InstructionError: "nope:nothing": unknown instruction id' });
    assert.match(checkInstruction("language:response_language", { language: "en" }, "Hello").error!, /not supported by this port/);
  });

  test("kwargs: None values are dropped, a null dict is empty, an undeclared kwarg is a TypeError", () => {
    assert.deepEqual(checkInstruction("detectable_format:title", null, "<<T>>"), { followed: true });
    assert.deepEqual(checkInstruction("detectable_format:title", { num_words: null }, "<<T>>"), { followed: true });
    assert.match(checkInstruction("detectable_format:title", { num_words: 3 }, "<<T>>").error!, /unexpected keyword argument 'num_words'/);
  });

  test("a value of the wrong type fails as Python's comparison would", () => {
    assert.equal(checkInstruction("length_constraints:number_words", { num_words: "10", relation: "at least" }, "a b c").followed, false);
  });
});
