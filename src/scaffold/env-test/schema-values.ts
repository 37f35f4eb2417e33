// Values derived from a tool's JSON Schema (as GET /tools serves it): a valid input — the required fields with
// type-appropriate values, an enum's first value — and, per field, a value of a type the schema forbids.

export type JsonSchema = Record<string, unknown>;
type JsonType = "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";

const MAX_DEPTH = 12;
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`); anything else is returned as it is. */
function resolveRef(schema: unknown, root: unknown): unknown {
  let node = schema;
  for (let hops = 0; isObject(node) && typeof node.$ref === "string" && hops < MAX_DEPTH; hops++) {
    const ref = node.$ref as string;
    if (!ref.startsWith("#")) return node;
    let target: unknown = root;
    for (const part of ref.slice(1).split("/").filter(Boolean)) target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    node = target;
  }
  return node;
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  return "object";
}

/** The JSON types a schema accepts, or "any" when it does not restrict the type. */
function acceptedTypes(schema: unknown, root: unknown, depth = 0): Set<JsonType> | "any" {
  const node = resolveRef(schema, root);
  if (!isObject(node) || depth > MAX_DEPTH) return "any";
  if ("const" in node) return new Set([typeOfValue(node.const)]);
  if (Array.isArray(node.enum)) return new Set(node.enum.map(typeOfValue));
  if (typeof node.type === "string") return new Set([node.type as JsonType]);
  if (Array.isArray(node.type)) return new Set(node.type as JsonType[]);
  const branches = (Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined) as unknown[] | undefined;
  if (branches) {
    const union = new Set<JsonType>();
    for (const branch of branches) {
      const types = acceptedTypes(branch, root, depth + 1);
      if (types === "any") return "any";
      types.forEach((t) => union.add(t));
    }
    return union;
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) return acceptedTypes(node.allOf[0], root, depth + 1);
  if (isObject(node.properties)) return new Set(["object"]);
  if (node.items !== undefined) return new Set(["array"]);
  return "any";
}

function accepts(types: Set<JsonType>, value: unknown): boolean {
  const type = typeOfValue(value);
  return types.has(type) || (type === "integer" && types.has("number"));
}

const WRONG_TYPE_CANDIDATES: { value: unknown; described: string }[] = [
  { value: "not-a-valid-value", described: "a string" },
  { value: 12345, described: "a number" },
  { value: true, described: "a boolean" },
  { value: ["x"], described: "a list" },
  { value: { x: 1 }, described: "an object" },
  { value: null, described: "null" },
];

/** A value whose JSON type the field's schema does not accept, or undefined when it accepts every type. */
export function wrongTypeValue(fieldSchema: unknown, root: unknown): { value: unknown; described: string; expected: string } | undefined {
  const types = acceptedTypes(fieldSchema, root);
  if (types === "any") return undefined;
  const candidate = WRONG_TYPE_CANDIDATES.find((c) => !accepts(types, c.value));
  return candidate && { ...candidate, expected: [...types].join(" or ") };
}

/** Strings tried, in order, against a `pattern` (an example that matches it is rare to guess otherwise). */
const STRING_CANDIDATES = ["example", "a", "A", "1", "abc", "ABC", "2024-01-01", "2024-01-01T00:00:00Z", "user@example.com", "https://example.com", "00000000-0000-4000-8000-000000000000"];

const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2024-01-01T00:00:00Z",
  date: "2024-01-01",
  time: "00:00:00",
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
  ipv4: "127.0.0.1",
  ipv6: "::1",
};

function exampleString(node: Record<string, unknown>): string {
  const minLength = typeof node.minLength === "number" ? node.minLength : 0;
  const maxLength = typeof node.maxLength === "number" ? node.maxLength : Infinity;
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
  const format = typeof node.format === "string" ? FORMAT_EXAMPLES[node.format] : undefined;
  if (typeof node.pattern === "string") {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(node.pattern, "u");
    } catch {
      pattern = undefined;
    }
    const match = [...(format ? [format] : []), ...STRING_CANDIDATES].find((s) => fits(s) && (!pattern || pattern.test(s)));
    if (match) return match;
  }
  if (format && fits(format)) return format;
  if (fits("example")) return "example";
  return "a".repeat(Math.max(minLength, Math.min(1, maxLength)));
}

function exampleNumber(node: Record<string, unknown>, integer: boolean): number {
  const num = (key: string) => (typeof node[key] === "number" ? (node[key] as number) : undefined);
  const step = num("multipleOf") ?? (integer ? 1 : undefined);
  let value: number;
  const minimum = num("minimum");
  const exclusiveMinimum = num("exclusiveMinimum");
  const maximum = num("maximum") ?? (num("exclusiveMaximum") !== undefined ? num("exclusiveMaximum")! - (step ?? 1e-6) : undefined);
  if (minimum !== undefined) value = minimum;
  else if (exclusiveMinimum !== undefined) value = exclusiveMinimum + (step ?? 1e-6);
  else value = maximum !== undefined && maximum < 1 ? maximum : 1;
  if (step !== undefined) value = Math.ceil(value / step - 1e-9) * step;
  return integer ? Math.ceil(value) : value;
}

/** A value the schema accepts: required properties only, an enum's first value, bounds and formats honoured. */
export function exampleValue(schema: unknown, root: unknown = schema, depth = 0): unknown {
  const node = resolveRef(schema, root);
  if (!isObject(node) || depth > MAX_DEPTH) return "example";
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if ("default" in node) return node.default;
  const branches = (Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined) as unknown[] | undefined;
  if (branches && branches.length > 0) {
    // A real value rather than null when the field is merely nullable.
    const preferred = branches.find((b) => !(isObject(resolveRef(b, root)) && (resolveRef(b, root) as JsonSchema).type === "null")) ?? branches[0];
    return exampleValue(preferred, root, depth + 1);
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) return exampleValue(node.allOf[0], root, depth + 1);

  const declared = Array.isArray(node.type) ? ((node.type as string[]).find((t) => t !== "null") ?? node.type[0]) : node.type;
  const type = declared ?? (isObject(node.properties) ? "object" : node.items !== undefined || node.prefixItems !== undefined ? "array" : undefined);
  switch (type) {
    case "string":
      return exampleString(node);
    case "integer":
      return exampleNumber(node, true);
    case "number":
      return exampleNumber(node, false);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      if (Array.isArray(node.prefixItems)) return node.prefixItems.map((item) => exampleValue(item, root, depth + 1));
      const maxItems = typeof node.maxItems === "number" ? node.maxItems : Infinity;
      const length = Math.min(Math.max(typeof node.minItems === "number" ? node.minItems : 0, 1), maxItems);
      return Array.from({ length }, () => exampleValue(node.items, root, depth + 1));
    }
    case "object": {
      const properties = isObject(node.properties) ? node.properties : {};
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      const extra = isObject(node.additionalProperties) ? node.additionalProperties : undefined;
      return Object.fromEntries(required.map((key) => [key, exampleValue(properties[key] ?? extra, root, depth + 1)]));
    }
    default:
      return "example";
  }
}

/** The required top-level fields of an object schema, each with its own schema. */
export function requiredFields(schema: JsonSchema): { name: string; schema: unknown }[] {
  const node = resolveRef(schema, schema);
  if (!isObject(node) || !Array.isArray(node.required)) return [];
  const properties = isObject(node.properties) ? node.properties : {};
  return (node.required as unknown[]).filter((name): name is string => typeof name === "string").map((name) => ({ name, schema: properties[name] }));
}
