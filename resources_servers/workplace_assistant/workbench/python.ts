// The few Python and pandas semantics the WorkBench tools depend on, so their TS port decides exactly what the
// Python decides: truthiness, `str()`, `int()`, `==`, `str.lower`, `str.split`, floor division, slicing and
// `re` searches as pandas' `Series.str.contains(pattern, case=False)` runs them.
//
// Values are JSON values as `json.loads` gives them (a NaN or ±Infinity literal is a JS number); a CSV cell that
// pandas reads as NaN is `null`.
import { jsonTypeName as pyTypeName, jsonTruthy as truthy } from "../../../src/python/json-value.ts";
import { PyException } from "../../../src/python/exception.ts";

export const isStr = (value: unknown): value is string => typeof value === "string";

// Python's truthiness (and type names) of JSON values live in src/python/json-value.ts.
export { pyTypeName, truthy };

function floatRepr(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  return String(value);
}

/** `repr(value)` (used inside containers). */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return value.includes("'") && !value.includes('"') ? `"${value}"` : `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  return pyStr(value);
}

/** `str(value)`, as an f-string formats it; a missing CSV cell (NaN) formats as `nan`. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** An f-string of a table cell: pandas' NaN (our `null`) reads `nan`. */
export const cellStr = (cell: unknown): string => (cell === null ? "nan" : pyStr(cell));

/** `value.lower()`: AttributeError unless a str. */
export function lower(value: unknown): string {
  if (!isStr(value)) throw new PyException("AttributeError", `'${pyTypeName(value)}' object has no attribute 'lower'`);
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
  throw new PyException("TypeError", `argument of type '${pyTypeName(container)}' is not iterable`);
}

// Python's str.isspace() characters (what str.split() and str.strip() treat as whitespace).
const PY_WHITESPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const SPLIT = new RegExp(`${PY_WHITESPACE}+`);
const STRIP = new RegExp(`^${PY_WHITESPACE}+|${PY_WHITESPACE}+$`, "g");

/** `text.split()`. */
export const splitWhitespace = (text: string): string[] => text.split(SPLIT).filter((word) => word.length > 0);

/** `text.strip()`. */
export const strip = (text: string): string => text.replace(STRIP, "");

/** `text.isdigit()` (Unicode decimal digits). */
export const isDigits = (text: string): boolean => /^\p{Nd}+$/u.test(text);

/** Length in code points, as Python's `len(str)`. */
export const pyLen = (text: string): number => [...text].length;

/** `int(value)` for a JSON value. */
export function pyInt(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new PyException("ValueError", "cannot convert float NaN to integer");
    if (!Number.isFinite(value)) throw new PyException("OverflowError", "cannot convert float infinity to integer");
    return Math.trunc(value);
  }
  if (isStr(value)) {
    const text = strip(value);
    if (/^[+-]?\p{Nd}+(?:_\p{Nd}+)*$/u.test(text)) {
      const digits = [...text.replace(/_/g, "")].map((c) => (/\p{Nd}/u.test(c) ? String(digitValue(c)) : c)).join("");
      return Number.parseInt(digits, 10);
    }
    throw new PyException("ValueError", `invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  throw new PyException("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
}

// A Unicode decimal digit's value: decimal digits come in runs of ten starting at a code point ending in 0 or 6.
function digitValue(char: string): number {
  const code = char.codePointAt(0)!;
  for (let zero = code; zero > code - 10; zero--) {
    if (!/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) return code - zero;
  }
  return code % 10;
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

// ---- regular expressions, as `re.compile(pattern, re.IGNORECASE).search` ----

const regexCache = new Map<string, RegExp>();

/**
 * Python's `re` syntax mapped onto JS's where they differ: named groups, `\A`, `\Z`, a `$` that also matches before
 * a final newline, and possessive quantifiers (Python 3.11+; read as greedy, JS has none).
 */
function translatePattern(pattern: string): string {
  let out = "";
  let inClass = false;
  let afterQuantifier = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const quantified: boolean = afterQuantifier;
    afterQuantifier = false;
    if (!inClass && "*+?}".includes(char)) {
      if (char === "+" && quantified) continue; // possessive
      afterQuantifier = char !== "?" || !quantified;
      out += char;
      continue;
    }
    if (char === "\\") {
      const next = pattern[i + 1];
      if (!inClass && next === "A") out += "^";
      else if (!inClass && next === "Z") out += "$(?![\\s\\S])";
      else out += char + (next ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      out += char;
      continue;
    }
    if (char === "[") {
      inClass = true;
      out += char;
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") out += "\\" + pattern[++i]; // a leading ']' is literal in Python
      continue;
    }
    if (pattern.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
      continue;
    }
    if (pattern.startsWith("(?P=", i)) {
      const close = pattern.indexOf(")", i);
      out += `\\k<${pattern.slice(i + 4, close)}>`;
      i = close;
      continue;
    }
    out += char === "$" ? "(?=\\n?$)" : char;
  }
  return out;
}

/** `re.error`'s message for the common mistakes in a search term (positions as Python reports them). */
function regexErrorMessage(pattern: string): string {
  const open: number[] = [];
  let afterQuantifier: "no" | "greedy" | "lazy" = "no";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if ("*+?".includes(char)) {
      const previous = pattern[i - 1];
      if (i === 0 || previous === "(" || previous === "|") return `nothing to repeat at position ${i}`;
      if (afterQuantifier === "lazy" || (afterQuantifier === "greedy" && char !== "?")) return `multiple repeat at position ${i}`;
      afterQuantifier = afterQuantifier === "greedy" ? "lazy" : "greedy";
      continue;
    }
    afterQuantifier = "no";
    if (char === "\\") {
      if (i === pattern.length - 1) return `bad escape (end of pattern) at position ${i}`;
      i++;
    } else if (char === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) return `unterminated character set at position ${i}`;
      i = close;
    } else if (char === "(") {
      open.push(i);
      const extension = pattern[i + 2];
      if (pattern[i + 1] === "?" && extension !== undefined && !":P=!<#(>aiLmsux-".includes(extension)) return `unknown extension ?${extension} at position ${i + 1}`;
    }
    else if (char === ")") {
      if (open.length === 0) return `unbalanced parenthesis at position ${i}`;
      open.pop();
    }
  }
  if (open.length > 0) return `missing ), unterminated subpattern at position ${open[0]}`;
  return "bad pattern at position 0";
}

/** `re.compile(pattern, re.IGNORECASE)`; raises `re.error` for a pattern Python would refuse. */
export function pyRegex(pattern: string): RegExp {
  let regex = regexCache.get(pattern);
  if (regex) return regex;
  try {
    regex = new RegExp(translatePattern(pattern.replace(/^\(\?i\)/, "")), "i");
  } catch {
    throw new PyException("re.error", regexErrorMessage(pattern));
  }
  if (regexCache.size > 1000) regexCache.clear();
  regexCache.set(pattern, regex);
  return regex;
}

/**
 * `Series.str.contains(pattern, case=False)` for one cell: true/false, or `null` where pandas gives NaN (a missing
 * or non-string cell). A non-str pattern raises TypeError, as `re.compile` does.
 */
export function containsMatch(cell: unknown, pattern: unknown): boolean | null {
  if (!isStr(pattern)) throw new PyException("TypeError", "first argument must be string or compiled pattern");
  const regex = pyRegex(pattern);
  return isStr(cell) ? regex.test(cell) : null;
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
  throw new PyException("TypeError", `'<' not supported between instances of 'int' and '${pyTypeName(value)}'`);
}
