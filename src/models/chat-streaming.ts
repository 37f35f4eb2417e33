// `/v1/chat/completions` with `stream: true` (as NeMo Gym serves it since HEAD): the complete
// completion is computed non-streaming and replayed as `chat.completion.chunk` SSE frames ending in
// `data: [DONE]`. Token ids and logprobs do not fit the chunk schema; training clients use JSON.
import { ChatCompletionCreateParamsSchema, type ChatCompletion } from "../protocol/index.ts";

type Json = Record<string, unknown>;
const PARAM_FIELDS = new Set(Object.keys(ChatCompletionCreateParamsSchema.shape));

/** Drops `stream`, `stream_options` and unknown fields; remembers whether a usage chunk was asked for. */
export function sanitizeStreamingChatBody(original: Json): { body: Json; includeUsage: boolean } {
  const options = original.stream_options;
  const includeUsage = typeof options === "object" && options !== null && Boolean((options as Json).include_usage);
  const body: Json = {};
  for (const [key, value] of Object.entries(original)) {
    if (key !== "stream" && key !== "stream_options" && PARAM_FIELDS.has(key)) body[key] = value;
  }
  return { body, includeUsage };
}

const sseData = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

function chunk(completion: ChatCompletion, choices: unknown[], usage?: unknown): Json {
  const frame: Json = { id: completion.id, object: "chat.completion.chunk", created: completion.created, model: completion.model, choices };
  if (completion.system_fingerprint != null) frame.system_fingerprint = completion.system_fingerprint;
  if (usage != null) frame.usage = usage;
  return frame;
}

/** Per choice: role delta, then reasoning / content / tool-call deltas when present, then finish_reason. */
function choiceDeltas(index: number, choice: ChatCompletion["choices"][number]): Json[] {
  const message = (choice.message ?? {}) as Json;
  const deltas: Json[] = [{ index, delta: { role: message.role ?? "assistant" }, finish_reason: null }];
  const reasoning = message.reasoning_content || message.reasoning;
  if (reasoning) deltas.push({ index, delta: { reasoning_content: reasoning }, finish_reason: null });
  if (message.content) deltas.push({ index, delta: { content: message.content }, finish_reason: null });
  const toolCalls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [];
  if (toolCalls.length > 0) {
    const calls = toolCalls.map((call, toolIndex) => {
      const fn = (call.function ?? {}) as Json;
      return { index: toolIndex, id: call.id, type: call.type ?? "function", function: { name: fn.name, arguments: fn.arguments ?? "" } };
    });
    deltas.push({ index, delta: { tool_calls: calls }, finish_reason: null });
  }
  deltas.push({ index, delta: {}, finish_reason: choice.finish_reason });
  return deltas;
}

export function chatCompletionSse(completion: ChatCompletion, includeUsage: boolean): string {
  const frames: string[] = [];
  completion.choices.forEach((choice, index) => {
    for (const delta of choiceDeltas(index, choice)) frames.push(sseData(chunk(completion, [delta])));
  });
  if (includeUsage && completion.usage != null) frames.push(sseData(chunk(completion, [], completion.usage)));
  frames.push("data: [DONE]\n\n");
  return frames.join("");
}
