// Readable zod source for the value types `analyze.ts` derives, so a generated app declares its schemas the
// way the project's own environments do: `z.object({ word: z.string().describe("…") })`.
import type { Field, ValueType } from "./analyze.ts";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_LINE = 100;

export const propertyKey = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

function typeSource(type: ValueType, indent: string): string {
  switch (type.kind) {
    case "string":
      return "z.string()";
    case "number":
      return type.integer ? "z.number().int()" : "z.number()";
    case "boolean":
      return "z.boolean()";
    case "literal": {
      const values = type.values.map((v) => JSON.stringify(v));
      if (values.length === 1) return `z.literal(${values[0]})`;
      return type.values.every((v) => typeof v === "string") ? `z.enum([${values.join(", ")}])` : `z.literal([${values.join(", ")}])`;
    }
    case "array":
      return `z.array(${typeSource(type.items, indent)})`;
    case "nullable":
      return `${typeSource(type.inner, indent)}.nullable()`;
    case "object":
      return objectSource(type.fields, indent);
  }
}

function fieldSource(field: Field, indent: string): string {
  let source = typeSource(field.type, indent);
  if (field.optional) source += ".optional()";
  if (field.description) source += `.describe(${JSON.stringify(field.description)})`;
  return source;
}

/** `z.object({...})` on one line when it fits, else one property per line at `indent` + 2 spaces. */
export function objectSource(fields: Field[], indent = ""): string {
  if (fields.length === 0) return "z.object({})";
  const inner = `${indent}  `;
  const entries = fields.map((f) => `${propertyKey(f.name)}: ${fieldSource(f, inner)}`);
  const inline = `z.object({ ${entries.join(", ")} })`;
  if (inline.length + indent.length <= MAX_LINE && !inline.includes("\n")) return inline;
  return `z.object({\n${entries.map((e) => `${inner}${e},`).join("\n")}\n${indent}})`;
}
