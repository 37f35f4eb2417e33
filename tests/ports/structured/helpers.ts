// Parsed Python values as plain JSON for assertions: dicts as [key, value] pairs (keys may be non-strings and
// order matters), ints as {int}, floats as {float}, non-JSON values as {opaque}.
import { PyOpaque } from "../../../src/python/values.ts";
import { floatRepr } from "../../../src/python/float.ts";
import type { StructuredValue } from "../../../src/ports/structured/value.ts";

export function plain(value: StructuredValue): unknown {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "bigint") return { int: String(value) };
  if (typeof value === "number") return { float: floatRepr(value) };
  if (value instanceof PyOpaque) return { opaque: value.typeName };
  if (Array.isArray(value)) return value.map(plain);
  return [...value].map(([key, item]) => [plain(key as StructuredValue), plain(item)]);
}

/** A dict of strings (xmltodict, csv) as a plain object, for readable expectations. */
export function asObject(value: StructuredValue): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), asObject(item)]));
  if (Array.isArray(value)) return value.map(asObject);
  return value;
}
