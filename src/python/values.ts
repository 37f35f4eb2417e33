// The Python-value model: values as `json.loads` (json.ts) makes them and as the ported Python libraries hold
// them, with Python's builtins over them, each once: `type(v).__name__`, `str()`, `repr()`, `bool()`, `iter()`,
// `len()`, `==`, `<` / `sorted()`, `v[k]`, `in`, `sep.join()`.
//
//   None → null · bool → boolean · int → bigint · float → number · str → string · list → array · dict → Map
//
// A Map keeps insertion order (as a dict does, a repeated key keeping its first position and last value) and
// any key, `__proto__` included. A value outside the JSON types (a date, bytes, a set) is a PyOpaque. Plain
// JSON values as JSON.parse gives them are the other model, json-value.ts; fromJsonValue / toJsonValue cross.
import { IndexError, KeyError, ValueError } from "./exception.ts";
import { floatRepr } from "./float.ts";
import { pythonStringRepr } from "./repr.ts";
import { codePoints, compareStrings } from "./str.ts";

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

export const isPyDict = (value: unknown): value is PyDict => value instanceof Map;

/** A Python value outside the JSON types (datetime.date, datetime.datetime, datetime.time, bytes, set, …). */
export class PyOpaque {
  constructor(
    readonly typeName: string,
    /** Python's repr of the value (`datetime.date(2024, 1, 15)`). */
    readonly repr: string,
  ) {}
}

/**
 * What the builtins below accept: a PyValue, a PyOpaque, and containers of them keyed by any hashable value
 * (PyYAML's dicts may be keyed by an int or None: src/ports/structured/value.ts's StructuredValue).
 */
export type PyAny = PyValue | PyOpaque | readonly PyAny[] | ReadonlyMap<unknown, PyAny>;

/** `type(value).__name__`: `NoneType`, `bool`, `int`, `float`, `str`, `list`, `dict`, or the opaque type. */
export function pythonTypeName(value: PyAny): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (typeof value === "string") return "str";
  if (value instanceof PyOpaque) return value.typeName;
  return Array.isArray(value) ? "list" : "dict";
}

// ---- str(), repr() ----

/** `repr(value)`. */
export const pythonRepr = (value: PyAny): string => (typeof value === "string" ? pythonStringRepr(value) : value instanceof PyOpaque ? value.repr : pythonStr(value));

/** `str(value)`: a str is itself, a float prints as repr(float), containers hold their items' reprs. */
export function pythonStr(value: PyAny): string {
  // undefined (a path walk that found nothing) prints as None too.
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return value;
  if (value instanceof PyOpaque) return value.repr;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${[...(value as ReadonlyMap<unknown, PyAny>)].map(([k, v]) => `${pythonRepr(k as PyAny)}: ${pythonRepr(v)}`).join(", ")}}`;
}

// ---- bool(), iter(), len() ----

/** `bool(value)`: None, False, 0, 0.0, "", [] and {} are false (NaN is true, and so is any opaque value). */
export function pythonTruthy(value: PyAny): boolean {
  if (value === null || value === false) return false;
  if (value === true || value instanceof PyOpaque) return true;
  if (typeof value === "string") return value.length > 0;
  if (typeof value === "bigint") return value !== 0n;
  if (typeof value === "number") return value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  return (value as ReadonlyMap<unknown, PyAny>).size > 0;
}

/** `list(value)`: a list's items, a string's characters, a dict's keys; anything else raises TypeError. */
export function pythonIterate(value: PyValue): PyValue[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return codePoints(value);
  if (value instanceof Map) return [...value.keys()];
  throw new TypeError(`'${pythonTypeName(value)}' object is not iterable`);
}

/** `len(value)`. */
export function pythonLenOf(value: PyValue): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return codePoints(value).length;
  if (value instanceof Map) return value.size;
  throw new TypeError(`object of type '${pythonTypeName(value)}' has no len()`);
}

// ---- ==, < ----

/** `float(number)` compared exactly with an int, as Python does (no rounding of the int to a double). */
function intEqualsFloat(integer: bigint, float: number): boolean {
  return Number.isInteger(float) && BigInt(float) === integer;
}

/** A bool, int or float as the number Python compares it as (True is 1); undefined for any other value. */
export const asNumber = (value: PyValue): bigint | number | undefined =>
  typeof value === "boolean" ? (value ? 1n : 0n) : typeof value === "bigint" || typeof value === "number" ? value : undefined;

/**
 * Python's `a == b`: `1 == 1.0 == True`, deep equality of lists and dicts, `NaN != NaN`. Inside a list or dict
 * two NaNs are equal: Python compares container items by identity first, and every NaN `json.loads` makes is
 * the one `json.decoder.NaN` object.
 */
export function pythonEquals(a: PyValue, b: PyValue): boolean {
  return equals(a, b, false);
}

function equals(a: PyValue, b: PyValue, inContainer: boolean): boolean {
  const numberA = asNumber(a);
  const numberB = asNumber(b);
  if (numberA !== undefined || numberB !== undefined) {
    if (numberA === undefined || numberB === undefined) return false;
    if (typeof numberA === "bigint") return typeof numberB === "bigint" ? numberA === numberB : intEqualsFloat(numberA, numberB);
    if (typeof numberB === "bigint") return intEqualsFloat(numberB, numberA);
    return numberA === numberB || (inContainer && Number.isNaN(numberA) && Number.isNaN(numberB) && typeof a === "number" && typeof b === "number");
  }
  if (a === null || b === null || typeof a === "string" || typeof b === "string") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => equals(item, b[i]!, true));
  }
  if (!isPyDict(a) || !isPyDict(b) || a.size !== b.size) return false;
  for (const [key, item] of a) {
    if (!b.has(key) || !equals(item, b.get(key)!, true)) return false;
  }
  return true;
}

/** `a < b` of an int and a float, exactly (no rounding of the int). */
function numberLess(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === "number" && typeof b === "number") return a < b;
  if (typeof a === "bigint" && typeof b === "bigint") return a < b;
  const float = (typeof a === "number" ? a : b) as number;
  const integer = (typeof a === "bigint" ? a : b) as bigint;
  if (Number.isNaN(float)) return false;
  if (!Number.isFinite(float)) return typeof a === "number" ? float < 0 : float > 0;
  // Compare against the float's floor: exact for every finite double.
  const floor = BigInt(Math.floor(float));
  const fractional = float !== Math.floor(float);
  return typeof a === "bigint" ? integer < floor || (integer === floor && fractional) : floor < integer;
}

/** Python's `a < b`; a comparison Python refuses (None, dicts, mixed types) throws its TypeError. */
export function pythonLess(a: PyValue, b: PyValue): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return numberLess(x, y);
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b) < 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (!pythonEquals(a[i]!, b[i]!)) return pythonLess(a[i]!, b[i]!);
    return a.length < b.length;
  }
  throw new TypeError(`'<' not supported between instances of '${pythonTypeName(a)}' and '${pythonTypeName(b)}'`);
}

/** `sorted(values, key=key)`: stable, ordered by `<`. */
export function pythonSorted<T>(values: readonly T[], key: (value: T) => PyValue = (value) => value as PyValue): T[] {
  const keyed = values.map((value) => ({ value, key: key(value) }));
  keyed.sort((a, b) => (pythonLess(b.key, a.key) ? 1 : pythonLess(a.key, b.key) ? -1 : 0));
  return keyed.map(({ value }) => value);
}

// ---- v[k], in, join ----

/** `container[key]`: a dict by key (KeyError when missing), a list or str by int index (negative from the end). */
export function pythonGetItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof Map) {
    if (Array.isArray(key) || key instanceof Map) throw new TypeError(`unhashable type: '${pythonTypeName(key)}'`);
    if (typeof key === "string" && container.has(key)) return container.get(key)!;
    throw new KeyError(pythonRepr(key));
  }
  if (Array.isArray(container) || typeof container === "string") {
    const kind = typeof container === "string" ? "string" : "list";
    if (typeof key !== "bigint" && typeof key !== "boolean") {
      throw new TypeError(kind === "list" ? `list indices must be integers or slices, not ${pythonTypeName(key)}` : `string indices must be integers, not '${pythonTypeName(key)}'`);
    }
    const items = typeof container === "string" ? codePoints(container) : container;
    const index = typeof key === "boolean" ? (key ? 1 : 0) : Number(key);
    const position = index < 0 ? items.length + index : index;
    if (position < 0 || position >= items.length) throw new IndexError(`${kind} index out of range`);
    return items[position]!;
  }
  throw new TypeError(`'${pythonTypeName(container)}' object is not subscriptable`);
}

/** `item in container`: list membership by `==`, substring of a str (a non-str item raises), a dict's keys. */
export function pythonContains(container: PyValue, item: PyValue): boolean {
  if (Array.isArray(container)) return container.some((element) => pythonEquals(element, item));
  if (typeof container === "string") {
    if (typeof item !== "string") throw new TypeError(`'in <string>' requires string as left operand, not ${pythonTypeName(item)}`);
    return container.includes(item);
  }
  if (container instanceof Map) {
    if (Array.isArray(item) || item instanceof Map) throw new TypeError(`unhashable type: '${pythonTypeName(item)}'`);
    return typeof item === "string" && container.has(item);
  }
  throw new TypeError(`argument of type '${pythonTypeName(container)}' is not iterable`);
}

/** `separator.join(items)`: every item must be a str. */
export function pythonJoin(separator: string, items: readonly PyValue[]): string {
  return items
    .map((item, i) => {
      if (typeof item !== "string") throw new TypeError(`sequence item ${i}: expected str instance, ${pythonTypeName(item)} found`);
      return item;
    })
    .join(separator);
}

// ---- crossing to and from the JSON-value model ----

/**
 * A value that arrived as ordinary JSON (a request body) as Python would hold it. JSON.parse has already
 * merged `1` and `1.0`, so integral numbers become ints; Python's `==` treats both alike anyway.
 */
export function fromJsonValue(value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean" || typeof value === "string" || typeof value === "bigint") return value;
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(fromJsonValue);
  if (value instanceof Map) return value as PyDict;
  return new Map(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, fromJsonValue(item)]));
}

/**
 * A Python value as a JSON-ready JS value, as FastAPI would serialize it. Ints beyond 2^53 lose digits (JS
 * numbers); a NaN or infinite float throws, as Starlette's `json.dumps(allow_nan=False)` does (a 500), unless
 * `allowNan` keeps it as the JS number (the JSON-value model holds NaN and ±Infinity as numbers).
 */
export function toJsonValue(value: PyValue, options: { allowNan?: boolean } = {}): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value) && !options.allowNan) throw new ValueError("Out of range float values are not JSON compliant");
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item, options));
  if (isPyDict(value)) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) Object.defineProperty(object, key, { value: toJsonValue(item, options), enumerable: true, writable: true, configurable: true });
    return object;
  }
  return value;
}
