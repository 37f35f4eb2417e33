// OpenAI function-tool definitions generated from the same zod schema that validates the tool's input,
// so the schema a model is shown and the schema the server enforces cannot drift apart (unless a tool says
// otherwise, explicitly, with its own shown schema).
import { z } from "zod";

export interface FunctionToolDefinition {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

const SAFE_INT_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's JSON Schema minus its noise: no $schema, no ±2^53 integer bounds; objects always list `required`. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if ((key === "minimum" || key === "maximum") && SAFE_INT_BOUNDS.has(value as number)) continue;
    out[key] = tidy(value);
  }
  if (out.type === "object" && out.properties !== undefined && out.required === undefined) {
    const { additionalProperties, ...rest } = out;
    return { ...rest, required: [], ...(additionalProperties === undefined ? {} : { additionalProperties }) };
  }
  return out;
}

export function toolJsonSchema(input: z.ZodType): Record<string, unknown> {
  const schema = tidy(z.toJSONSchema(input, { io: "input", unrepresentable: "any" })) as Record<string, unknown>;
  // OpenAI strict mode wants a closed object at the top level.
  if (schema.type === "object") schema.additionalProperties = false;
  return schema;
}

/** A JSON Schema written out by hand, served as it is written. */
export type JsonSchemaObject = Record<string, unknown>;

/** What a tool's `parameters` are generated from: a zod schema (converted) or a JSON Schema (verbatim). */
export type ToolParametersSource = z.ZodType | JsonSchemaObject;

const isZodSchema = (value: ToolParametersSource): value is z.ZodType => "_zod" in value;

export function toolParameters(source: ToolParametersSource): Record<string, unknown> {
  return isZodSchema(source) ? toolJsonSchema(source) : structuredClone(source);
}

export function functionToolDefinition(name: string, description: string | undefined, parameters: ToolParametersSource, strict = true): FunctionToolDefinition {
  return { type: "function", name, description: description ?? "", parameters: toolParameters(parameters), strict };
}
