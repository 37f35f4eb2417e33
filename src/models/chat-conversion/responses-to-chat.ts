// Responses API request → Chat Completions request, as NeMo Gym's `ResponsesConverter` does it.
//
// The input is walked in order with an *assistant buffer*: consecutive assistant text, reasoning (as
// `<think>` blocks) and function calls of one model turn collapse into one assistant message, emitted when a
// user/system/developer message, a tool output or the end of the input follows. Training token fields carried
// by an item ride on the next assistant message emitted.
import { ChatCompletionCreateParamsSchema } from "../../protocol/index.ts";
import { ChatConversionError } from "./errors.ts";
import { wrapInThinkTags } from "./reasoning-tags.ts";

type Json = Record<string, unknown>;
export type ChatMessage = Json & { role: string };
export type ChatRequestBody = Json & { messages: ChatMessage[] };

export interface ResponsesToChatOptions {
  /** Training mode: token fields of earlier turns are attached to the assistant messages sent back. */
  returnTokenIdInformation?: boolean;
}

interface TokenInformation {
  prompt_token_ids: unknown;
  generation_token_ids: unknown;
  generation_log_probs: unknown;
  routed_experts?: unknown;
}

/** Chat Completions request keys, in the order NeMo Gym's pydantic model dumps them. */
const CHAT_REQUEST_KEYS = Object.keys(ChatCompletionCreateParamsSchema.shape);

class AssistantBuffer {
  text = "";
  toolCalls: Json[] = [];
  tokens: TokenInformation | undefined;

  constructor(
    private readonly messages: ChatMessage[],
    private readonly withTokens: boolean,
  ) {}

  flush(): void {
    if (!this.text && this.toolCalls.length === 0) return;
    const message: ChatMessage = { role: "assistant", content: this.text || null, tool_calls: this.toolCalls };
    // As NeMo Gym: the last token bundle seen is kept (not cleared) and attached to every later flush.
    if (this.withTokens && this.tokens) Object.assign(message, this.tokens);
    this.messages.push(message);
    this.text = "";
    this.toolCalls = [];
  }
}

const where = (index: number) => `input[${index}]`;

function chatContentParts(content: unknown[], index: number): Json[] {
  return content.map((part, partIndex) => {
    const p = part as Json;
    switch (p?.type) {
      case "input_text":
        return { type: "text", text: p.text };
      case "input_image": {
        if (typeof p.image_url !== "string") {
          throw new ChatConversionError(
            `${where(index)}.content[${partIndex}]: an input_image needs an image_url (a URL or data URI); file_id images cannot be sent to a Chat Completions backend`,
          );
        }
        return { type: "image_url", image_url: { url: p.image_url, detail: p.detail ?? "auto" } };
      }
      default:
        throw new ChatConversionError(
          `${where(index)}.content[${partIndex}]: content part type ${JSON.stringify(p?.type)} cannot be sent to a Chat Completions backend (only input_text and input_image)`,
        );
    }
  });
}

function assistantText(content: unknown, index: number): string {
  if (typeof content === "string" || Array.isArray(content)) return contentText(content);
  throw new ChatConversionError(`${where(index)}.content: an assistant message's content must be a string or a list of parts, got ${JSON.stringify(content)}`);
}

function convertMessage(item: Json, index: number, buffer: AssistantBuffer, messages: ChatMessage[]): void {
  const role = item.role;
  if (role === "assistant") {
    buffer.text += assistantText(item.content, index);
    return;
  }
  if (role !== "user" && role !== "system" && role !== "developer") {
    throw new ChatConversionError(`${where(index)}.role: unknown message role ${JSON.stringify(role)} (expected user, assistant, system or developer)`);
  }
  buffer.flush();
  const content = Array.isArray(item.content) ? chatContentParts(item.content, index) : item.content;
  messages.push({ role, content });
}

function toolCallOf(item: Json, index: number): Json {
  if (typeof item.call_id !== "string") throw new ChatConversionError(`${where(index)}: a function_call needs a call_id`);
  return { id: item.call_id, function: { arguments: item.arguments, name: item.name }, type: "function" };
}

/** The plain text of a chat message's content (a string, or the concatenated text of its parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof (part as Json)?.text === "string" ? ((part as Json).text as string) : "")).join("");
}

/** The input items as Chat Completions messages (no `instructions` handling). */
export function responsesInputToChatMessages(input: unknown, options: ResponsesToChatOptions = {}): ChatMessage[] {
  const items: unknown[] = typeof input === "string" ? [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }] : (input as unknown[]);
  if (!Array.isArray(items)) throw new ChatConversionError("input must be a string or a list of items");
  const withTokens = options.returnTokenIdInformation === true;
  const messages: ChatMessage[] = [];
  const buffer = new AssistantBuffer(messages, withTokens);

  items.forEach((raw, index) => {
    const item = raw as Json;
    if (item === null || typeof item !== "object") throw new ChatConversionError(`${where(index)} must be an object`);
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message":
        convertMessage(item, index, buffer, messages);
        break;
      case "reasoning":
        if (Array.isArray(item.summary) && item.summary.length > 0) {
          buffer.text += wrapInThinkTags(item.summary.map((s) => String((s as Json)?.text ?? "")));
        }
        break;
      case "function_call":
        buffer.toolCalls.push(toolCallOf(item, index));
        break;
      case "function_call_output":
        buffer.flush();
        messages.push({ content: item.output, role: "tool", tool_call_id: item.call_id });
        break;
      default:
        throw new ChatConversionError(
          `${where(index)}: item type ${JSON.stringify(type)} cannot be sent to a Chat Completions backend (only message, reasoning, function_call and function_call_output)`,
        );
    }
    if (withTokens && Array.isArray(item.prompt_token_ids) && item.prompt_token_ids.length > 0) {
      buffer.tokens = {
        prompt_token_ids: item.prompt_token_ids,
        generation_token_ids: item.generation_token_ids,
        generation_log_probs: item.generation_log_probs,
        ...(item.routed_experts !== undefined && item.routed_experts !== null ? { routed_experts: item.routed_experts } : {}),
      };
    }
  });
  buffer.flush();
  return messages;
}

/** `instructions` become one leading system message, absorbing the leading run of system/developer messages. */
function foldInstructions(messages: ChatMessage[], instructions: unknown): ChatMessage[] {
  if (!instructions) return messages;
  const parts = [String(instructions)];
  let start = 0;
  while (start < messages.length && (messages[start]!.role === "system" || messages[start]!.role === "developer")) {
    parts.push(contentText(messages[start]!.content));
    start++;
  }
  return [{ role: "system", content: parts.join("\n\n") }, ...messages.slice(start)];
}

function chatTool(tool: Json, index: number): Json {
  if (tool?.type !== "function") {
    throw new ChatConversionError(`tools[${index}]: tool type ${JSON.stringify(tool?.type)} cannot be sent to a Chat Completions backend (only function tools)`);
  }
  // A Chat function definition: the Responses tool without `type` and `strict`, in FunctionDefinition's order
  // (a null description or parameters is left out: Chat Completions has no null for them).
  const fn: Json = { name: tool.name };
  if (tool.description !== undefined && tool.description !== null) fn.description = tool.description;
  if (tool.parameters !== undefined && tool.parameters !== null) fn.parameters = tool.parameters;
  return { type: "function", function: fn };
}

const HOSTED_TOOL_CHOICE = /^(file_search|web_search.*|computer_use_preview|image_generation|code_interpreter|mcp)$/;

/** Responses tool_choice objects name the tool inline; Chat Completions nests it under the type's key. */
function chatToolChoice(choice: unknown): unknown {
  if (typeof choice === "string" || choice === null || typeof choice !== "object") return choice;
  const { type, ...rest } = choice as Json;
  if (type === "function" || type === "custom") return { type, [type]: { name: rest.name } };
  if (type === "allowed_tools") return { type, allowed_tools: { mode: rest.mode, tools: rest.tools } };
  if (typeof type === "string" && HOSTED_TOOL_CHOICE.test(type)) {
    throw new ChatConversionError(`tool_choice: hosted tool ${JSON.stringify(type)} cannot be chosen on a Chat Completions backend`);
  }
  return choice;
}

/**
 * The Chat Completions request for a Responses request. `setParams` holds only the fields the caller set
 * (NeMo Gym converts `model_dump(exclude_unset=True)`): unset defaults such as `tool_choice: "auto"` are not
 * forwarded. Fields Chat Completions does not know (`reasoning`, `text`, `include`, `truncation`, …) are
 * dropped. Keys come out in the order of NeMo Gym's chat request model, `messages` first.
 */
export function responsesToChatRequest(setParams: Json, options: ResponsesToChatOptions = {}): ChatRequestBody {
  const { input, instructions, max_output_tokens, tools, ...rest } = setParams;
  const converted: Json = { ...rest };
  converted.messages = foldInstructions(responsesInputToChatMessages(input, options), instructions);
  if (max_output_tokens !== undefined && max_output_tokens !== null) converted.max_tokens = max_output_tokens;

  if (Array.isArray(tools) && tools.length > 0) {
    converted.tools = tools.map((tool, index) => chatTool(tool as Json, index));
    if ("tool_choice" in converted) converted.tool_choice = chatToolChoice(converted.tool_choice);
  } else {
    // vLLM rejects tool_choice without tools.
    if (converted.tool_choice === "required") throw new ChatConversionError("tool_choice 'required' needs at least one tool in `tools`");
    delete converted.tool_choice;
    delete converted.parallel_tool_calls;
  }

  const body: Json = {};
  for (const key of CHAT_REQUEST_KEYS) if (converted[key] !== undefined) body[key] = converted[key];
  return body as ChatRequestBody;
}

/** Keeps only the keys a Chat Completions request model knows (what NeMo Gym's pydantic model would keep). */
export function knownChatRequestFields(body: Json): Json {
  const known: Json = {};
  for (const key of CHAT_REQUEST_KEYS) if (body[key] !== undefined) known[key] = body[key];
  return known;
}
