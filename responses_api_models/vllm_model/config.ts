// vllm_model's config: NeMo Gym's `VLLMModelConfig` fields, plus the call limits every outbound client here has.
import { z } from "zod";

/** A YAML boolean, or the string `"true"` / `"false"` an `${oc.env:…}` interpolation produces. */
const yamlBoolean = z.union([
  z.boolean(),
  z
    .string()
    .transform((text, ctx) => {
      const lowered = text.trim().toLowerCase();
      if (lowered === "true") return true;
      if (lowered === "false") return false;
      ctx.addIssue({ code: "custom", message: `expected true or false, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }),
]);

const yamlNumber = z.union([z.number(), z.string().trim().regex(/^\d+(\.\d+)?$/).transform(Number)]);

/** One base URL, with the version (`http://host:8000/v1`); a trailing slash is dropped. */
const baseUrl = z
  .string()
  .url({ message: "base_url must be a URL such as http://127.0.0.1:8000/v1" })
  .transform((url) => url.replace(/\/+$/, ""));

export const VLLMModelConfig = z.looseObject({
  /** One endpoint or several; a rollout's calls all go to the endpoint its session hashes to. */
  base_url: z.union([baseUrl, z.array(baseUrl).min(1)]).transform((value) => (Array.isArray(value) ? value : [value])),
  api_key: z.string(),
  model: z.string(),
  /** Training mode: token ids and log-probs on the last output item of each call. */
  return_token_id_information: yamlBoolean,
  /** Ask vLLM (≥ 0.10.2) for inline `prompt_token_ids` / `token_ids` (`return_token_ids`), sparing the /tokenize call. NeMo Gym HEAD. */
  request_prompt_and_generation_token_ids: yamlBoolean.default(false),
  /** vLLM runs a reasoning parser: it returns `reasoning_content` / `reasoning` and expects them back on assistant messages. */
  uses_reasoning_parser: yamlBoolean,
  /** Send earlier turns' reasoning back to vLLM (else it is dropped from the history). */
  uses_interleaved_reasoning: yamlBoolean.default(true),
  /** With a reasoning parser: leave `<think>` blocks in the history's assistant content as they are (not moved to reasoning fields). */
  preserve_reasoning_in_assistant_content: yamlBoolean.default(false),
  replace_developer_role_with_system: yamlBoolean.default(false),
  /** false: a conversation ending in a reasoning-only assistant turn is answered with an empty `content_filter` completion. */
  sequential_reasoning_allowed: yamlBoolean.default(true),
  /** Forward /v1/responses to vLLM's own /responses unchanged (no conversion, no training mode). */
  is_responses_native: yamlBoolean.default(false),
  chat_template_kwargs: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((value) => value ?? null),
  /**
   * Sampling params put on every request this server sends to vLLM, over whatever the caller and `extra_body` set
   * (on-policy training: the server, not the caller, decides them). Read from the config only.
   */
  sampling_overrides: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((value) => value ?? null),
  /** Fields under every request (the request wins), as the OpenAI client's `extra_body`. */
  extra_body: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((value) => value ?? null),
  default_headers: z
    .record(z.string(), z.string())
    .nullish()
    .transform((value) => value ?? {}),
  /** Directory that relative `metadata.audio_path(s)` resolve against; the only one audio is read from unless `allowed_audio_dirs` adds more. */
  audio_root: z.string().nullish(),
  /** More directories an absolute `metadata.audio_path(s)` may point into (symlinks resolved; nothing outside is read). */
  allowed_audio_dirs: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? []),
  /** The Hugging Face tokenizer NeMo Gym renders prompts with, read only with `render_chat_template` (refused here). */
  tokenizer: z.string().nullish(),
  /** Retries of a 429 / 5xx answer (NeMo Gym retries some of these forever). */
  max_retries: yamlNumber.pipe(z.number().int().min(0)).default(3),
  /** Deadline of one upstream call, answer body included. */
  request_timeout_s: yamlNumber.pipe(z.number().positive()).default(600),
});
export type VLLMModelConfig = z.output<typeof VLLMModelConfig>;

/** NeMo Gym's VLLMModelConfig keys this port does not implement (a start setting one fails, naming it). */
export const VLLM_REFUSED_CONFIG_KEYS = {
  use_completions_api: "vLLM's /v1/completions path (raw prompts) is not ported; this server calls /v1/chat/completions",
  render_chat_template: "client-side chat-template rendering needs a Hugging Face tokenizer, which this port does not load; it applies only with use_completions_api",
};
