import { test } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicMessageToSse,
  anthropicRequestToResponses,
  responsesToAnthropicMessage,
  type AnthropicContentBlock,
  type AnthropicMessage,
} from "../../src/models/anthropic/index.ts";
import { ResponseCreateParamsSchema, ResponseSchema } from "../../src/protocol/index.ts";

interface SseEvent {
  event: string;
  data: any;
}

/** A small SSE reader: frames end with a blank line; `event:` and `data:` lines, data joined by newlines. */
function parseSse(text: string): SseEvent[] {
  assert.ok(text.endsWith("\n\n"), "the stream ends with a complete frame");
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      let event = "message";
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        const colon = line.indexOf(":");
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else assert.fail(`unexpected SSE line ${JSON.stringify(line)}`);
      }
      return { event, data: JSON.parse(data.join("\n")) };
    });
}

/** Rebuilds the message from the stream the way an Anthropic client accumulates events. */
function reassemble(events: SseEvent[]): AnthropicMessage {
  let message: any;
  const partialJson = new Map<number, string>();
  for (const { event, data } of events) {
    assert.equal(data.type, event, "each frame's event name is its data's type");
    switch (event) {
      case "message_start":
        message = structuredClone(data.message);
        break;
      case "content_block_start":
        assert.equal(data.index, message.content.length, "blocks start in order");
        message.content.push(structuredClone(data.content_block));
        break;
      case "content_block_delta": {
        const block = message.content[data.index];
        if (data.delta.type === "text_delta") block.text += data.delta.text;
        else if (data.delta.type === "thinking_delta") block.thinking += data.delta.thinking;
        else if (data.delta.type === "signature_delta") block.signature = data.delta.signature;
        else if (data.delta.type === "input_json_delta") partialJson.set(data.index, (partialJson.get(data.index) ?? "") + data.delta.partial_json);
        else assert.fail(`unknown delta ${data.delta.type}`);
        break;
      }
      case "content_block_stop":
        if (partialJson.has(data.index)) message.content[data.index].input = JSON.parse(partialJson.get(data.index)!);
        break;
      case "message_delta":
        message.stop_reason = data.delta.stop_reason;
        message.stop_sequence = data.delta.stop_sequence;
        message.usage.output_tokens = data.usage.output_tokens;
        break;
      case "message_stop":
        break;
      default:
        assert.fail(`unexpected event ${event}`);
    }
  }
  return message;
}

/** The message a client sees after the stream: thinking signatures are not streamed, stop_sequence arrives as null. */
function asStreamed(message: AnthropicMessage) {
  const content = message.content.map((block): AnthropicContentBlock => (block.type === "thinking" ? { ...block, signature: undefined as never } : block));
  return { ...message, content, stop_sequence: message.stop_sequence ?? null };
}

function withoutUndefined(value: unknown) {
  return JSON.parse(JSON.stringify(value));
}

const toolTurn: AnthropicMessage = {
  id: "msg_0123456789abcdef0123456789abcdef",
  content: [
    { text: "Converting now.", type: "text" },
    { id: "toolu_42", input: { amount: 3, currency: "EUR" }, name: "convert", type: "tool_use" },
  ],
  model: "claude-x",
  role: "assistant",
  stop_reason: "tool_use",
  type: "message",
  usage: { input_tokens: 30, output_tokens: 12 },
};

test("events come in Anthropic order: message_start, start/delta/stop per block, message_delta, message_stop", () => {
  assert.deepEqual(
    parseSse(anthropicMessageToSse(toolTurn)).map((e) => e.event),
    [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ],
  );
});

test("no ping events are sent, as in NeMo Gym", () => {
  assert.equal(anthropicMessageToSse(toolTurn).includes("event: ping"), false);
});

test("frames are event/data pairs with the JSON written as Python's json.dumps writes it", () => {
  const sse = anthropicMessageToSse(toolTurn);
  const frames = sse.split("\n\n").slice(0, -1);
  assert.equal(
    frames[0],
    'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_0123456789abcdef0123456789abcdef", "model": "claude-x", ' +
      '"role": "assistant", "stop_reason": "tool_use", "type": "message", "usage": {"input_tokens": 30, "output_tokens": 12}, "content": []}}',
  );
  assert.equal(frames[1], 'event: content_block_start\ndata: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}');
  assert.equal(frames[2], 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Converting now."}}');
  assert.equal(frames[3], 'event: content_block_stop\ndata: {"type": "content_block_stop", "index": 0}');
  assert.equal(
    frames[4],
    'event: content_block_start\ndata: {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_42", "name": "convert", "input": {}}}',
  );
  assert.equal(
    frames[5],
    'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\\"amount\\": 3, \\"currency\\": \\"EUR\\"}"}}',
  );
  assert.equal(
    frames[7],
    'event: message_delta\ndata: {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 12}}',
  );
  assert.equal(frames[8], 'event: message_stop\ndata: {"type": "message_stop"}');
});

test("non-ASCII text is escaped in the data lines and survives the round trip", () => {
  const message: AnthropicMessage = { ...toolTurn, content: [{ text: "Größe: 5 m² 🚀", type: "text" }], stop_reason: "end_turn" };
  const sse = anthropicMessageToSse(message);
  assert.ok(sse.includes('"text": "Gr\\u00f6\\u00dfe: 5 m\\u00b2 \\ud83d\\ude80"'));
  assert.deepEqual(reassemble(parseSse(sse)).content, message.content);
});

test("a thinking block streams as a thinking shell and one thinking_delta, without its signature", () => {
  const message: AnthropicMessage = {
    ...toolTurn,
    content: [{ signature: "sig", thinking: "Weigh both options.", type: "thinking" }],
    stop_reason: "end_turn",
  };
  const events = parseSse(anthropicMessageToSse(message));
  assert.deepEqual(events[1].data.content_block, { type: "thinking", thinking: "" });
  assert.deepEqual(events[2].data.delta, { type: "thinking_delta", thinking: "Weigh both options." });
  assert.equal(
    events.some((e) => e.data.delta?.type === "signature_delta"),
    false,
  );
});

test("message_start carries the whole message but with empty content", () => {
  const [start] = parseSse(anthropicMessageToSse(toolTurn));
  const { content, ...rest } = toolTurn;
  assert.deepEqual(start.data.message, { ...rest, content: [] });
  assert.equal(content.length, 2);
});

test("a message without content streams only the message events", () => {
  const message: AnthropicMessage = { ...toolTurn, content: [], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 0 } };
  const events = parseSse(anthropicMessageToSse(message));
  assert.deepEqual(
    events.map((e) => e.event),
    ["message_start", "message_delta", "message_stop"],
  );
  assert.deepEqual(reassemble(events), asStreamed(message));
});

test("reassembling the stream gives back the message (thinking signatures aside)", () => {
  const message: AnthropicMessage = {
    id: "msg_fedcba9876543210fedcba9876543210",
    content: [
      { signature: "", thinking: "The user wants two lookups.", type: "thinking" },
      { text: "Looking up both.\nOne moment…", type: "text" },
      { id: "call_1", input: { q: "tides", nested: { deep: [1, 2.5, null, true] } }, name: "search", type: "tool_use" },
      { id: "call_2", input: {}, name: "clock", type: "tool_use" },
    ],
    model: "claude-y",
    role: "assistant",
    stop_reason: "tool_use",
    type: "message",
    usage: { input_tokens: 100, output_tokens: 57 },
  };
  assert.deepEqual(withoutUndefined(reassemble(parseSse(anthropicMessageToSse(message)))), withoutUndefined(asStreamed(message)));
});

test("a whole /v1/messages exchange streams back the message the converter built", () => {
  const params = anthropicRequestToResponses({
    model: "claude-z",
    max_tokens: 256,
    stream: true,
    system: "You convert units.",
    messages: [{ role: "user", content: "5 miles in km?" }],
    tools: [{ name: "convert", input_schema: { type: "object", properties: { miles: { type: "number" } } } }],
  });
  const request = ResponseCreateParamsSchema.parse(params);
  const response = ResponseSchema.parse({
    id: "resp_1",
    created_at: 1,
    model: "backend",
    object: "response",
    output: [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Call the tool." }] },
      { type: "function_call", id: "fc_1", call_id: "call_9", name: "convert", arguments: '{"miles": 5}', status: "completed" },
    ],
    parallel_tool_calls: request.parallel_tool_calls,
    tool_choice: request.tool_choice,
    tools: request.tools,
    usage: { input_tokens: 40, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 49 },
  });
  const message = responsesToAnthropicMessage(response, request.model ?? response.model);
  assert.equal(message.model, "claude-z");
  assert.deepEqual(withoutUndefined(reassemble(parseSse(anthropicMessageToSse(message)))), withoutUndefined(asStreamed(message)));
});
