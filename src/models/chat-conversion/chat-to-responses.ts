// Chat Completions → Responses API, as NeMo Gym's `ResponsesConverter` does it: a generated assistant message
// becomes output items (reasoning, message, function calls), a chat completion becomes a `NeMoGymResponse`,
// and chat messages / chat requests map back to Responses input.
import { randomUUID } from "node:crypto";
import {
  ResponseSchema,
  type ChatCompletion,
  type ChatCompletionCreateParams,
  type NeMoGymResponse,
  type ResponseCreateParams,
  type ResponseCreateParamsInput,
  type Usage,
} from "../../protocol/index.ts";
import { responseEnvelope } from "../response-envelope.ts";
import { ChatConversionError } from "./errors.ts";
import { splitThinkTags } from "./reasoning-tags.ts";

type Json = Record<string, unknown>;

export interface ChatToResponsesOptions {
  /** `<think>` blocks in the content become a reasoning item (default true, as NeMo Gym's converter). */
  usesReasoningParser?: boolean;
  /** Token fields on the message are moved onto the last output item. */
  returnTokenIdInformation?: boolean;
  /** Item ids; defaults to `<prefix>_<uuid4 hex>` as NeMo Gym. */
  newId?: (prefix: "rs" | "msg") => string;
}

const uuidHex = () => randomUUID().replace(/-/g, "");
const defaultId = (prefix: string) => `${prefix}_${uuidHex()}`;

/**
 * Output items for one generated assistant message, in order: one reasoning item holding every `<think>`
 * block (when reasoning parsing is on), the message when it has text or nothing else was produced (an empty
 * generation is one empty message), then one function call per tool call. In training mode only the last
 * item carries the token fields.
 */
export function assistantMessageToOutputItems(message: Json, options: ChatToResponsesOptions = {}): Json[] {
  const newId = options.newId ?? defaultId;
  const output: Json[] = [];
  let content = typeof message.content === "string" ? message.content : "";
  if (options.usesReasoningParser ?? true) {
    const split = splitThinkTags(content);
    content = split.content;
    if (split.reasoning.length > 0) {
      output.push({ id: newId("rs"), summary: split.reasoning.map((text) => ({ text, type: "summary_text" })), type: "reasoning", encrypted_content: null });
    }
  }

  const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
  if (content || (output.length === 0 && toolCalls.length === 0)) {
    output.push({
      id: newId("msg"),
      content: [{ annotations: [], text: content, type: "output_text", logprobs: null }],
      role: "assistant",
      status: "completed",
      type: "message",
    });
  }
  for (const [index, call] of toolCalls.entries()) {
    if (typeof call?.id !== "string") throw new ChatConversionError(`tool_calls[${index}] has no id`);
    const fn = (call.function ?? {}) as Json;
    output.push({ arguments: fn.arguments, call_id: call.id, name: fn.name, type: "function_call", id: call.id, status: "completed" });
  }

  if (options.returnTokenIdInformation && message.prompt_token_ids !== undefined) {
    const last = output[output.length - 1]!;
    output[output.length - 1] = {
      prompt_token_ids: message.prompt_token_ids,
      generation_token_ids: message.generation_token_ids,
      generation_log_probs: message.generation_log_probs,
      ...(message.routed_experts !== undefined && message.routed_experts !== null ? { routed_experts: message.routed_experts } : {}),
      ...last,
    };
  }
  return output;
}

export function usageFromChat(usage: ChatCompletion["usage"]): Usage | null {
  if (!usage) return null;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

const INCOMPLETE_REASONS: Record<string, "max_output_tokens" | "content_filter"> = { length: "max_output_tokens", content_filter: "content_filter" };

/**
 * The `NeMoGymResponse` for a chat completion: the first choice's items, `created_at` from the completion,
 * `model` from the params (a model server sets its configured model there), the request fields echoed,
 * `status` null, and `incomplete_details` from a `length` / `content_filter` finish.
 */
export function chatCompletionToResponse(params: ResponseCreateParams, completion: ChatCompletion, options: ChatToResponsesOptions = {}): NeMoGymResponse {
  const choice = completion.choices[0];
  if (!choice) throw new ChatConversionError("the chat completion has no choices");
  const envelope = responseEnvelope({
    params,
    id: `resp_${uuidHex()}`,
    model: params.model ?? completion.model,
    createdAt: completion.created,
    output: assistantMessageToOutputItems(choice.message as Json, options) as NeMoGymResponse["output"],
    usage: usageFromChat(completion.usage),
    incompleteReason: INCOMPLETE_REASONS[choice.finish_reason],
  });
  // Fills each item's defaults and orders every field as NeMo Gym's models dump them.
  return ResponseSchema.parse(envelope);
}

/** Chat messages as Responses items: user/system/developer as easy messages, assistant turns as output items, tool results as function_call_output. */
export function chatMessagesToResponseItems(messages: readonly Json[], options: ChatToResponsesOptions = {}): Json[] {
  return messages.flatMap((message, index): Json[] => {
    switch (message.role) {
      case "user":
      case "system":
      case "developer":
        return [{ content: message.content ?? "", role: message.role, type: "message" }];
      case "assistant":
        return assistantMessageToOutputItems(message, options);
      case "tool":
        return [{ call_id: message.tool_call_id, output: message.content, type: "function_call_output", status: "completed" }];
      default:
        throw new ChatConversionError(`messages[${index}].role: unknown role ${JSON.stringify(message.role)}`);
    }
  });
}

/** A Chat Completions request as Responses params (the fields both dialects share). */
export function chatRequestToResponsesParams(chat: ChatCompletionCreateParams, options: ChatToResponsesOptions = {}): ResponseCreateParamsInput {
  const tools = (chat.tools ?? []).map((tool) => ({
    ...tool.function,
    parameters: tool.function.parameters ?? null,
    strict: tool.function.strict ?? null,
    type: "function" as const,
  }));
  return {
    input: chatMessagesToResponseItems(chat.messages as Json[], options) as ResponseCreateParamsInput["input"],
    max_output_tokens: chat.max_completion_tokens,
    metadata: chat.metadata,
    model: chat.model,
    parallel_tool_calls: chat.parallel_tool_calls,
    ...(chat.reasoning_effort !== null ? { reasoning: { effort: chat.reasoning_effort } } : {}),
    service_tier: chat.service_tier,
    store: chat.store,
    temperature: chat.temperature,
    tool_choice: (chat.tool_choice ?? "auto") as ResponseCreateParamsInput["tool_choice"],
    tools,
    top_logprobs: chat.top_logprobs,
    top_p: chat.top_p,
    user: chat.user,
    stream: chat.stream,
  };
}
