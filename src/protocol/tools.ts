/**
 * Responses API tools and tool_choice, in two flavours:
 * - request params (openai-python TypedDicts: unknown keys dropped, optional keys stay absent);
 * - the echo inside a Response (openai-python models: unknown keys kept, optional keys dumped as null).
 *
 * Only function tools are modelled field by field: they are what Gym
 * environments use. Hosted tool types are accepted by `type` and passed
 * through unchanged.
 */
import { z } from "zod";
import { nullDefault } from "../python/pydantic/index.ts";

const HOSTED_TOOL_TYPES = [
  "file_search",
  "computer_use_preview",
  "web_search",
  "web_search_2025_08_26",
  "mcp",
  "code_interpreter",
  "image_generation",
  "local_shell",
  "custom",
  "web_search_preview",
  "web_search_preview_2025_03_11",
] as const;

const HostedToolSchema = z.looseObject({ type: z.enum(HOSTED_TOOL_TYPES) });

/**
 * `FunctionToolParam`. `parameters` and `strict` are required keys that may be
 * null: a tool written without `"strict"` is a 422 in NeMo Gym.
 */
export const FunctionToolSchema = z.object({
  name: z.string(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  strict: z.boolean().nullable(),
  type: z.literal("function"),
  description: z.string().nullable().optional(),
});
export type FunctionTool = z.output<typeof FunctionToolSchema>;

export const ToolSchema = z.discriminatedUnion("type", [FunctionToolSchema, HostedToolSchema]);
export type Tool = z.output<typeof ToolSchema>;

/** `FunctionTool` as echoed in a Response (openai model: defaults dumped as null). */
export const ResponseFunctionToolSchema = z.looseObject({
  name: z.string(),
  parameters: nullDefault(z.record(z.string(), z.unknown())),
  strict: nullDefault(z.boolean()),
  type: z.literal("function"),
  description: nullDefault(z.string()),
});

export const ResponseToolSchema = z.discriminatedUnion("type", [ResponseFunctionToolSchema, HostedToolSchema]);
export type ResponseTool = z.output<typeof ResponseToolSchema>;

// ---- tool_choice ----

const ToolChoiceOptionsSchema = z.enum(["none", "auto", "required"]);

const HOSTED_TOOL_CHOICE_TYPES = [
  "file_search",
  "web_search_preview",
  "computer_use_preview",
  "web_search_preview_2025_03_11",
  "image_generation",
  "code_interpreter",
] as const;

const AllowedToolsShape = {
  mode: z.enum(["auto", "required"]),
  tools: z.array(z.record(z.string(), z.unknown())),
  type: z.literal("allowed_tools"),
};
const HostedToolChoiceShape = { type: z.enum(HOSTED_TOOL_CHOICE_TYPES) };
const FunctionToolChoiceShape = { name: z.string(), type: z.literal("function") };
const CustomToolChoiceShape = { name: z.string(), type: z.literal("custom") };

/** `ToolChoice` request param (TypedDicts). */
export const ToolChoiceSchema = z.union([
  ToolChoiceOptionsSchema,
  z.discriminatedUnion("type", [
    z.object(AllowedToolsShape),
    z.object(HostedToolChoiceShape),
    z.object(FunctionToolChoiceShape),
    z.object({ server_label: z.string(), type: z.literal("mcp"), name: z.string().nullable().optional() }),
    z.object(CustomToolChoiceShape),
  ]),
]);
export type ToolChoice = z.output<typeof ToolChoiceSchema>;

/** `tool_choice` as echoed in a Response (openai models). */
export const ResponseToolChoiceSchema = z.union([
  ToolChoiceOptionsSchema,
  z.discriminatedUnion("type", [
    z.looseObject(AllowedToolsShape),
    z.looseObject(HostedToolChoiceShape),
    z.looseObject(FunctionToolChoiceShape),
    z.looseObject({ server_label: z.string(), type: z.literal("mcp"), name: nullDefault(z.string()) }),
    z.looseObject(CustomToolChoiceShape),
  ]),
]);
export type ResponseToolChoice = z.output<typeof ResponseToolChoiceSchema>;
