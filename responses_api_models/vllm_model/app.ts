// vllm_model: a Responses API front for vLLM's OpenAI-compatible Chat Completions server, as NeMo Gym's
// `VLLMModel`. /v1/responses is converted to a chat request (src/models/chat-conversion), prepared for vLLM
// (preprocess.ts), sent to the endpoint the session is pinned to (upstream.ts), and the answer converted
// back; in training mode it carries token ids and log-probs (token-ids.ts). /v1/chat/completions takes the
// same path without the conversions.
import { ChatCompletionSchema, ResponseSchema, type ChatCompletion } from "../../src/protocol/index.ts";
import {
  chatCompletionToResponse,
  knownChatRequestFields,
  reasoningFieldOf,
  reasoningFieldsToThinkTags,
  responsesToChatRequest,
} from "../../src/models/chat-conversion/index.ts";
import { asBadRequest, HttpError, modelMetricsOf, responsesApiModel } from "../../src/server/index.ts";
import { VLLM_REFUSED_CONFIG_KEYS, VLLMModelConfig } from "./config.ts";
import { endsWithEmptyAssistantTurn, vllmChatBody, withSamplingOverrides } from "./preprocess.ts";
import { attachTokenIds, takeLogprobTokens } from "./token-ids.ts";
import { jsonOf, tokenizeUrl, UpstreamContractError, VllmUpstream } from "./upstream.ts";

type Json = Record<string, unknown>;

const upstreams = new WeakMap<object, VllmUpstream>();

/** The fields of a validated request that the caller actually sent (NeMo Gym's `model_dump(exclude_unset=True)`). */
function setFields(params: object, rawParams: object): Json {
  const set: Json = {};
  for (const key of Object.keys(rawParams)) if (key in params) set[key] = (params as Json)[key];
  return set;
}

/** What NeMo Gym answers without calling vLLM: no text, no tool calls, the given finish reason. */
function emptyCompletion(model: string, finishReason: "length" | "content_filter"): ChatCompletion {
  return ChatCompletionSchema.parse({
    id: "chtcmpl-123",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, finish_reason: finishReason, message: { role: "assistant", content: null, tool_calls: null } }],
  });
}

/** vLLM refuses a prompt longer than its context (or a max_tokens beyond it) with a 400 naming one of these. */
const isContextLengthError = (status: number, text: string) => status === 400 && (text.includes("context length") || text.includes("max_tokens"));

// The fields of a chat request that shape the prompt, so /tokenize renders the prompt vLLM generated from.
const TOKENIZE_FIELDS = ["model", "messages", "tools", "chat_template_kwargs", "mm_processor_kwargs", "required_prefix_token_ids"];

/** One generation: the request prepared for vLLM, sent, and its first choice normalised (reasoning, token ids). */
async function generate(request: Json, sessionId: string, config: VLLMModelConfig, upstream: VllmUpstream): Promise<ChatCompletion> {
  const body = await vllmChatBody(request, config);
  if (!config.sequential_reasoning_allowed && endsWithEmptyAssistantTurn(body)) return emptyCompletion(config.model, "content_filter");

  const baseUrl = upstream.endpointFor(sessionId);
  const url = `${baseUrl}/chat/completions`;
  const answer = await upstream.post(url, body);
  if (isContextLengthError(answer.status, answer.text)) return emptyCompletion(config.model, "length");
  // Training answers are mostly per-token logprob entries: read those without building objects for them.
  const taken = config.return_token_id_information && answer.ok ? takeLogprobTokens(answer.text) : undefined;
  const completion = jsonOf(url, answer, taken?.text);

  const choice = (completion.choices as Json[] | undefined)?.[0];
  if (!choice || typeof choice.message !== "object" || choice.message === null) throw new UpstreamContractError(url, "answered a chat completion without choices[0].message");
  const message = choice.message as Json;
  if (config.uses_reasoning_parser) {
    choice.message = reasoningFieldsToThinkTags(message);
  } else if (reasoningFieldOf(message) !== undefined) {
    throw new HttpError(
      500,
      `vLLM at ${baseUrl} returned reasoning_content/reasoning but this server is configured with uses_reasoning_parser: false; ` +
        "run vLLM without a reasoning parser or set uses_reasoning_parser: true",
    );
  }

  if (config.return_token_id_information) {
    await attachTokenIds(completion, choice, url, async () => {
      const tokenize = tokenizeUrl(baseUrl);
      const tokenizeBody = Object.fromEntries(TOKENIZE_FIELDS.filter((key) => key in body).map((key) => [key, body[key]]));
      const tokenized = await upstream.post(tokenize, tokenizeBody);
      if (!tokenized.ok) throw new UpstreamContractError(tokenize, `answered ${tokenized.status}: ${tokenized.text.slice(0, 2000)}`);
      return jsonOf(tokenize, tokenized).tokens;
    }, taken?.tokens);
  }

  const parsed = ChatCompletionSchema.safeParse(completion);
  if (!parsed.success) throw new UpstreamContractError(url, `answered something that is not a chat completion: ${parsed.error.message.slice(0, 1000)}`);
  return parsed.data;
}

export default responsesApiModel({
  name: "VLLMModel",
  config: VLLMModelConfig,
  refusedConfigKeys: VLLM_REFUSED_CONFIG_KEYS,

  setup({ config, metrics }) {
    upstreams.set(config, new VllmUpstream(config, modelMetricsOf(metrics)));
  },

  async close({ config }) {
    await upstreams.get(config)?.close();
  },

  async responses({ params, rawParams, sessionId }, { config }) {
    const upstream = upstreams.get(config)!;
    if (config.is_responses_native) return nativeResponses(rawParams as Json, sessionId, config, upstream);

    const chatRequest = asBadRequest(() => responsesToChatRequest(setFields(params, rawParams), { returnTokenIdInformation: config.return_token_id_information }));
    const completion = await generate(chatRequest, sessionId, config, upstream);
    return chatCompletionToResponse({ ...params, model: config.model }, completion, {
      usesReasoningParser: config.uses_reasoning_parser,
      returnTokenIdInformation: config.return_token_id_information,
    });
  },

  async chatCompletions({ params, rawParams, sessionId }, { config }) {
    const request = knownChatRequestFields(setFields(params, rawParams));
    return generate(request, sessionId, config, upstreams.get(config)!);
  },
});

/** is_responses_native: the request goes to vLLM's own /responses, with the configured model and knobs. */
async function nativeResponses(rawParams: Json, sessionId: string, config: VLLMModelConfig, upstream: VllmUpstream) {
  const unsupported = [
    config.return_token_id_information && "return_token_id_information: true",
    config.replace_developer_role_with_system && "replace_developer_role_with_system: true",
    !config.sequential_reasoning_allowed && "sequential_reasoning_allowed: false",
  ].filter(Boolean);
  if (unsupported.length > 0) throw new HttpError(500, `is_responses_native: true does not support ${unsupported.join(", ")}; change the model server's config`);

  let body: Json = { ...rawParams, model: config.model };
  if (config.chat_template_kwargs && Object.keys(config.chat_template_kwargs).length > 0) body.chat_template_kwargs = structuredClone(config.chat_template_kwargs);
  if (config.extra_body && Object.keys(config.extra_body).length > 0) body = { ...config.extra_body, ...body };
  body = withSamplingOverrides(body, config);
  const url = `${upstream.endpointFor(sessionId)}/responses`;
  const parsed = ResponseSchema.safeParse(await upstream.postJson(url, body));
  if (!parsed.success) throw new UpstreamContractError(url, `answered something that is not a Responses API response: ${parsed.error.message.slice(0, 1000)}`);
  return parsed.data;
}
