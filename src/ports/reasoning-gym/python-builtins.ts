// Python builtins whose exact results the scorers depend on: `<` between parsed values (with the TypeErrors of
// mixed types), `sorted()`, and the equality of two `json.dumps` texts. (`sum()` of floats is in python-float.ts.)
import { asNumber, pythonEquals, pythonTypeName, type PyValue } from "../../python/json.ts";
import { floatRepr, pythonStr } from "../../python/values.ts";
import { codePoints, compareStrings } from "../../python/str.ts";
import { KeyError } from "./types.ts";

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

/**
 * A text equal for two values exactly when their `json.dumps` texts are equal: ints and floats apart (`1` vs
 * `1.0`), dict keys in order, every NaN alike.
 */
export function dumpsKey(value: PyValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(dumpsKey).join(",")}]`;
  return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${dumpsKey(v)}`).join(",")}}`;
}

// ---- indexing, iteration and membership on parsed values, with the exceptions Python raises ----

export class IndexError extends Error {
  override name = "IndexError";
}

/** Python's truthiness: None, False, 0, 0.0, "", [] and {} are false (NaN is true). */
export const pyTruthy = (value: PyValue): boolean =>
  value === null ? false : Array.isArray(value) ? value.length > 0 : value instanceof Map ? value.size > 0 : typeof value === "number" ? value !== 0 : Boolean(value) && value !== 0n;

/** `for x in value`: a list's items, a string's characters, a dict's keys; anything else raises TypeError. */
export function pyIter(value: PyValue): PyValue[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return codePoints(value);
  if (value instanceof Map) return [...value.keys()];
  throw new TypeError(`'${pythonTypeName(value)}' object is not iterable`);
}

/** `len(value)`. */
export function pyLen(value: PyValue): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return codePoints(value).length;
  if (value instanceof Map) return value.size;
  throw new TypeError(`object of type '${pythonTypeName(value)}' has no len()`);
}

/** `value[i]` for a non-negative int: IndexError past the end, KeyError on a dict (its keys are strings), else TypeError. */
export function pyIndex(value: PyValue, i: number): PyValue {
  if (Array.isArray(value) || typeof value === "string") {
    const items = typeof value === "string" ? codePoints(value) : value;
    if (i >= items.length) throw new IndexError("index out of range");
    return items[i]!;
  }
  if (value instanceof Map) throw new KeyError(String(i));
  throw new TypeError(`'${pythonTypeName(value)}' object is not subscriptable`);
}

/** `item in container`: list membership by `==`, substring of a str (a non-str item raises), a dict's keys. */
export function pyContains(container: PyValue, item: PyValue): boolean {
  if (Array.isArray(container)) return container.some((element) => pythonEquals(element, item));
  if (typeof container === "string") {
    if (typeof item !== "string") throw new TypeError("'in <string>' requires string as left operand");
    return container.includes(item);
  }
  if (container instanceof Map) {
    if (Array.isArray(item) || item instanceof Map) throw new TypeError("unhashable type");
    return typeof item === "string" && container.has(item);
  }
  throw new TypeError(`argument of type '${pythonTypeName(container)}' is not iterable`);
}

/** `"".join(items)` / `sep.join(items)`: every item must be a str. */
export function pyJoin(separator: string, items: readonly PyValue[]): string {
  return items
    .map((item) => {
      if (typeof item !== "string") throw new TypeError(`sequence item: expected str instance, ${pythonTypeName(item)} found`);
      return item;
    })
    .join(separator);
}

/** `str.splitlines()`: every line boundary Python knows, `\r\n` as one. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** `container[key]`: a dict by key (a missing one is KeyError), a list or str by int index (negative from the end). */
export function pyGetItem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof Map) {
    if (Array.isArray(key) || key instanceof Map) throw new TypeError("unhashable type");
    if (typeof key === "string" && container.has(key)) return container.get(key)!;
    throw new KeyError(pythonStr(key));
  }
  if (Array.isArray(container) || typeof container === "string") {
    if (typeof key !== "bigint" && typeof key !== "boolean") throw new TypeError("indices must be integers or slices");
    const items = typeof container === "string" ? codePoints(container) : container;
    const index = typeof key === "boolean" ? (key ? 1 : 0) : Number(key);
    const position = index < 0 ? items.length + index : index;
    if (position < 0 || position >= items.length) throw new IndexError("index out of range");
    return items[position]!;
  }
  throw new TypeError(`'${pythonTypeName(container)}' object is not subscriptable`);
}
