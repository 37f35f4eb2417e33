// A tool's parameter schema is read by the model server (heuristics, grammars, chat templates) as JSON
// Schema. A schema whose keywords have the wrong shape (`"required": 1`) is the caller's mistake, answered
// at the door with a 422 naming the keyword, as OpenAI answers 400 "Invalid schema for function …", instead
// of a TypeError deep inside a server (a 500 the collector would retry as the agent's fault).
import { RequestValidationError, type ValidationDetail } from "../protocol/errors.ts";

type Loc = (string | number)[];
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isSchema = (value: unknown) => isObject(value) || typeof value === "boolean";

const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const;
const SCHEMA_VALUES = ["additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems"] as const;

/** Every keyword-shape problem in `schema` (a JSON Schema object), each with its location under `at`. */
export function toolSchemaProblems(schema: Json, at: Loc): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const problem = (loc: Loc, msg: string, input: unknown) => problems.push({ type: "value_error", loc, msg: `Value error, invalid JSON Schema: ${msg}`, input });
  // An explicit stack: a schema may nest as deep as the body limit allows.
  const pending: { node: unknown; loc: Loc }[] = [{ node: schema, loc: at }];
  while (pending.length > 0) {
    const { node, loc } = pending.pop()!;
    if (typeof node === "boolean") continue;
    if (!isObject(node)) {
      problem(loc, "a schema must be an object or a boolean", node);
      continue;
    }
    const { required, type, enum: allowed, items } = node;
    if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === "string"))) {
      problem([...loc, "required"], "'required' must be a list of property names", required);
    }
    if (type !== undefined && typeof type !== "string" && !(Array.isArray(type) && type.every((name) => typeof name === "string"))) {
      problem([...loc, "type"], "'type' must be a type name or a list of them", type);
    }
    if (allowed !== undefined && !Array.isArray(allowed)) problem([...loc, "enum"], "'enum' must be a list", allowed);
    if (items !== undefined) {
      if (Array.isArray(items)) items.forEach((item, i) => pending.push({ node: item, loc: [...loc, "items", i] }));
      else pending.push({ node: items, loc: [...loc, "items"] });
    }
    for (const key of SCHEMA_LISTS) {
      const list = node[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) problem([...loc, key], `'${key}' must be a list of schemas`, list);
      else list.forEach((item, i) => pending.push({ node: item, loc: [...loc, key, i] }));
    }
    for (const key of SCHEMA_MAPS) {
      const map = node[key];
      if (map === undefined) continue;
      if (!isObject(map)) problem([...loc, key], `'${key}' must be an object of schemas`, map);
      else for (const [name, item] of Object.entries(map)) pending.push({ node: item, loc: [...loc, key, name] });
    }
    for (const key of SCHEMA_VALUES) {
      const value = node[key];
      if (value === undefined) continue;
      if (!isSchema(value)) problem([...loc, key], `'${key}' must be a schema`, value);
      else pending.push({ node: value, loc: [...loc, key] });
    }
  }
  return problems;
}

/**
 * Checks the parameter schema of every tool in `tools` (as validated; other shapes were refused before);
 * `schemaOf` picks a tool's schema and its location inside the tool. Throws a 422 listing each problem.
 */
export function checkToolSchemas(tools: unknown, schemaOf: (tool: Json) => { schema: unknown; at: Loc } | undefined): void {
  if (!Array.isArray(tools)) return;
  const problems = tools.flatMap((tool, index) => {
    if (!isObject(tool)) return [];
    const found = schemaOf(tool);
    if (!found || !isObject(found.schema)) return [];
    return toolSchemaProblems(found.schema, ["body", "tools", index, ...found.at]);
  });
  if (problems.length > 0) throw new RequestValidationError(problems);
}

/** Where each dialect keeps a tool's schema. */
export const responsesToolSchema = (tool: Json) => (tool.type === "function" ? { schema: tool.parameters, at: ["parameters"] } : undefined);
export const chatToolSchema = (tool: Json) => (isObject(tool.function) ? { schema: tool.function.parameters, at: ["function", "parameters"] } : undefined);
export const anthropicToolSchema = (tool: Json) => ({ schema: tool.input_schema, at: ["input_schema"] });
