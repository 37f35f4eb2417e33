/**
 * The Responses API as NeMo Gym speaks it: the strict request model
 * (`NeMoGymResponseCreateParamsNonStreaming`) and the response envelope
 * (`NeMoGymResponse`). Items, content parts and tools live in their own
 * modules and are re-exported from here.
 */
import { z } from "zod";
import { InputFileSchema, InputImageSchema, InputTextSchema } from "./content.ts";
import { ResponseInputItemSchema, ResponseOutputItemSchema } from "./items.ts";
import { isPlainObject, nullDefault, stringOrList } from "../python/pydantic/index.ts";
import { ResponseToolChoiceSchema, ResponseToolSchema, ToolChoiceSchema, ToolSchema } from "./tools.ts";

export * from "./content.ts";
export * from "./items.ts";
export * from "./tools.ts";
export { RoutedExpertsSchema, TRAINING_KEYS, type RoutedExperts, type TrainingFields } from "./training.ts";

const ServiceTierSchema = z.enum(["auto", "default", "flex", "scale", "priority"]);
const TruncationSchema = z.enum(["auto", "disabled"]);
const ReasoningEffortSchema = z.enum(["minimal", "low", "medium", "high"]);
const SummaryModeSchema = z.enum(["auto", "concise", "detailed"]);
const VerbositySchema = z.enum(["low", "medium", "high"]);

/** openai `Metadata`: string → string only; per-row backend knobs travel here as JSON strings. */
export const MetadataSchema = z.record(z.string(), z.string());

export const ResponseIncludableSchema = z.enum([
  "file_search_call.results",
  "web_search_call.results",
  "web_search_call.action.sources",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "code_interpreter_call.outputs",
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
]);

// ---- request-side nested params (TypedDicts) ----

// A TypedDict inside a forbid-extra model inherits `extra="forbid"` in pydantic: `reasoning.context`
// (newer than the pinned SDK) is a 422 in NeMo Gym, and pruned on the streaming path.
export const ReasoningParamSchema = z.strictObject({
  effort: ReasoningEffortSchema.nullable().optional(),
  generate_summary: SummaryModeSchema.nullable().optional(),
  summary: SummaryModeSchema.nullable().optional(),
});

const TextFormatParamSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    type: z.literal("json_schema"),
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
  z.object({ type: z.literal("json_object") }),
]);

export const TextConfigParamSchema = z.object({
  format: TextFormatParamSchema.optional(),
  verbosity: VerbositySchema.nullable().optional(),
});

export const PromptParamSchema = z.object({
  id: z.string(),
  variables: z
    .record(z.string(), z.union([z.string(), z.discriminatedUnion("type", [InputTextSchema, InputImageSchema, InputFileSchema])]))
    .nullable()
    .optional(),
  version: z.string().nullable().optional(),
});

/**
 * `NeMoGymResponseCreateParamsNonStreaming`: strict at the top level (an
 * unknown key such as `seed` is an `unrecognized_keys` issue, a 422 in Gym),
 * fields in declaration order, every optional field dumped as null.
 */
export const ResponseCreateParamsSchema = z.strictObject({
  background: nullDefault(z.boolean()),
  include: nullDefault(z.array(ResponseIncludableSchema)),
  input: stringOrList(ResponseInputItemSchema),
  instructions: nullDefault(z.string()),
  max_output_tokens: nullDefault(z.int()),
  max_tool_calls: nullDefault(z.int()),
  metadata: nullDefault(MetadataSchema),
  model: nullDefault(z.string()),
  parallel_tool_calls: z.boolean().default(true),
  previous_response_id: nullDefault(z.string()),
  prompt: nullDefault(PromptParamSchema),
  reasoning: nullDefault(ReasoningParamSchema),
  service_tier: nullDefault(ServiceTierSchema),
  store: nullDefault(z.boolean()),
  temperature: nullDefault(z.number()),
  text: nullDefault(TextConfigParamSchema),
  tool_choice: ToolChoiceSchema.default("auto"),
  tools: z.array(ToolSchema).default(() => []),
  top_logprobs: nullDefault(z.int()),
  top_p: nullDefault(z.number()),
  truncation: nullDefault(TruncationSchema),
  user: nullDefault(z.string()),
  // Non-streaming model: only `false` (or null) is accepted.
  stream: nullDefault(z.literal(false)),
});
export type ResponseCreateParams = z.output<typeof ResponseCreateParamsSchema>;
export type ResponseCreateParamsInput = z.input<typeof ResponseCreateParamsSchema>;

// ---- response envelope (openai models: unknown keys kept, optional fields dumped as null) ----

export const UsageSchema = z.looseObject({
  input_tokens: z.int(),
  input_tokens_details: z.looseObject({ cached_tokens: z.int() }),
  output_tokens: z.int(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.int() }),
  total_tokens: z.int(),
});
export type Usage = z.output<typeof UsageSchema>;

export const ResponseErrorSchema = z.looseObject({
  code: z.enum([
    "server_error",
    "rate_limit_exceeded",
    "invalid_prompt",
    "vector_store_timeout",
    "invalid_image",
    "invalid_image_format",
    "invalid_base64_image",
    "invalid_image_url",
    "image_too_large",
    "image_too_small",
    "image_parse_error",
    "image_content_policy_violation",
    "invalid_image_mode",
    "image_file_too_large",
    "unsupported_image_media_type",
    "empty_image_file",
    "failed_to_download_image",
    "image_file_not_found",
  ]),
  message: z.string(),
});

export const IncompleteDetailsSchema = z.looseObject({
  reason: nullDefault(z.enum(["max_output_tokens", "content_filter"])),
});

const ReasoningConfigSchema = z.looseObject({
  effort: nullDefault(ReasoningEffortSchema),
  generate_summary: nullDefault(SummaryModeSchema),
  summary: nullDefault(SummaryModeSchema),
});

const TextConfigSchema = z.looseObject({
  // Format variants are passed through as sent.
  format: nullDefault(z.looseObject({ type: z.enum(["text", "json_schema", "json_object"]) })),
  verbosity: nullDefault(VerbositySchema),
});

const PromptSchema = z.looseObject({
  id: z.string(),
  variables: nullDefault(z.record(z.string(), z.unknown())),
  version: nullDefault(z.string()),
});

export const ResponseStatusSchema = z.enum(["completed", "failed", "in_progress", "cancelled", "queued", "incomplete"]);

/**
 * `NeMoGymResponse`. Declared fields in the order of openai-python 2.7.2's
 * `Response` (the version pinned by NeMo Gym), which is also the order of the
 * newer reference rollouts; unknown top-level keys follow, as sent.
 */
/**
 * NeMo Gym's output item: a BeforeValidator refuses an item without `type` (the union would
 * otherwise make it an EasyInputMessage), then the item union.
 */
const TaggedOutputItemSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (isPlainObject(value) && !("type" in value)) {
      ctx.addIssue({
        code: "custom",
        input: value,
        message: "Value error, Responses API output items must include a type discriminator",
        params: { pydantic: { type: "value_error", ctx: { error: {} } } },
      });
    }
  })
  .pipe(ResponseOutputItemSchema);

export const ResponseSchema = z.looseObject({
  id: z.string(),
  created_at: z.number(),
  error: nullDefault(ResponseErrorSchema),
  incomplete_details: nullDefault(IncompleteDetailsSchema),
  instructions: nullDefault(z.union([z.string(), z.array(z.looseObject({}))])),
  metadata: nullDefault(MetadataSchema),
  model: z.string(),
  object: z.literal("response"),
  output: z.array(TaggedOutputItemSchema),
  parallel_tool_calls: z.boolean(),
  temperature: nullDefault(z.number()),
  tool_choice: ResponseToolChoiceSchema,
  tools: z.array(ResponseToolSchema),
  top_p: nullDefault(z.number()),
  background: nullDefault(z.boolean()),
  conversation: nullDefault(z.looseObject({ id: z.string() })),
  max_output_tokens: nullDefault(z.int()),
  max_tool_calls: nullDefault(z.int()),
  previous_response_id: nullDefault(z.string()),
  prompt: nullDefault(PromptSchema),
  prompt_cache_key: nullDefault(z.string()),
  reasoning: nullDefault(ReasoningConfigSchema),
  safety_identifier: nullDefault(z.string()),
  service_tier: nullDefault(ServiceTierSchema),
  status: nullDefault(ResponseStatusSchema),
  text: nullDefault(TextConfigSchema),
  top_logprobs: nullDefault(z.int()),
  truncation: nullDefault(TruncationSchema),
  usage: nullDefault(UsageSchema),
  user: nullDefault(z.string()),
});
export type NeMoGymResponse = z.output<typeof ResponseSchema>;
export type NeMoGymResponseInput = z.input<typeof ResponseSchema>;
