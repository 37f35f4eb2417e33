// The best-effort assistant text of NeMo Gym's `_response_text` helpers: output_text when non-empty, else every
// message item's text — including a string content, which makes openai's output_text property itself fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bestEffortResponseText, openaiOutputText } from "../../src/ports/response-text.ts";

const output = (...items: unknown[]) => ({ output: items }) as never;
const said = (...texts: string[]) => ({ type: "message", role: "assistant", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) });

test("output_text: every output_text part of every message, joined; other items and parts are not text", () => {
  const text = openaiOutputText(output(said("a", "b"), { type: "function_call", arguments: "{}" }, { type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }, said("c")));
  assert.equal(text, "abc");
});

test("a message with a non-empty string content makes output_text fail (undefined); an empty one does not", () => {
  assert.equal(openaiOutputText(output(said("a"), { type: "message", role: "user", content: "hi" })), undefined);
  assert.equal(openaiOutputText(output(said("a"), { type: "message", role: "user", content: "" })), "a");
});

test("best effort: output_text when non-empty, else every message's string content and part texts, any role", () => {
  assert.equal(bestEffortResponseText(output(said("x"), { type: "message", role: "user", content: [{ type: "input_text", text: "y" }] })), "x");
  assert.equal(bestEffortResponseText(output({ type: "message", role: "user", content: [{ type: "input_text", text: "y" }] }, said(""))), "y");
  assert.equal(bestEffortResponseText(output(said("x"), { type: "message", role: "user", content: "hi" })), "xhi");
  assert.equal(bestEffortResponseText(output({ type: "reasoning", summary: [] })), "");
});
