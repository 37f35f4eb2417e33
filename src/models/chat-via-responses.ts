// `/v1/chat/completions` for a model server that only implements `responses()` (scripted_model, say):
// the chat request becomes Responses params, the server answers, and the response becomes one chat
// choice. Every model server then speaks all three dialects, as the gateway and chat-only harnesses expect.
import type { ChatCompletion, ChatCompletionCreateParams, NeMoGymResponse, ResponseCreateParamsInput } from "../protocol/index.ts";
import { ChatConversionError, chatMessagesToResponseItems } from "./chat-conversion/index.ts";

type Json = Record<string, unknown>;

/** Chat content parts as Responses input parts (`text` → `input_text`, `image_url` → `input_image`). */
function inputParts(content: unknown, where: string): unknown {
  if (!Array.isArray(content)) return content ?? "";
  return content.map((part: Json, index) => {
    if (part?.type === "text") return { type: "input_text", text: part.text };
    if (part?.type === "image_url") {
      const image = (part.image_url ?? {}) as Json;
      return { type: "input_image", image_url: image.url, detail: image.detail ?? "auto" };
    }
    throw new ChatConversionError(`${where}.content[${index}]: content part type ${JSON.stringify(part?.type)} is not supported here (only text and image_url)`);
  });
}

/** Responses tool_choice from the Chat form (`{type: "function", function: {name}}` names the tool one level down). */
function responsesToolChoice(choice: ChatCompletionCreateParams["tool_choice"]): ResponseCreateParamsInput["tool_choice"] {
  if (choice === null || typeof choice === "string") return (choice ?? "auto") as ResponseCreateParamsInput["tool_choice"];
  const named = choice as { type: string; function?: { name: string } };
  if (named.type === "function" && named.function) return { type: "function", name: named.function.name };
  throw new ChatConversionError(`tool_choice: ${JSON.stringify(choice)} has no Responses equivalent`);
}

/** Only fields the caller set are carried (`raw` holds exactly what was sent). */
export function chatToResponsesParams(chat: ChatCompletionCreateParams, raw: Json): ResponseCreateParamsInput {
  const messages = chat.messages.map((message, index) => {
    const m = message as Json;
    return m.role === "user" || m.role === "system" || m.role === "developer" ? { ...m, content: inputParts(m.content, `messages[${index}]`) } : m;
  });
  const params: ResponseCreateParamsInput = { input: chatMessagesToResponseItems(messages) as ResponseCreateParamsInput["input"] };
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxTokens !== null) params.max_output_tokens = maxTokens;
  if (chat.tools && chat.tools.length > 0) {
    params.tools = chat.tools.map((tool) => ({
      type: "function" as const,
      name: tool.function.name,
      description: tool.function.description ?? null,
      parameters: (tool.function.parameters ?? null) as Json | null,
      strict: tool.function.strict ?? null,
    }));
  }
  if ("tool_choice" in raw) params.tool_choice = responsesToolChoice(chat.tool_choice);
  if ("parallel_tool_calls" in raw) params.parallel_tool_calls = chat.parallel_tool_calls;
  for (const key of ["model", "temperature", "top_p", "metadata", "user", "store", "service_tier", "top_logprobs"] as const) {
    if (key in raw && chat[key] !== null) (params as Json)[key] = chat[key];
  }
  if (chat.reasoning_effort !== null) params.reasoning = { effort: chat.reasoning_effort };
  return params;
}

const TRAINING_FIELDS = ["prompt_token_ids", "generation_token_ids", "generation_log_probs", "routed_experts"] as const;

/** One chat choice from a response: text, reasoning (as `reasoning_content`), tool calls, finish reason, usage. */
export function responseToChatCompletion(response: NeMoGymResponse): ChatCompletion {
  let text = "";
  const reasoning: string[] = [];
  const toolCalls: Json[] = [];
  for (const item of response.output as Json[]) {
    if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content as Json[]) if (part.type === "output_text") text += String(part.text ?? "");
    } else if (item.type === "reasoning" && Array.isArray(item.summary)) {
      for (const summary of item.summary as Json[]) reasoning.push(String(summary.text ?? ""));
    } else if (item.type === "function_call") {
      toolCalls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
    }
  }
  const message: Json = { role: "assistant", content: text || (toolCalls.length > 0 ? null : "") };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join("\n");
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  // Training mode: the token fields of the call ride on the chat message, as NeMo Gym's training chat message.
  const last = (response.output as Json[]).at(-1);
  if (last?.prompt_token_ids !== undefined) for (const field of TRAINING_FIELDS) if (last[field] !== undefined) message[field] = last[field];

  const incomplete = response.incomplete_details?.reason;
  const finishReason = incomplete === "max_output_tokens" ? "length" : incomplete === "content_filter" ? "content_filter" : toolCalls.length > 0 ? "tool_calls" : "stop";
  const usage = response.usage;
  return {
    id: `chatcmpl-${response.id.replace(/^resp_/, "")}`,
    object: "chat.completion",
    created: Math.floor(response.created_at),
    model: response.model,
    choices: [{ index: 0, finish_reason: finishReason, logprobs: null, message }],
    ...(usage ? { usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.total_tokens } } : {}),
  } as unknown as ChatCompletion;
}
