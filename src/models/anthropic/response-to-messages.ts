/**
 * NeMoGymResponse → Anthropic Messages response, as NeMo Gym's ingress renders it.
 *
 * Output items map in order: message parts (output_text, refusal) → text blocks, each reasoning summary →
 * a thinking block, function_call → tool_use. Token ids and logprobs are dropped. The message gets a fresh
 * `msg_<32 hex>` id (the response id is not reused) and the model name the caller passes (the request's).
 */
import { randomUUID } from "node:crypto";
import type { NeMoGymResponse, ResponseOutputItem } from "../../protocol/index.ts";
import type { AnthropicContentBlock, AnthropicMessage, AnthropicStopReason, AnthropicToolUseBlock } from "./types.ts";

/**
 * An item the Messages format cannot express. These are server-side bugs (NeMo Gym raises
 * NotImplementedError / ValueError, a 500), so the class name reads like Python's in the 500 body.
 */
class ConversionError extends Error {
  constructor(name: "NotImplementedError" | "ValueError", message: string) {
    super(message);
    this.name = name;
  }
}

export function responsesToAnthropicMessage(response: NeMoGymResponse, model: string): AnthropicMessage {
  const content: AnthropicContentBlock[] = [];
  let hasToolUse = false;
  for (const item of response.output ?? []) {
    const itemType = (item as { type?: string }).type || "message";
    if (itemType === "message") content.push(...messageToBlocks(item));
    else if (itemType === "reasoning") content.push(...reasoningToBlocks(item as Extract<ResponseOutputItem, { type: "reasoning" }>));
    else if (itemType === "function_call") {
      content.push(functionCallToToolUse(item as Extract<ResponseOutputItem, { type: "function_call" }>));
      hasToolUse = true;
    } else {
      throw new ConversionError("NotImplementedError", `Unsupported Responses output item for Anthropic response: ${itemType}`);
    }
  }

  return {
    id: `msg_${randomUUID().replace(/-/g, "")}`,
    content,
    model,
    role: "assistant",
    stop_reason: stopReasonOf(response, hasToolUse),
    type: "message",
    usage: { input_tokens: response.usage?.input_tokens ?? 0, output_tokens: response.usage?.output_tokens ?? 0 },
  };
}

function messageToBlocks(item: ResponseOutputItem): AnthropicContentBlock[] {
  const parts = (item as { content?: unknown }).content ?? [];
  if (!Array.isArray(parts)) {
    throw new ConversionError("NotImplementedError", "Unsupported output message content for Anthropic response: a plain string, not a list of parts");
  }
  return parts.map((part: { type?: string; text?: string; refusal?: string }): AnthropicContentBlock => {
    if (part.type === "output_text") return { text: part.text ?? "", type: "text" };
    if (part.type === "refusal") return { text: part.refusal ?? "", type: "text" };
    throw new ConversionError("NotImplementedError", `Unsupported output_text part for Anthropic response: ${part.type}`);
  });
}

/** One thinking block per summary entry; a reasoning item without summaries yields none. */
function reasoningToBlocks(item: Extract<ResponseOutputItem, { type: "reasoning" }>): AnthropicContentBlock[] {
  return (item.summary ?? []).map((summary) => ({ signature: item.encrypted_content || "", thinking: summary.text, type: "thinking" }));
}

function functionCallToToolUse(item: Extract<ResponseOutputItem, { type: "function_call" }>): AnthropicToolUseBlock {
  return { id: item.call_id, input: argumentsObject(item.arguments), name: item.name, type: "tool_use" };
}

/** Anthropic tool inputs are JSON objects; empty arguments mean {}. */
function argumentsObject(argumentsJson: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson || "{}");
  } catch (error) {
    throw new ConversionError("ValueError", `function_call arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConversionError("ValueError", `Anthropic tool_use input must be a JSON object, got ${pythonTypeName(parsed)}`);
  }
  return parsed as Record<string, unknown>;
}

function pythonTypeName(value: unknown): string {
  if (value === null) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return typeof value === "string" ? "str" : typeof value === "boolean" ? "bool" : typeof value;
}

function stopReasonOf(response: NeMoGymResponse, hasToolUse: boolean): AnthropicStopReason {
  const reason = response.incomplete_details?.reason;
  if (reason === "max_output_tokens") return "max_tokens";
  if (reason === "content_filter") return "refusal";
  return hasToolUse ? "tool_use" : "end_turn";
}
