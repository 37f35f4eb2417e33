// The JSON-value model: Python's builtins over values as JSON.parse gives them (request bodies, dataset rows),
// each once: `type(v).__name__`, `str()`, `repr()`, `bool()`, `iter()`, `==`, `<`. JSON.parse has merged `1` and
// `1.0`, so a whole number is taken for an int (prints `1`), any other number for a float (prints as Python's
// repr(float)); null is None, an object a dict. Values from `pythonJsonLoads`, which keep int and float apart,
// are the other model: values.ts.
import { floatRepr } from "./float.ts";
import { pythonStringRepr } from "./repr.ts";
import { KeyError } from "./exception.ts";
import { pythonJsonLoads } from "./json.ts";
import { fromJsonValue, pythonEquals, pythonGetItem, pythonLess, toJsonValue } from "./values.ts";

/** `type(value).__name__` of a JSON value: a number is an int or a float by whether it is whole. */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

/** `str(value)`: `None`, `True`, `1`, `0.5`, `1e-07`, a str as itself, `[1, 'a']`, `{'k': None}`. */
export function jsonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return `[${value.map(jsonRepr).join(", ")}]`;
  return `{${Object.entries(value as object)
    .map(([k, v]) => `${pythonStringRepr(k)}: ${jsonRepr(v)}`)
    .join(", ")}}`;
}

/** `repr(value)`: a str quoted and escaped as Python does, anything else as `str()`. */
export const jsonRepr = (value: unknown): string => (typeof value === "string" ? pythonStringRepr(value) : jsonStr(value));

/** `bool(value)`: null, false, 0, "", [] and {} are false (NaN is true, as in Python). */
export function jsonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** `list(value)`: a list's items, a string's characters, a dict's keys; else Python's TypeError. */
export function jsonIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new TypeError(`'${jsonTypeName(value)}' object is not iterable`);
}

/** `a == b` (`1 == 1.0 == True`, deep on lists and dicts). */
export const jsonEquals = (a: unknown, b: unknown): boolean => pythonEquals(fromJsonValue(a), fromJsonValue(b));

/** `a < b`; a comparison Python refuses (None, dicts, mixed types) throws its TypeError. */
export const jsonLess = (a: unknown, b: unknown): boolean => pythonLess(fromJsonValue(a), fromJsonValue(b));

/** `value[key]` with a str key: a dict's item, KeyError when missing; any other type raises what Python raises. */
export function jsonGetItem(value: unknown, key: string): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if (!Object.hasOwn(value, key)) throw new KeyError(pythonStringRepr(key));
    return (value as Record<string, unknown>)[key];
  }
  // Not a dict: a str key fails on every other type, as it does on the same value in the Python-value model.
  return pythonGetItem(fromJsonValue(value), key);
}

/**
 * `json.loads(text)` as JSON values: Python's reader (NaN, Infinity and -Infinity accepted, its JSONDecodeError
 * otherwise), with ints as JS numbers. A repeated key keeps its last value, `__proto__` is an ordinary key.
 */
export const jsonLoads = (text: string): unknown => toJsonValue(pythonJsonLoads(text), { allowNan: true });
