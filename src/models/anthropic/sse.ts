/**
 * A complete Anthropic message re-emitted as the Messages SSE stream, in NeMo Gym's order:
 * `message_start` (the message with empty content) → per block `content_block_start` (an empty shell),
 * one `content_block_delta` carrying the whole block, `content_block_stop` → `message_delta` (stop reason,
 * output tokens) → `message_stop`.
 *
 * Like NeMo Gym, no `ping` events and no `signature_delta` are sent (thinking signatures do not survive the
 * stream), and `message_start` already carries the final `stop_reason`. Frames are
 * `event: <type>\ndata: <json>\n\n` with the JSON written as Python's `json.dumps` writes it.
 */
import { pythonJsonDumps } from "../../python/json-dumps.ts";
import type { AnthropicContentBlock, AnthropicMessage } from "./types.ts";

/** The frames, one string each, ready to write to a `text/event-stream` response. */
export function* anthropicSseFrames(message: AnthropicMessage): Generator<string> {
  const { content, ...rest } = message;
  yield frame("message_start", { type: "message_start", message: { ...rest, content: [] } });

  for (const [index, block] of content.entries()) {
    yield frame("content_block_start", { type: "content_block_start", index, content_block: emptyShell(block) });
    yield frame("content_block_delta", { type: "content_block_delta", index, delta: wholeBlockDelta(block) });
    yield frame("content_block_stop", { type: "content_block_stop", index });
  }

  yield frame("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null },
    usage: { output_tokens: message.usage?.output_tokens ?? 0 },
  });
  yield frame("message_stop", { type: "message_stop" });
}

/** The whole stream as one string. */
export function anthropicMessageToSse(message: AnthropicMessage): string {
  return [...anthropicSseFrames(message)].join("");
}

function frame(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${pythonJsonDumps(data)}\n\n`;
}

function emptyShell(block: AnthropicContentBlock): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "" };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
    default:
      return unsupported(block);
  }
}

function wholeBlockDelta(block: AnthropicContentBlock): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text_delta", text: block.text };
    case "thinking":
      return { type: "thinking_delta", thinking: block.thinking };
    case "tool_use":
      return { type: "input_json_delta", partial_json: pythonJsonDumps(block.input ?? {}) };
    default:
      return unsupported(block);
  }
}

function unsupported(block: never): never {
  const error = new Error(`Unsupported Anthropic block for SSE synthesis: ${(block as { type?: unknown }).type}`);
  error.name = "NotImplementedError";
  throw error;
}
