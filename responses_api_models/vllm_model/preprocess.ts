// The Chat Completions body vLLM receives, from the request's own fields (NeMo Gym's
// `_preprocess_chat_completion_create_params`): role mapping, the configured model, chat-template and
// extra-body knobs (per row through `metadata` JSON strings), training-mode logprob flags, reasoning moved
// out of `<think>` tags, and the audio side channel.
import { moveThinkTagsToReasoningFields } from "../../src/models/chat-conversion/index.ts";
import { HttpError } from "../../src/server/index.ts";
import { spliceAudio } from "./audio.ts";
import type { VLLMModelConfig } from "./config.ts";

type Json = Record<string, unknown>;

/** A per-row override carried in `metadata` as a JSON object string (e.g. `'{"seed": 3}'`). */
function metadataObject(metadata: Json, key: string): Json {
  const text = metadata[key];
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(text));
  } catch (error) {
    throw new HttpError(400, `metadata.${key} must be a JSON object string such as '{"seed": 3}': ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new HttpError(400, `metadata.${key} must be a JSON object string such as '{"seed": 3}', got ${JSON.stringify(text)}`);
  }
  return parsed as Json;
}

export async function vllmChatBody(request: Json, config: VLLMModelConfig): Promise<Json> {
  let messages = (request.messages as Json[]) ?? [];
  if (config.replace_developer_role_with_system) {
    messages = messages.map((message) => (message.role === "developer" ? { ...message, role: "system" } : message));
  }
  let body: Json = { ...request, messages, model: config.model };

  const metadata = (body.metadata ?? {}) as Json;
  const chatTemplateKwargs = { ...config.chat_template_kwargs, ...metadataObject(metadata, "chat_template_kwargs") };
  if (Object.keys(chatTemplateKwargs).length > 0) body.chat_template_kwargs = chatTemplateKwargs;
  const extraBody = { ...config.extra_body, ...metadataObject(metadata, "extra_body") };

  if (config.return_token_id_information) {
    if (body.n !== undefined && body.n !== null && body.n !== 1) {
      throw new HttpError(400, `n=${JSON.stringify(body.n)}: a model server with return_token_id_information: true generates exactly one choice (n=1)`);
    }
    // top_logprobs is pinned to 0: vLLM reads a null top_logprobs as "no logprobs", which would empty the token ids.
    Object.assign(body, { logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true });
    if (config.request_prompt_and_generation_token_ids) body.return_token_ids = true;
  }

  if (config.uses_reasoning_parser && !config.preserve_reasoning_in_assistant_content) {
    body.messages = moveThinkTagsToReasoningFields(body.messages as Json[], { keepReasoning: config.uses_interleaved_reasoning });
  }

  // vLLM reads a null top_logprobs as "no logprobs" but an absent one as its default.
  if (body.top_logprobs === null) delete body.top_logprobs;

  if (Object.keys(extraBody).length > 0) body = { ...extraBody, ...body };
  return withSamplingOverrides(await spliceAudio(body, config), config);
}

/** `sampling_overrides` over everything else, applied last on every body sent to vLLM (NeMo Gym's pin). */
export function withSamplingOverrides(body: Json, config: VLLMModelConfig): Json {
  return config.sampling_overrides ? { ...body, ...structuredClone(config.sampling_overrides) } : body;
}

/** A conversation ending in an assistant turn with neither text nor tool calls (reasoning only). */
export function endsWithEmptyAssistantTurn(body: Json): boolean {
  const last = (body.messages as Json[] | undefined)?.at(-1);
  if (!last || last.role !== "assistant") return false;
  const present = (value: unknown) => (Array.isArray(value) ? value.length > 0 : Boolean(value));
  return !(present(last.content) || present(last.tool_calls));
}
