// `openapi_schema_validator.validate(instance, schema)` (0.6.3: OAS31Validator = JSON Schema 2020-12) with
// Ajv's 2020-12 validator. As in Python: the schema is first checked against the 2020-12 meta-schema (an
// invalid one is a SchemaError), `format` is an annotation only (no format checker is passed), `nullable` is
// not a keyword (OAS 3.0's, which Ajv would otherwise honour), a root `$schema` does not change the dialect,
// and a Python value outside the JSON types (a date, bytes) matches no `type`.
import Ajv2020Module from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { isPyDict, type PyValue, PyOpaque } from "../../python/values.ts";
import { bestMatchMessage } from "./jsonschema-errors.ts";
import { compilePythonRegex } from "../../python/re/index.ts";
import { isDict, type StructuredValue } from "./value.ts";

const Ajv2020 = Ajv2020Module.default;
// jsonschema checks `pattern` and `patternProperties` with Python's `re.search`: `\d` and `\w` are Unicode-wide,
// `$` matches before a final newline, `\Z` exists. Ajv takes the regex engine as an option.
const pythonRegExp = Object.assign((pattern: string) => {
  const compiled = compilePythonRegex(pattern);
  // Ajv shares compiled patterns by their toString().
  return { test: (text: string) => compiled.search(text) !== undefined, toString: () => pattern };
}, { code: "pythonRegExp" });
const newAjv = () => new Ajv2020({ strict: false, validateFormats: false, allErrors: true, code: { regExp: pythonRegExp } });
let ajv = newAjv();

export class SchemaValidationError extends Error {
  constructor(
    override readonly name: "ValidationError" | "SchemaError",
    message: string,
  ) {
    super(message);
  }
}

const SCHEMA_KEYWORDS = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"];
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/** A JSON Schema (parsed by python-json) as the plain object Ajv compiles, `nullable` dropped from subschemas. */
function schemaForAjv(schema: PyValue, root = false): unknown {
  if (typeof schema === "bigint") return Number(schema);
  if (Array.isArray(schema)) return schema.map((item) => schemaForAjv(item));
  if (!isPyDict(schema)) return schema;
  const object: Record<string, unknown> = {};
  for (const [key, value] of schema) {
    if (key === "nullable" || (root && key === "$schema")) continue;
    let converted: unknown;
    if (SCHEMA_MAP_KEYWORDS.includes(key) && isPyDict(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, subschema] of value) define(map, name, schemaForAjv(subschema));
      converted = map;
    } else if (SCHEMA_KEYWORDS.includes(key) || SCHEMA_LIST_KEYWORDS.includes(key)) converted = schemaForAjv(value);
    else converted = plainJson(value);
    define(object, key, converted);
  }
  return object;
}

function plainJson(value: PyValue): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (isPyDict(value)) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) define(object, key, plainJson(item));
    return object;
  }
  return value;
}

const define = (object: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });

// A key Python would not find under any property name (an int, None or date key of PyYAML / csv.DictReader).
const foreignKey = (key: unknown) => `\u0000${String(key)}`;

/** The instance as Ajv sees it: dicts as objects, ints as numbers, non-JSON values as symbols (no type). */
function instanceForAjv(value: StructuredValue): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof PyOpaque) return Symbol(value.typeName);
  if (Array.isArray(value)) return value.map(instanceForAjv);
  if (isDict(value)) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) define(object, typeof key === "string" ? key : foreignKey(key), instanceForAjv(item));
    return object;
  }
  return value;
}

/** The value at a local JSON pointer (`#/$defs/addr`) of the schema. */
function resolvePointer(root: PyValue, ref: string): PyValue | undefined {
  let node: PyValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    const segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = isPyDict(node) ? node.get(segment) : Array.isArray(node) ? node[Number(segment)] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

// jsonschema reports an error found through a `$ref` at the referring location (`schema['properties']['work']
// …`), Ajv at the target (`#/$defs/addr/…`): a `{"$ref": "#/…"}` alone is replaced by its target (not inside
// itself, so recursive schemas keep their `$ref`), and both see the same paths.
function inlineLocalRefs(node: PyValue, root: PyValue, expanding: Set<string> = new Set()): PyValue {
  if (Array.isArray(node)) return node.map((item) => inlineLocalRefs(item, root, expanding));
  if (!isPyDict(node)) return node;
  const ref = node.get("$ref");
  if (node.size === 1 && typeof ref === "string" && ref.startsWith("#/") && !expanding.has(ref)) {
    const target = resolvePointer(root, ref);
    if (target !== undefined) return inlineLocalRefs(target, root, new Set([...expanding, ref]));
  }
  const copy = new Map<string, PyValue>();
  for (const [key, value] of node) {
    const holdsSchemas = SCHEMA_KEYWORDS.includes(key) || SCHEMA_LIST_KEYWORDS.includes(key);
    if (SCHEMA_MAP_KEYWORDS.includes(key) && isPyDict(value)) copy.set(key, new Map([...value].map(([name, sub]) => [name, inlineLocalRefs(sub, root, expanding)])));
    else copy.set(key, holdsSchemas ? inlineLocalRefs(value, root, expanding) : value);
  }
  return copy;
}

const compiled = new Map<string, { validate: ValidateFunction; schema: PyValue }>();
const CACHE_LIMIT = 512;

function compile(cacheKey: string, original: PyValue): { validate: ValidateFunction; schema: PyValue } {
  const cached = compiled.get(cacheKey);
  if (cached) return cached;
  const schema = inlineLocalRefs(original, original);
  const ajvSchema = schemaForAjv(schema, true) as object | boolean;
  let validate: ValidateFunction;
  try {
    validate = compileWith(ajvSchema);
  } catch (error) {
    throw new SchemaValidationError("SchemaError", (error as Error).message);
  }
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
  compiled.set(cacheKey, { validate, schema });
  return { validate, schema };
}

function compileWith(schema: object | boolean): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    // Two schemas with the same `$id` cannot live in one Ajv instance; Python validates each on its own.
    if (!/already exists/.test((error as Error).message)) throw error;
    ajv = newAjv();
    return ajv.compile(schema);
  }
}

/**
 * Validates the instance; throws {@link SchemaValidationError} (`ValidationError` or `SchemaError`) on failure.
 * `cacheKey` identifies the schema (its source text), so each distinct schema is compiled once.
 */
export function validateAgainstSchema(instance: StructuredValue, schema: PyValue, cacheKey: string): void {
  const { validate, schema: resolved } = compile(cacheKey, schema);
  if (validate(instanceForAjv(instance))) return;
  throw new SchemaValidationError("ValidationError", bestMatchMessage(validate.errors!, resolved, instance));
}
