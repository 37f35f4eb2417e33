// The error Python's jsonschema raises, rebuilt from Ajv's errors (collected with allErrors): errors are put in
// the order jsonschema's iter_errors yields them (schema keywords in the schema's key order, array items by
// index), additionalProperties extras merged into one error, anyOf/oneOf branch errors nested as the
// error's context, then `best_match` picks one and `str(error)` is written as jsonschema writes it:
//   <message>\n\nFailed validating '<keyword>' in schema[…]:\n    <pformat(subschema)>\n\nOn instance[…]:\n    <pformat(value)>
import type { ErrorObject } from "ajv";
import { isPyDict, type PyValue, pythonRepr } from "../../python/values.ts";
import { pformat } from "./pformat.ts";
import { isDict, type StructuredValue } from "./value.ts";

type PathItem = string | number;

interface PyError {
  keyword: string;
  message: string;
  /** Relative to the parent error (the anyOf/oneOf it is context of), or absolute at the top. */
  schemaPath: PathItem[];
  instancePath: PathItem[];
  /** The subschema holding the keyword. */
  schema: StructuredValue;
  instance: StructuredValue;
  context: PyError[];
  order: number[];
}

const WEAK = new Set(["anyOf", "oneOf"]);

function pointerSegments(pointer: string): string[] {
  return pointer === "" || pointer === "#" ? [] : pointer.replace(/^#/, "").split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** Walks a value by pointer segments; list indices become numbers. */
function walk(root: StructuredValue, segments: string[]): { value: StructuredValue; path: PathItem[] } {
  let node = root;
  const path: PathItem[] = [];
  for (const segment of segments) {
    if (Array.isArray(node)) {
      path.push(Number(segment));
      node = node[Number(segment)]!;
    } else {
      path.push(segment);
      node = isDict(node) ? node.get(segment)! : (undefined as never);
    }
  }
  return { value: node, path };
}

/** jsonschema's iteration position of an error: schema key order, with array items in instance order. */
function iterationOrder(schema: PyValue, schemaPath: PathItem[], instance: StructuredValue, instancePath: PathItem[]): number[] {
  const order: number[] = [];
  let node: PyValue | undefined = schema;
  let depth = 0;
  for (let i = 0; i < schemaPath.length; i++) {
    const segment = schemaPath[i]!;
    if (isPyDict(node)) {
      order.push([...node.keys()].indexOf(String(segment)));
      const child: PyValue | undefined = node.get(String(segment));
      if ((segment === "items" || segment === "additionalProperties") && depth < instancePath.length) {
        const at = walk(instance, instancePath.slice(0, depth).map(String)).value;
        const step = instancePath[depth]!;
        order.push(typeof step === "number" ? step : isDict(at) ? [...at.keys()].indexOf(step) : 0);
        depth++;
      } else if (segment === "properties" && isPyDict(child) && i + 1 < schemaPath.length) {
        order.push([...child.keys()].indexOf(String(schemaPath[i + 1])));
        node = child.get(String(schemaPath[i + 1]));
        i++;
        depth++;
        continue;
      }
      node = child;
    } else if (Array.isArray(node)) {
      order.push(Number(segment));
      node = node[Number(segment)];
    }
  }
  return order;
}

function compareOrder(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const typeList = (type: unknown): string[] => (Array.isArray(type) ? type.map(String) : String(type).split(","));

/** jsonschema's type checker (draft 2020-12) on a parsed value. */
function isType(value: StructuredValue, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
    case "number":
      return typeof value === "bigint" || typeof value === "number";
    case "array":
      return Array.isArray(value);
    case "object":
      return isDict(value);
    default:
      return false;
  }
}

function matchesType(error: PyError): boolean {
  if (!isDict(error.schema) || !error.schema.has("type")) return false;
  const expected = error.schema.get("type")!;
  return typeof expected === "string" ? isType(error.instance, expected) : Array.isArray(expected) ? expected.some((t) => isType(error.instance, String(t))) : false;
}

/** Python's comparison of two paths (deques of str/int). */
function comparePaths(a: PathItem[], b: PathItem[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** jsonschema's `relevance` key, compared: negative when a < b. */
function compareRelevance(a: PyError, b: PyError): number {
  if (a.instancePath.length !== b.instancePath.length) return b.instancePath.length - a.instancePath.length;
  const byPath = comparePaths(a.instancePath, b.instancePath);
  if (byPath !== 0) return byPath;
  const weak = (e: PyError) => (WEAK.has(e.keyword) ? 0 : 1);
  if (weak(a) !== weak(b)) return weak(a) - weak(b);
  const mismatch = (e: PyError) => (matchesType(e) ? 0 : 1);
  return mismatch(a) - mismatch(b);
}

function bestMatch(errors: PyError[]): PyError | undefined {
  let best: PyError | undefined;
  for (const error of errors) if (best === undefined || compareRelevance(error, best) > 0) best = error;
  while (best && best.context.length > 0) {
    const sorted = [...best.context].sort((x, y) => compareRelevance(x, y));
    if (sorted.length >= 2 && compareRelevance(sorted[0]!, sorted[1]!) === 0) return best;
    best = sorted[0]!;
  }
  return best;
}

function message(error: ErrorObject, schema: StructuredValue, instance: StructuredValue, extras: string[]): string {
  const value = pythonRepr(instance);
  const keywordValue = isDict(schema) ? schema.get(error.keyword) : undefined;
  const limit = keywordValue === undefined ? undefined : pythonRepr(keywordValue);
  const n = Number(keywordValue ?? 0);
  switch (error.keyword) {
    case "required":
      return `${pythonRepr(String((error.params as { missingProperty: string }).missingProperty))} is a required property`;
    case "additionalProperties": {
      const sorted = [...extras].sort();
      return `Additional properties are not allowed (${sorted.map((e) => pythonRepr(e)).join(", ")} ${sorted.length === 1 ? "was" : "were"} unexpected)`;
    }
    case "type":
      return `${value} is not of type ${typeList((error.params as { type: unknown }).type).map((t) => pythonRepr(t)).join(", ")}`;
    case "enum":
      return `${value} is not one of ${limit}`;
    case "const":
      return `${limit} was expected`;
    case "minimum":
      return `${value} is less than the minimum of ${limit}`;
    case "maximum":
      return `${value} is greater than the maximum of ${limit}`;
    case "exclusiveMinimum":
      return `${value} is less than or equal to the minimum of ${limit}`;
    case "exclusiveMaximum":
      return `${value} is greater than or equal to the maximum of ${limit}`;
    case "multipleOf":
      return `${value} is not a multiple of ${limit}`;
    case "minLength":
    case "minItems":
      return `${value} ${n === 1 ? "should be non-empty" : "is too short"}`;
    case "maxLength":
    case "maxItems":
      return `${value} ${n === 0 ? "is expected to be empty" : "is too long"}`;
    case "minProperties":
      return `${value} ${n === 1 ? "should be non-empty" : "does not have enough properties"}`;
    case "maxProperties":
      return `${value} ${n === 0 ? "is expected to be empty" : "has too many properties"}`;
    case "uniqueItems":
      return `${value} has non-unique elements`;
    case "pattern":
      return `${value} does not match ${limit}`;
    case "not":
      return `${value} should not be valid under ${limit}`;
    case "anyOf":
      return `${value} is not valid under any of the given schemas`;
    case "oneOf": {
      const passing = (error.params as { passingSchemas?: number[] | null }).passingSchemas;
      if (!passing) return `${value} is not valid under any of the given schemas`;
      const branches = Array.isArray(keywordValue) ? passing.map((i) => pythonRepr(keywordValue[i]!)) : [];
      return `${value} is valid under each of ${branches.join(", ")}`;
    }
    case "false schema":
      return `False schema does not allow ${value}`;
    default:
      return `${value} ${error.message ?? "is not valid"}`;
  }
}

/** `str(best_match(errors))` for Ajv's errors on this instance and (strictified) schema. */
export function bestMatchMessage(ajvErrors: ErrorObject[], schema: PyValue, instance: StructuredValue): string {
  const all: (PyError & { absoluteSchema: string; absoluteInstance: PathItem[] })[] = [];
  const merged = new Map<string, { error: ErrorObject; extras: string[] }>();
  for (const error of ajvErrors) {
    if (error.keyword === "additionalProperties") {
      const key = `${error.schemaPath}|${error.instancePath}`;
      const extra = String((error.params as { additionalProperty: string }).additionalProperty);
      if (merged.has(key)) {
        merged.get(key)!.extras.push(extra);
        continue;
      }
      merged.set(key, { error, extras: [extra] });
    }
    // Ajv also reports the if/then/contains sub-failures jsonschema keeps inside one error.
    if (/\/(?:if|then|else|contains|not)\//.test(error.schemaPath)) continue;
    const schemaSegments = pointerSegments(error.schemaPath);
    const keywordSchema = walk(schema, schemaSegments.slice(0, -1)).value;
    const { value, path: instancePath } = walk(instance, pointerSegments(error.instancePath));
    const schemaPath = walk(schema, schemaSegments).path;
    all.push({
      keyword: error.keyword,
      message: "",
      schemaPath,
      instancePath,
      schema: keywordSchema,
      instance: value,
      context: [],
      order: iterationOrder(schema, schemaPath, instance, instancePath),
      absoluteSchema: error.schemaPath,
      absoluteInstance: instancePath,
      ...{ ajv: error },
    } as never);
  }
  for (const error of all as (PyError & { ajv: ErrorObject; absoluteSchema: string; absoluteInstance: PathItem[] })[]) {
    const extras = merged.get(`${error.ajv.schemaPath}|${error.ajv.instancePath}`)?.extras ?? [];
    error.message = message(error.ajv, error.schema, error.instance, extras);
  }
  all.sort((a, b) => compareOrder(a.order, b.order));

  // Nest branch errors under their anyOf/oneOf, innermost first, paths made relative to it.
  const top = new Set(all);
  const branching = all.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf").sort((a, b) => b.absoluteSchema.length - a.absoluteSchema.length);
  for (const parent of branching) {
    for (const child of all) {
      if (child === parent || !top.has(child) || !child.absoluteSchema.startsWith(`${parent.absoluteSchema}/`)) continue;
      top.delete(child);
      parent.context.push(child);
    }
    parent.context.sort((a, b) => compareOrder(a.order, b.order));
    for (const child of parent.context) {
      child.schemaPath = child.schemaPath.slice(parent.schemaPath.length);
      child.instancePath = child.instancePath.slice(parent.instancePath.length);
    }
  }
  const best = bestMatch([...top]);
  if (!best) return "validation failed";
  const index = (container: string, path: PathItem[]) => (path.length === 0 ? container : `${container}[${path.map((p) => (typeof p === "number" ? String(p) : pythonRepr(p))).join("][")}]`);
  const pretty = (value: StructuredValue) => pformat(value).split("\n").join("\n    ");
  return `${best.message}\n\nFailed validating ${pythonRepr(best.keyword)} in ${index("schema", best.schemaPath.slice(0, -1))}:\n    ${pretty(best.schema)}\n\nOn ${index("instance", best.instancePath)}:\n    ${pretty(best.instance)}`;
}
