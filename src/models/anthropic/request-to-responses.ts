/**
 * Anthropic Messages request → Responses create params, as NeMo Gym's ingress maps it.
 *
 * Only what NeMo Gym maps is carried over: messages, system, model, max_tokens, temperature, top_p,
 * tools and tool_choice. `stop_sequences`, `metadata`, `top_k`, `thinking`, `service_tier` and other
 * fields are accepted and dropped. The result holds only the keys that were set (like a pydantic
 * `exclude_unset` dump), each object's keys in the order NeMo Gym's models declare them.
 */
import { randomUUID } from "node:crypto";
import type { ResponseCreateParamsInput, ResponseInputItemInput } from "../../protocol/index.ts";
import { pythonJsonDumps } from "../../python/json-dumps.ts";
import {
  parseAnthropicRequest,
  type AnthropicContentBlockParam,
  type AnthropicRequest,
  type AnthropicToolChoiceParam,
  type AnthropicToolParam,
} from "./schemas.ts";

type InputPart = { text: string; type: "input_text" } | { detail: "auto"; type: "input_image"; image_url: string };
type MessageRole = AnthropicRequest["messages"][number]["role"];
type ToolResultContent = Extract<AnthropicContentBlockParam, { type: "tool_result" }>["content"];

/** Validates `body` (422 naming the field on failure) and converts it. */
export function anthropicRequestToResponses(body: unknown): ResponseCreateParamsInput {
  const request = parseAnthropicRequest(body);
  // Scalars travel as sent: the params model (validated after this) is what coerces or refuses them.
  const params: Record<string, unknown> = { input: messagesToInputItems(request.messages) };

  const instructions = systemToInstructions(request.system);
  if (instructions) params.instructions = instructions;
  if (request.max_tokens != null) params.max_output_tokens = request.max_tokens;
  if (request.model != null) params.model = request.model;
  if (request.temperature != null) params.temperature = request.temperature;
  const toolChoice = toolChoiceToResponses(request.tool_choice);
  if (toolChoice !== undefined) params.tool_choice = toolChoice;
  if (request.tools && request.tools.length > 0) params.tools = request.tools.map(toolToResponses);
  if (request.top_p != null) params.top_p = request.top_p;
  return params as ResponseCreateParamsInput;
}

/** A string, or the non-empty texts of the `text` blocks joined by newlines. */
function systemToInstructions(system: AnthropicRequest["system"]): string {
  if (system == null) return "";
  if (typeof system === "string") return system;
  return system
    .filter((block) => block.type === "text" && block.text)
    .map((block) => block.text)
    .join("\n");
}

function messagesToInputItems(messages: AnthropicRequest["messages"]): ResponseInputItemInput[] {
  const items: ResponseInputItemInput[] = [];
  for (const message of messages) {
    const content = message.content ?? "";
    if (typeof content === "string") items.push(easyMessage(content, message.role));
    else items.push(...blocksToItems(message.role, content));
  }
  return items;
}

/**
 * One message's blocks, in order: runs of text/image blocks group into one message item (a lone text
 * block becomes a plain string message); tool_use, tool_result and thinking blocks each become an item.
 */
function blocksToItems(role: MessageRole, blocks: AnthropicContentBlockParam[]): ResponseInputItemInput[] {
  const items: ResponseInputItemInput[] = [];
  let pendingParts: InputPart[] = [];
  const flushMessage = () => {
    if (pendingParts.length === 0) return;
    const [only] = pendingParts;
    items.push(easyMessage(pendingParts.length === 1 && only.type === "input_text" ? only.text : pendingParts, role));
    pendingParts = [];
  };

  for (const block of blocks) {
    switch (block.type) {
      case "text":
        pendingParts.push({ text: block.text ?? "", type: "input_text" });
        break;
      case "image":
        pendingParts.push({ detail: "auto", type: "input_image", image_url: `data:${block.source.media_type};base64,${block.source.data}` });
        break;
      case "tool_use":
        flushMessage();
        items.push({
          arguments: pythonJsonDumps(block.input === undefined ? {} : block.input),
          call_id: block.id,
          name: block.name,
          type: "function_call",
          id: block.id,
          status: "completed",
        });
        break;
      case "tool_result":
        flushMessage();
        items.push({ call_id: block.tool_use_id, output: toolResultText(block.content), type: "function_call_output" });
        break;
      case "thinking":
        flushMessage();
        items.push({
          id: `rs_${randomUUID().replace(/-/g, "")}`,
          summary: [{ text: block.thinking ?? "", type: "summary_text" }],
          type: "reasoning",
          encrypted_content: block.signature ?? null,
        });
        break;
    }
  }
  flushMessage();
  return items;
}

function easyMessage(content: string | InputPart[], role: MessageRole): ResponseInputItemInput {
  return { content, role, type: "message" };
}

function toolResultText(content: ToolResultContent): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((block) => block.text ?? "").join("\n");
}

function toolToResponses(tool: AnthropicToolParam) {
  // An empty or missing schema becomes an empty object schema (NeMo Gym tests the schema's truthiness).
  const hasSchema = tool.input_schema != null && Object.keys(tool.input_schema).length > 0;
  return {
    name: tool.name,
    parameters: hasSchema ? tool.input_schema! : { type: "object", properties: {} },
    strict: false,
    type: "function" as const,
    description: tool.description ?? null,
  };
}

function toolChoiceToResponses(toolChoice: AnthropicToolChoiceParam | null | undefined): ResponseCreateParamsInput["tool_choice"] {
  if (toolChoice == null) return undefined;
  switch (toolChoice.type) {
    case "auto":
      return "auto";
    case "none":
      return "none";
    case "any":
      return "required";
    case "tool":
      return { name: toolChoice.name, type: "function" };
  }
}
