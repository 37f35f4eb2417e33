/**
 * The Anthropic Messages request as the `/v1/messages` ingress accepts it.
 *
 * NeMo Gym reads the raw request dict defensively and ignores fields it does not map (`stop_sequences`,
 * `metadata`, `top_k`, `thinking`, `stream`, `cache_control`, …), so every object here keeps unknown keys.
 * What it does read is checked up front: where NeMo Gym's converter would crash half-way (a 500 with a
 * Python repr), this answers a 422 whose `loc` names the offending field.
 */
import { z } from "zod";
import { stringOrList } from "../../python/pydantic/index.ts";
import { RequestValidationError, validationErrorFromZod } from "../../protocol/errors.ts";

/** Image media types Anthropic accepts; NeMo Gym rejects any other. */
export const ANTHROPIC_IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;

/** Roles NeMo Gym forwards as Responses message items (Anthropic itself only sends user/assistant). */
const MessageRoleSchema = z.enum(["user", "assistant", "system", "developer"]);

/**
 * A discriminated union whose unknown `type` is reported at `<block>.type`, listing the supported tags.
 */
function taggedUnion<const Options extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]]>(
  what: string,
  tags: readonly string[],
  options: Options,
) {
  const expected = tags.map((tag) => `'${tag}'`).join(", ");
  return z.discriminatedUnion("type", options, {
    error: (issue) => {
      if (issue.code !== "invalid_union") return undefined;
      const tag = (issue.input as { type?: unknown } | undefined)?.type;
      if (tag === undefined) return undefined; // reported as a missing `type` field
      const shown = typeof tag === "string" ? `'${tag}'` : JSON.stringify(tag);
      return `Input tag ${shown} found using 'type' does not match any of the expected tags: ${expected} (unsupported ${what})`;
    },
  });
}

// ---- content blocks ----

const TextBlockSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string().optional(),
});

const ImageBlockSchema = z.looseObject({
  type: z.literal("image"),
  // NeMo Gym supports inline base64 images only (no `url` or `file` sources).
  source: taggedUnion("image source", ["base64"], [
    z.looseObject({
      type: z.literal("base64"),
      media_type: z.enum(ANTHROPIC_IMAGE_MEDIA_TYPES),
      data: z.string(),
    }),
  ]),
});

const ToolUseBlockSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  // Serialised as given (NeMo Gym json.dumps whatever is there); absent means {}.
  input: z.unknown().optional(),
});

const ToolResultTextSchema = taggedUnion("tool_result content block", ["text"], [TextBlockSchema]);

const ToolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: stringOrList(ToolResultTextSchema).optional(),
});

const ThinkingBlockSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string().optional(),
  signature: z.string().nullable().optional(),
});

const CONTENT_BLOCK_TYPES = ["text", "image", "tool_use", "tool_result", "thinking"] as const;

export const ContentBlockSchema = taggedUnion("content block", CONTENT_BLOCK_TYPES, [
  TextBlockSchema,
  ImageBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
]);

export const MessageParamSchema = z.looseObject({
  role: MessageRoleSchema,
  // Absent content is an empty string message, as in NeMo Gym.
  content: stringOrList(ContentBlockSchema).optional(),
});

// ---- system, tools, tool_choice ----

/** Only `text` blocks contribute to the system prompt; other block types are skipped, as NeMo Gym does. */
const SystemBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
});

export const ToolParamSchema = z.looseObject({
  name: z.string(),
  description: z.string().nullable().optional(),
  input_schema: z.record(z.string(), z.unknown()).nullable().optional(),
});

const TOOL_CHOICE_TYPES = ["auto", "any", "tool", "none"] as const;

export const ToolChoiceParamSchema = taggedUnion("tool_choice", TOOL_CHOICE_TYPES, [
  z.looseObject({ type: z.literal("auto") }),
  z.looseObject({ type: z.literal("any") }),
  z.looseObject({ type: z.literal("tool"), name: z.string() }),
  z.looseObject({ type: z.literal("none") }),
]);

// ---- the request ----

/**
 * The fields the conversion reads. `messages` is required (as Anthropic requires it; NeMo Gym would
 * forward an empty conversation); `model` and `max_tokens` are optional, as NeMo Gym's converter treats them.
 */
export const AnthropicRequestSchema = z.looseObject({
  // Copied into the Responses params as sent (NeMo Gym reads them with `.get`); the params model
  // validates them there, in pydantic's lax mode ("0.5" is a temperature, "16" a token budget).
  model: z.unknown().optional(),
  messages: z.array(MessageParamSchema),
  system: stringOrList(SystemBlockSchema).nullable().optional(),
  max_tokens: z.unknown().optional(),
  temperature: z.unknown().optional(),
  top_p: z.unknown().optional(),
  tools: z.array(ToolParamSchema).nullable().optional(),
  tool_choice: ToolChoiceParamSchema.nullable().optional(),
});

export type AnthropicRequest = z.output<typeof AnthropicRequestSchema>;
export type AnthropicContentBlockParam = z.output<typeof ContentBlockSchema>;
export type AnthropicToolParam = z.output<typeof ToolParamSchema>;
export type AnthropicToolChoiceParam = z.output<typeof ToolChoiceParamSchema>;

/** Present, with any value: what the value may be is checked later (see `model` above). */
const present = z.custom<unknown>((value) => value !== undefined);

/**
 * What `/v1/messages` accepts at its door: Anthropic's API requires `model`, `max_tokens` and every message's
 * `content` (NeMo Gym's converter would forward a request without them; the converter here still reads them
 * leniently, as NeMo Gym's does).
 */
export const AnthropicIngressSchema = AnthropicRequestSchema.extend({
  model: present,
  max_tokens: present,
  messages: z.array(MessageParamSchema.extend({ content: stringOrList(ContentBlockSchema) })),
});

/** Validates an inbound Messages request as Anthropic's API does; a failure is a 422 naming each bad field. */
export function validateAnthropicIngress(body: unknown): void {
  parseWith(AnthropicIngressSchema, body);
}

/** Validates an inbound Messages request; a failure is a FastAPI-shaped 422 naming each bad field. */
export function parseAnthropicRequest(body: unknown): AnthropicRequest {
  return parseWith(AnthropicRequestSchema, body) as AnthropicRequest;
}

function parseWith(schema: z.ZodType, body: unknown): unknown {
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  // Some zod issues carry no input: report the value found at the field, as pydantic does, and an
  // absent field as pydantic's "missing" rather than a literal/enum mismatch on `undefined`.
  for (const issue of result.error.issues) {
    const found = valueAt(body, issue.path);
    if (found !== undefined) (issue as { input?: unknown }).input = found;
  }
  const { detail } = validationErrorFromZod(result.error, body);
  throw new RequestValidationError(
    detail.map((entry) =>
      entry.input === undefined
        ? { type: "missing", loc: entry.loc, msg: "Field required", input: valueAt(body, entry.loc.slice(1, -1)) ?? {} }
        : entry,
    ),
  );
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
