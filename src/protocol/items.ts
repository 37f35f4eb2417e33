/**
 * Responses API input/output items (`NeMoGymResponseInputItem`; the output
 * union is the same). NeMo Gym's own item models ignore unknown keys and fill
 * defaults; the hosted-MCP items subclass openai-python models and so keep
 * unknown keys.
 */
import { z } from "zod";
import { InputContentPartSchema, OutputContentPartSchema, SummaryTextSchema } from "./content.ts";
import { isPlainObject, parseForwarding, member, memberOf, nullDefault, smartUnion, stringOrList, type UnionMember } from "../python/pydantic/index.ts";
import { TRAINING_KEYS, trainingShape, withTraining } from "./training.ts";

const ItemStatusSchema = z.enum(["in_progress", "completed", "incomplete"]);

// ---- base models, fields in pydantic declaration order ----

export const EasyInputMessageBaseSchema = z.object({
  content: stringOrList(InputContentPartSchema),
  role: z.enum(["user", "assistant", "system", "developer"]),
  type: z.literal("message").default("message"),
});

export const MessageBaseSchema = z.object({
  content: z.array(InputContentPartSchema),
  role: z.enum(["user", "system", "developer"]),
  status: ItemStatusSchema.default("completed"),
  type: z.literal("message").default("message"),
});

export const OutputMessageBaseSchema = z.object({
  id: z.string(),
  content: z.array(OutputContentPartSchema),
  role: z.literal("assistant").default("assistant"),
  status: ItemStatusSchema.default("completed"),
  type: z.literal("message").default("message"),
});

export const FunctionCallBaseSchema = z.object({
  arguments: z.string(),
  call_id: z.string(),
  name: z.string(),
  type: z.literal("function_call").default("function_call"),
  id: nullDefault(z.string()),
  status: nullDefault(ItemStatusSchema),
});

// openai-python's ResponseFunctionCallOutputItemParam (TypedDicts: keys not sent stay absent).
const FunctionCallOutputPartSchema = z.union([
  z.object({ text: z.string(), type: z.literal("input_text") }),
  z.object({
    type: z.literal("input_image"),
    detail: z.enum(["low", "high", "auto"]).nullable().optional(),
    file_id: z.string().nullable().optional(),
    image_url: z.string().nullable().optional(),
  }),
  z.object({
    type: z.literal("input_file"),
    file_data: z.string().nullable().optional(),
    file_id: z.string().nullable().optional(),
    file_url: z.string().nullable().optional(),
    filename: z.string().nullable().optional(),
  }),
]);

export const FunctionCallOutputSchema = z.object({
  call_id: z.string(),
  // `Union[str, ResponseFunctionCallOutputItemListParam]` at the pinned commit: text, or input parts.
  output: stringOrList(FunctionCallOutputPartSchema),
  type: z.literal("function_call_output").default("function_call_output"),
  id: nullDefault(z.string()),
  status: nullDefault(ItemStatusSchema),
});

// `status` is deliberately not modelled (so it is dropped): OpenAI rejects it when echoed back.
export const ReasoningItemBaseSchema = z.object({
  id: z.string(),
  summary: z.array(SummaryTextSchema),
  type: z.literal("reasoning").default("reasoning"),
  encrypted_content: nullDefault(z.string()),
});

// ---- hosted-MCP pass-through items ----
// As in NeMo Gym, `type` defaults. So `mcp_list_tools`, whose fields all have defaults, takes
// any untyped item no other member accepts (a message with role "USER", or bad content, or an
// assistant message without `id`), and the dump is that item with the list's fields first.

export const McpCallSchema = z.looseObject({
  id: nullDefault(z.string()),
  arguments: z.string(),
  name: z.string(),
  server_label: nullDefault(z.string()),
  type: z.literal("mcp_call").default("mcp_call"),
  approval_request_id: nullDefault(z.string()),
  error: nullDefault(z.string()),
  output: nullDefault(z.string()),
  status: nullDefault(z.string()),
});

export const McpListToolsSchema = z.looseObject({
  id: nullDefault(z.string()),
  server_label: nullDefault(z.string()),
  tools: z.array(z.unknown()).default(() => []),
  type: z.literal("mcp_list_tools").default("mcp_list_tools"),
  error: nullDefault(z.string()),
});

export const McpApprovalRequestSchema = z.looseObject({
  id: nullDefault(z.string()),
  arguments: z.string(),
  name: z.string(),
  server_label: nullDefault(z.string()),
  type: z.literal("mcp_approval_request").default("mcp_approval_request"),
});

// ---- kinds that may carry training fields ----

export const EasyInputMessageSchema = withTraining(EasyInputMessageBaseSchema);
export const MessageSchema = withTraining(MessageBaseSchema);
export const OutputMessageSchema = withTraining(OutputMessageBaseSchema);
export const FunctionCallSchema = withTraining(FunctionCallBaseSchema);
export const ReasoningItemSchema = withTraining(ReasoningItemBaseSchema);

function trainingMember<S extends z.ZodType>(name: string, base: z.ZodObject, schema: S): UnionMember<S> {
  return memberOf(name, schema, base, "type", TRAINING_KEYS);
}

const REQUIRED_TOKEN_FIELDS = ["generation_log_probs", "generation_token_ids", "prompt_token_ids"] as const;
const TokenMetadataSchema = z.object(trainingShape).partial();

/**
 * NeMo Gym's `_validate_atomic_token_metadata`, a BeforeValidator on the whole item union: an item
 * carrying any token field must carry the three lists, well formed, whichever member it would be
 * (otherwise `mcp_list_tools`, all of whose fields default, would take a message with half its token ids).
 */
const atomicTokenMetadata = z.unknown().superRefine((value, ctx) => {
  if (!isPlainObject(value)) return;
  const present = TRAINING_KEYS.filter((key) => key in value);
  if (present.length === 0) return;
  const missing = REQUIRED_TOKEN_FIELDS.filter((key) => !(key in value));
  if (missing.length > 0) {
    ctx.addIssue({
      code: "custom",
      input: value,
      message: `Value error, Token metadata must include all required fields; missing: ${missing.join(", ")}`,
      params: { pydantic: { type: "value_error", ctx: { error: {} } } },
    });
    return;
  }
  parseForwarding(TokenMetadataSchema, Object.fromEntries(present.map((key) => [key, value[key]])), ctx.issues);
});

/**
 * Member order is pydantic's. Only the three `message` models can tie on
 * `type`; ranking by fields set makes an assistant history item with `id` and
 * `output_text` parts an OutputMessage, a user item with `status` a Message,
 * and everything else an EasyInputMessage (which drops `id`/`status`).
 */
export const ResponseInputItemSchema = atomicTokenMetadata.pipe(smartUnion("response item", [
  trainingMember("NeMoGymEasyInputMessage", EasyInputMessageBaseSchema, EasyInputMessageSchema),
  trainingMember("NeMoGymMessage", MessageBaseSchema, MessageSchema),
  trainingMember("NeMoGymResponseOutputMessage", OutputMessageBaseSchema, OutputMessageSchema),
  trainingMember("NeMoGymResponseFunctionToolCall", FunctionCallBaseSchema, FunctionCallSchema),
  member("NeMoGymFunctionCallOutput", FunctionCallOutputSchema),
  trainingMember("NeMoGymResponseReasoningItem", ReasoningItemBaseSchema, ReasoningItemSchema),
  member("NeMoGymResponseMcpCall", McpCallSchema),
  member("NeMoGymResponseMcpListTools", McpListToolsSchema),
  member("NeMoGymResponseMcpApprovalRequest", McpApprovalRequestSchema),
] as const));

/** Output items use the very same union as input items in NeMo Gym. */
export const ResponseOutputItemSchema = ResponseInputItemSchema;

export type EasyInputMessage = z.output<typeof EasyInputMessageSchema>;
export type Message = z.output<typeof MessageSchema>;
export type OutputMessage = z.output<typeof OutputMessageSchema>;
export type FunctionCall = z.output<typeof FunctionCallSchema>;
export type FunctionCallOutput = z.output<typeof FunctionCallOutputSchema>;
export type ReasoningItem = z.output<typeof ReasoningItemSchema>;
export type McpCall = z.output<typeof McpCallSchema>;
export type McpListTools = z.output<typeof McpListToolsSchema>;
export type McpApprovalRequest = z.output<typeof McpApprovalRequestSchema>;
export type ResponseInputItem = z.output<typeof ResponseInputItemSchema>;
export type ResponseOutputItem = ResponseInputItem;
/** What callers may send (defaults such as `type` optional). */
export type ResponseInputItemInput = z.input<typeof ResponseInputItemSchema>;
