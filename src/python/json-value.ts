// Small pieces of Python semantics on JSON values (as JSON.parse reads them) that NeMo Gym's metrics, converters
// and verifiers depend on and JavaScript spells differently.
import { pythonStr as pythonStrOfValue } from "./values.ts";
import { compareStrings } from "./str.ts";

/** Python's truthiness of a JSON value: null, false, 0, "", [] and {} are false (NaN is true, as in Python). */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * Python's `str()` of a JSON scalar read with `JSON.parse` (`True`/`False` for booleans); numbers print as
 * JavaScript does and other values as JSON. For values from `pythonJsonLoads` (ints, floats, dicts, None),
 * use src/python/values.ts's `pythonStr`, to which strings and booleans are delegated here.
 */
export function pythonStr(value: unknown): string {
  if (typeof value === "string" || typeof value === "boolean") return pythonStrOfValue(value);
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** Python's `sorted` order for strings: by code point (JavaScript's `<` compares UTF-16 code units). */
export const comparePython = compareStrings;

/** `type(value).__name__` of a JSON value: a number is an int or a float by whether it is whole. */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

/** `list(value)` of a JSON value: a list's items, a string's characters, a dict's keys; else Python's TypeError. */
export function pythonIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new TypeError(`'${jsonTypeName(value)}' object is not iterable`);
}
