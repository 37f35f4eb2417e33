// The few Python and pandas semantics the WorkBench tools depend on, so their TS port decides exactly what the
// Python decides: `int()` of a cell, `==` with pandas' NaN, `str.lower`, floor division, slicing and `re`
// searches as pandas' `Series.str.contains(pattern, case=False)` runs them. Python's own builtins (truthiness,
// `str()`, `repr()`, `int(str)`, `re`, str methods) are src/python's JSON-value model, used from there.
//
// Values are JSON values as `json.loads` gives them (a NaN or ±Infinity literal is a JS number); a CSV cell that
// pandas reads as NaN is `null`.
import { jsonStr, jsonTypeName } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";
import { pythonInt } from "../../../src/python/numbers.ts";
import { compilePythonRegex } from "../../../src/python/re/index.ts";

export const isStr = (value: unknown): value is string => typeof value === "string";

/** An f-string of a table cell: pandas' NaN (our `null`) reads `nan`. */
export const cellStr = (cell: unknown): string => (cell === null ? "nan" : jsonStr(cell));

/** `value.lower()`: AttributeError unless a str. */
export function lower(value: unknown): string {
  if (!isStr(value)) throw new PyException("AttributeError", `'${jsonTypeName(value)}' object has no attribute 'lower'`);
  return value.toLowerCase();
}

/**
 * `a == b` between a table cell and an argument. A missing cell (pandas' NaN) equals nothing; the tools test a
 * None argument for truthiness before comparing it, so None never reaches here.
 */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return false;
  const number = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean")) return number(a) === number(b);
  if (typeof a !== typeof b) return false;
  if (typeof a !== "object") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => pyEquals(item, b[i]));
  }
  const aKeys = Object.keys(a as object);
  const bRecord = b as Record<string, unknown>;
  return aKeys.length === Object.keys(bRecord).length && aKeys.every((key) => Object.hasOwn(bRecord, key) && pyEquals((a as Record<string, unknown>)[key], bRecord[key]));
}

/** `item in container` where the container is an argument the model sent (a str, list or dict). */
export function pyIn(item: string, container: unknown): boolean {
  if (isStr(container)) return container.includes(item);
  if (Array.isArray(container)) return container.some((element) => pyEquals(element, item));
  if (container !== null && typeof container === "object") return Object.hasOwn(container, item);
  throw new PyException("TypeError", `argument of type '${jsonTypeName(container)}' is not iterable`);
}

/** `text.isdigit()` (Unicode decimal digits). */
export const isDigits = (text: string): boolean => /^\p{Nd}+$/u.test(text);

/** `int(value)` for a JSON value. */
export function pyInt(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new PyException("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(value)) throw new PyException("OverflowError", "cannot convert float infinity to integer");
    return Math.trunc(value);
  }
  if (isStr(value)) return pythonInt(value);
  throw new PyException("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${jsonTypeName(value)}'`);
}

/** `a // b` for ints. */
export function floorDiv(a: number, b: number): number {
  if (b === 0) throw new PyException("ZeroDivisionError", "integer division or modulo by zero");
  return Math.floor(a / b);
}

/** `list[start:end]` with Python's negative-index semantics. */
export function pySlice<T>(list: T[], start: number, end: number): T[] {
  const at = (i: number) => (i < 0 ? Math.max(0, list.length + i) : Math.min(i, list.length));
  return list.slice(at(start), at(end));
}

/** The page arithmetic every paginated search shares (`page_size` 0 raises ZeroDivisionError, as in Python). */
export function paginate<T>(items: T[], page: number, pageSize: number): { items: T[]; page: number; totalPages: number } {
  const totalPages = floorDiv(items.length + pageSize - 1, pageSize);
  const current = totalPages > 0 ? Math.max(1, Math.min(page, totalPages)) : 1;
  const start = (current - 1) * pageSize;
  const end = Math.min(start + pageSize, items.length);
  return { items: pySlice(items, start, end), page: current, totalPages };
}

/**
 * `Series.str.contains(pattern, case=False)` for one cell: true/false, or `null` where pandas gives NaN (a missing
 * or non-string cell). pandas runs `re.compile(pattern, re.IGNORECASE).search`; a pattern Python refuses raises
 * its re.error, a non-str pattern TypeError, as `re.compile` does.
 */
export function containsMatch(cell: unknown, pattern: unknown): boolean | null {
  if (!isStr(pattern)) throw new PyException("TypeError", "first argument must be string or compiled pattern");
  const regex = compilePythonRegex(pattern, { ignoreCase: true });
  return isStr(cell) ? regex.search(cell) !== undefined : null;
}

/** pandas' boolean mask from `str.contains`: a NaN in the mask cannot index a frame. */
export function requireBooleanMask(mask: (boolean | null)[]): boolean[] {
  if (mask.some((value) => value === null)) throw new PyException("ValueError", "Cannot mask with non-boolean array containing NA / NaN values");
  return mask as boolean[];
}

/** A Python `try: ... except Exception as e: return f"{prefix}: {e}"` around a tool body. */
export function guarded<T>(prefix: string, body: () => T): T | string {
  try {
    return body();
  } catch (error) {
    if (error instanceof PyException) return `${prefix}: ${error.message}`;
    throw error;
  }
}

/** An int argument used in arithmetic (`page`, `page_size`): Python does no conversion, so a str fails to compare. */
export function intArg(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "number") throw new PyException("TypeError", "slice indices must be integers or None or have an __index__ method");
  throw new PyException("TypeError", `'<' not supported between instances of 'int' and '${jsonTypeName(value)}'`);
}
