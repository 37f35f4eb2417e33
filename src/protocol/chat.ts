/**
 * Chat Completions types as NeMo Gym uses them (the vLLM model server speaks
 * Chat Completions upstream and exposes `/v1/chat/completions`).
 *
 * Request messages are openai-python TypedDict params: unknown keys (e.g. a
 * vLLM `reasoning_content`) are dropped and optional keys stay absent. The
 * request model itself ignores unknown top-level keys. `ChatCompletion` and
 * its parts are openai models: unknown keys are kept, optional ones dumped as
 * null.
 */
import { z } from "zod";
import { member, memberOf, nullDefault, smartUnion, stringOrList } from "../python/pydantic/index.ts";
import { RoutedExpertsSchema, TRAINING_KEYS, trainingShape, withTraining } from "./training.ts";

const ServiceTierSchema = z.enum(["auto", "default", "flex", "scale", "priority"]);
const MetadataSchema = z.record(z.string(), z.string());

// ---- request messages ----

const TextPartSchema = z.object({ text: z.string(), type: z.literal("text") });
const ImagePartSchema = z.object({
  image_url: z.object({ url: z.string(), detail: z.enum(["auto", "low", "high"]).optional() }),
  type: z.literal("image_url"),
});
const RefusalPartSchema = z.object({ refusal: z.string(), type: z.literal("refusal") });

const textContent = stringOrList(TextPartSchema);

export const ChatDeveloperMessageSchema = z.object({
  content: textContent,
  role: z.literal("developer"),
  name: z.string().optional(),
});

export const ChatSystemMessageSchema = z.object({
  content: textContent,
  role: z.literal("system"),
  name: z.string().optional(),
});

export const ChatUserMessageSchema = z.object({
  content: stringOrList(z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema])),
  role: z.literal("user"),
  name: z.string().optional(),
});

export const ChatToolCallParamSchema = z.object({
  id: z.string(),
  function: z.object({ arguments: z.string(), name: z.string() }),
  type: z.literal("function"),
});

export const ChatAssistantMessageBaseSchema = z.object({
  role: z.literal("assistant"),
  audio: z.object({ id: z.string() }).nullable().optional(),
  content: stringOrList(z.discriminatedUnion("type", [TextPartSchema, RefusalPartSchema])).nullable().optional(),
  function_call: z.object({ arguments: z.string(), name: z.string() }).nullable().optional(),
  name: z.string().optional(),
  refusal: z.string().nullable().optional(),
  tool_calls: z.array(ChatToolCallParamSchema).nullable().optional(),
});

/**
 * The TypedDict ForTraining assistant message lists the token fields after
 * the message's own keys (TypedDicts merge annotations base-first), unlike
 * the pydantic models where they come first.
 */
const ChatAssistantMessageTrainingSchema = z.object({
  ...ChatAssistantMessageBaseSchema.shape,
  ...trainingShape,
  routed_experts: RoutedExpertsSchema.optional(), // NotRequired, not Optional, in the TypedDict
});

export const ChatAssistantMessageSchema = withTraining(ChatAssistantMessageBaseSchema, ChatAssistantMessageTrainingSchema);

export const ChatToolMessageSchema = z.object({
  content: textContent,
  role: z.literal("tool"),
  tool_call_id: z.string(),
});

/** Roles are distinct literals, so at most one member can match; the deprecated `function` role is refused. */
export const ChatMessageParamSchema = smartUnion(
  "chat message",
  [
    member("ChatCompletionDeveloperMessageParam", ChatDeveloperMessageSchema, "role"),
    member("ChatCompletionSystemMessageParam", ChatSystemMessageSchema, "role"),
    member("ChatCompletionUserMessageParam", ChatUserMessageSchema, "role"),
    memberOf("ChatCompletionAssistantMessageParam", ChatAssistantMessageSchema, ChatAssistantMessageBaseSchema, "role", TRAINING_KEYS),
    member("ChatCompletionToolMessageParam", ChatToolMessageSchema, "role"),
  ] as const,
  "role",
);
export type ChatMessageParam = z.output<typeof ChatMessageParamSchema>;

// ---- request-level params ----

const ChatToolParamSchema = z.object({
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
  type: z.literal("function"),
});

const ChatToolChoiceSchema = z.union([
  z.enum(["none", "auto", "required"]),
  z.discriminatedUnion("type", [
    z.object({ function: z.object({ name: z.string() }), type: z.literal("function") }),
    z.object({
      allowed_tools: z.object({ mode: z.enum(["auto", "required"]), tools: z.array(z.record(z.string(), z.unknown())) }),
      type: z.literal("allowed_tools"),
    }),
    z.object({ custom: z.object({ name: z.string() }), type: z.literal("custom") }),
  ]),
]);

const ChatResponseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
    type: z.literal("json_schema"),
  }),
  z.object({ type: z.literal("json_object") }),
]);

/**
 * `NeMoGymChatCompletionCreateParamsNonStreaming`: a plain pydantic model, so
 * unknown top-level keys (e.g. `chat_template_kwargs`) are silently dropped.
 */
export const ChatCompletionCreateParamsSchema = z.object({
  messages: z.array(ChatMessageParamSchema),
  model: nullDefault(z.string()),
  audio: nullDefault(z.object({ format: z.enum(["wav", "aac", "mp3", "flac", "opus", "pcm16"]), voice: z.string() })),
  frequency_penalty: nullDefault(z.number()),
  logit_bias: nullDefault(z.record(z.string(), z.int())),
  logprobs: nullDefault(z.boolean()),
  max_completion_tokens: nullDefault(z.int()),
  max_tokens: nullDefault(z.int()),
  metadata: nullDefault(MetadataSchema),
  modalities: nullDefault(z.array(z.enum(["text", "audio"]))),
  n: nullDefault(z.int()),
  parallel_tool_calls: z.boolean().default(true),
  prediction: nullDefault(z.object({ content: textContent, type: z.literal("content") })),
  presence_penalty: nullDefault(z.number()),
  reasoning_effort: nullDefault(z.enum(["minimal", "low", "medium", "high"])),
  response_format: nullDefault(ChatResponseFormatSchema),
  seed: nullDefault(z.int()),
  service_tier: nullDefault(ServiceTierSchema),
  stop: nullDefault(z.union([z.string(), z.array(z.string())])),
  store: nullDefault(z.boolean()),
  stream_options: nullDefault(z.object({ include_obfuscation: z.boolean().optional(), include_usage: z.boolean().optional() })),
  temperature: nullDefault(z.number()),
  tool_choice: nullDefault(ChatToolChoiceSchema),
  tools: nullDefault(z.array(ChatToolParamSchema)),
  top_logprobs: nullDefault(z.int()),
  top_p: nullDefault(z.number()),
  user: nullDefault(z.string()),
  web_search_options: nullDefault(z.looseObject({})),
  stream: nullDefault(z.literal(false)),
});
export type ChatCompletionCreateParams = z.output<typeof ChatCompletionCreateParamsSchema>;
export type ChatCompletionCreateParamsInput = z.input<typeof ChatCompletionCreateParamsSchema>;

// ---- ChatCompletion (openai models: unknown keys kept) ----

const TopLogprobSchema = z.looseObject({
  token: z.string(),
  bytes: nullDefault(z.array(z.int())),
  logprob: z.number(),
});

export const ChatTokenLogprobSchema = z.looseObject({
  token: z.string(),
  bytes: nullDefault(z.array(z.int())),
  logprob: z.number(),
  top_logprobs: z.array(TopLogprobSchema),
});

export const ChatToolCallSchema = z.looseObject({
  id: z.string(),
  // NeMo Gym's own `NeMoGymFunction` model: unknown keys dropped.
  function: z.object({ arguments: z.string(), name: z.string() }),
  type: z.literal("function"),
});

export const ChatCompletionMessageBaseSchema = z.looseObject({
  content: nullDefault(z.string()),
  refusal: nullDefault(z.string()),
  role: z.literal("assistant"),
  annotations: nullDefault(
    z.array(
      z.looseObject({
        type: z.literal("url_citation"),
        url_citation: z.looseObject({ end_index: z.int(), start_index: z.int(), title: z.string(), url: z.string() }),
      }),
    ),
  ),
  audio: nullDefault(z.looseObject({ id: z.string(), data: z.string(), expires_at: z.int(), transcript: z.string() })),
  function_call: nullDefault(z.looseObject({ arguments: z.string(), name: z.string() })),
  tool_calls: nullDefault(z.array(ChatToolCallSchema)),
});

/** The choice message; the ForTraining variant (token fields first, as pydantic orders them) when token fields are present. */
export const ChatCompletionMessageSchema = withTraining(ChatCompletionMessageBaseSchema);
export type ChatCompletionMessage = z.output<typeof ChatCompletionMessageSchema>;

export const ChatChoiceSchema = z.looseObject({
  finish_reason: z.enum(["stop", "length", "tool_calls", "content_filter", "function_call"]),
  index: z.int(),
  logprobs: nullDefault(
    z.looseObject({
      content: nullDefault(z.array(ChatTokenLogprobSchema)),
      refusal: nullDefault(z.array(ChatTokenLogprobSchema)),
    }),
  ),
  message: ChatCompletionMessageSchema,
});
export type ChatChoice = z.output<typeof ChatChoiceSchema>;

export const CompletionUsageSchema = z.looseObject({
  completion_tokens: z.int(),
  prompt_tokens: z.int(),
  total_tokens: z.int(),
  completion_tokens_details: nullDefault(
    z.looseObject({
      accepted_prediction_tokens: nullDefault(z.int()),
      audio_tokens: nullDefault(z.int()),
      reasoning_tokens: nullDefault(z.int()),
      rejected_prediction_tokens: nullDefault(z.int()),
    }),
  ),
  prompt_tokens_details: nullDefault(
    z.looseObject({
      audio_tokens: nullDefault(z.int()),
      cached_tokens: nullDefault(z.int()),
    }),
  ),
});
export type CompletionUsage = z.output<typeof CompletionUsageSchema>;

export const ChatCompletionSchema = z.looseObject({
  id: z.string(),
  choices: z.array(ChatChoiceSchema),
  created: z.int(),
  model: z.string(),
  object: z.literal("chat.completion"),
  service_tier: nullDefault(ServiceTierSchema),
  system_fingerprint: nullDefault(z.string()),
  usage: nullDefault(CompletionUsageSchema),
});
export type ChatCompletion = z.output<typeof ChatCompletionSchema>;
export type ChatCompletionInput = z.input<typeof ChatCompletionSchema>;
