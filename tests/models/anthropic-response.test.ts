import { test } from "node:test";
import assert from "node:assert/strict";
import { anthropicRequestToResponses, responsesToAnthropicMessage } from "../../src/models/anthropic/index.ts";
import { ResponseSchema, type NeMoGymResponse } from "../../src/protocol/index.ts";
import { usageOf } from "../../src/models/response-envelope.ts";

/** A NeMoGymResponse from a backend, around the given output items. */
function responseWith(output: unknown[], extra: Record<string, unknown> = {}): NeMoGymResponse {
  return ResponseSchema.parse({
    id: "resp_backend_1",
    created_at: 1_760_000_000,
    model: "backend-model",
    object: "response",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: usageOf(11, 22),
    ...extra,
  });
}



const assistantText = (text: string) => ({
  type: "message",
  id: "msg_out_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

const functionCall = (callId: string, name: string, args: string) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: args,
  status: "completed",
});

const reasoning = (texts: string[], encryptedContent?: string) => ({
  type: "reasoning",
  id: "rs_1",
  summary: texts.map((text) => ({ type: "summary_text", text })),
  ...(encryptedContent === undefined ? {} : { encrypted_content: encryptedContent }),
});

test("text and a function call become text and tool_use blocks with stop_reason tool_use", () => {
  const message = responsesToAnthropicMessage(
    responseWith([assistantText("Let me look that up."), functionCall("call_7", "lookup", '{"isbn": "978-0"}')]),
    "claude-requested",
  );
  assert.match(message.id, /^msg_[0-9a-f]{32}$/);
  // Keys and values exactly as the SDK's Message dumps with exclude_none.
  assert.equal(
    JSON.stringify({ ...message, id: "msg_X" }),
    JSON.stringify({
      id: "msg_X",
      content: [
        { text: "Let me look that up.", type: "text" },
        { id: "call_7", input: { isbn: "978-0" }, name: "lookup", type: "tool_use" },
      ],
      model: "claude-requested",
      role: "assistant",
      stop_reason: "tool_use",
      type: "message",
      usage: { input_tokens: 11, output_tokens: 22 },
    }),
  );
});

test("the tool_use id is the function call's call_id, not its item id", () => {
  const [block] = responsesToAnthropicMessage(responseWith([functionCall("call_A", "f", "{}")]), "m").content;
  assert.equal(block.type === "tool_use" && block.id, "call_A");
});

test("a plain text answer ends the turn", () => {
  const message = responsesToAnthropicMessage(responseWith([assistantText("Paris.")]), "m");
  assert.deepEqual(message.content, [{ text: "Paris.", type: "text" }]);
  assert.equal(message.stop_reason, "end_turn");
});

test("the message gets a fresh id each time, never the response id", () => {
  const response = responseWith([assistantText("x")]);
  const first = responsesToAnthropicMessage(response, "m");
  const second = responsesToAnthropicMessage(response, "m");
  assert.notEqual(first.id, second.id);
  assert.notEqual(first.id, response.id);
});

test("the model name is the one passed in, not the backend's", () => {
  assert.equal(responsesToAnthropicMessage(responseWith([assistantText("x")]), "claude-sonnet-alias").model, "claude-sonnet-alias");
});

test("a reasoning item becomes a thinking block signed with its encrypted_content", () => {
  const message = responsesToAnthropicMessage(responseWith([reasoning(["First, factor it."], "enc-123"), assistantText("x = 3")]), "m");
  assert.equal(
    JSON.stringify(message.content),
    JSON.stringify([
      { signature: "enc-123", thinking: "First, factor it.", type: "thinking" },
      { text: "x = 3", type: "text" },
    ]),
  );
  assert.equal(message.stop_reason, "end_turn");
});

test("reasoning without encrypted_content gets an empty signature", () => {
  const [block] = responsesToAnthropicMessage(responseWith([reasoning(["think"])]), "m").content;
  assert.deepEqual(block, { signature: "", thinking: "think", type: "thinking" });
});

test("each reasoning summary becomes its own thinking block; no summary, no block", () => {
  const message = responsesToAnthropicMessage(responseWith([reasoning(["a", "b"]), reasoning([]), assistantText("done")]), "m");
  assert.deepEqual(
    message.content.map((block) => block.type),
    ["thinking", "thinking", "text"],
  );
});

test("each output_text part of a message becomes a text block; a refusal part becomes text too", () => {
  const message = responsesToAnthropicMessage(
    responseWith([
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [
          { type: "output_text", text: "part one", annotations: [] },
          { type: "refusal", refusal: "I can't help with that." },
        ],
      },
    ]),
    "m",
  );
  assert.deepEqual(message.content, [
    { text: "part one", type: "text" },
    { text: "I can't help with that.", type: "text" },
  ]);
});

test("an empty assistant message renders as one empty text block", () => {
  assert.deepEqual(responsesToAnthropicMessage(responseWith([assistantText("")]), "m").content, [{ text: "", type: "text" }]);
});

test("a response without output items yields empty content that ends the turn", () => {
  const message = responsesToAnthropicMessage(responseWith([]), "m");
  assert.deepEqual(message.content, []);
  assert.equal(message.stop_reason, "end_turn");
});

test("running out of output tokens is stop_reason max_tokens, even with a tool call", () => {
  const incomplete = { incomplete_details: { reason: "max_output_tokens" }, status: "incomplete" };
  assert.equal(responsesToAnthropicMessage(responseWith([assistantText("trunc")], incomplete), "m").stop_reason, "max_tokens");
  assert.equal(responsesToAnthropicMessage(responseWith([functionCall("c", "f", "{}")], incomplete), "m").stop_reason, "max_tokens");
});

test("a content filter stop is stop_reason refusal", () => {
  const message = responsesToAnthropicMessage(responseWith([assistantText("")], { incomplete_details: { reason: "content_filter" } }), "m");
  assert.equal(message.stop_reason, "refusal");
});

test("usage keeps input and output tokens only; missing usage counts zero", () => {
  assert.deepEqual(responsesToAnthropicMessage(responseWith([assistantText("x")], { usage: usageOf(3, 4) }), "m").usage, {
    input_tokens: 3,
    output_tokens: 4,
  });
  assert.deepEqual(responsesToAnthropicMessage(responseWith([assistantText("x")], { usage: null }), "m").usage, {
    input_tokens: 0,
    output_tokens: 0,
  });
});

test("training token fields on output items are dropped", () => {
  const item = { ...assistantText("hi"), prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.1] };
  const message = responsesToAnthropicMessage(responseWith([item]), "m");
  assert.deepEqual(message.content, [{ text: "hi", type: "text" }]);
});

test("empty function call arguments become an empty input object", () => {
  const [block] = responsesToAnthropicMessage(responseWith([functionCall("c1", "now", "")]), "m").content;
  assert.deepEqual(block, { id: "c1", input: {}, name: "now", type: "tool_use" });
});

test("function call arguments that are not a JSON object are a ValueError", () => {
  assert.throws(() => responsesToAnthropicMessage(responseWith([functionCall("c1", "f", "[1, 2]")]), "m"), {
    name: "ValueError",
    message: "Anthropic tool_use input must be a JSON object, got list",
  });
  assert.throws(() => responsesToAnthropicMessage(responseWith([functionCall("c1", "f", "{not json")]), "m"), { name: "ValueError" });
});

test("output items Anthropic cannot express are a NotImplementedError naming the item type", () => {
  const response = responseWith([{ type: "mcp_call", id: "m1", arguments: "{}", name: "x", server_label: "s" }]);
  assert.throws(() => responsesToAnthropicMessage(response, "m"), {
    name: "NotImplementedError",
    message: "Unsupported Responses output item for Anthropic response: mcp_call",
  });
});

test("input-only content parts in an output message are a NotImplementedError", () => {
  const response = responseWith([{ type: "message", role: "user", content: [{ type: "input_text", text: "echo" }] }]);
  assert.throws(() => responsesToAnthropicMessage(response, "m"), { name: "NotImplementedError", message: /input_text/ });
});

test("a tool call sent in a request comes back as the same tool_use block", () => {
  const toolUse = { type: "tool_use", id: "toolu_rt", name: "convert", input: { amount: 12.5, from: "EUR", to: ["USD", "JPY"] } };
  const params = anthropicRequestToResponses({ messages: [{ role: "assistant", content: [toolUse] }] }) as { input: unknown[] };
  // A backend that echoes the call back as its output.
  const message = responsesToAnthropicMessage(responseWith(params.input), "m");
  assert.deepEqual(message.content, [{ id: toolUse.id, input: toolUse.input, name: toolUse.name, type: "tool_use" }]);
  assert.equal(message.stop_reason, "tool_use");
});
