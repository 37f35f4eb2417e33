// JSON as Python's `json.loads` reads it, for verifiers that must judge values the way NeMo Gym's Python
// verifiers do. `JSON.parse` cannot: it turns `5` and `5.0` into the same number (Python: int vs float),
// loses digits of big integers, and refuses `NaN` / `Infinity`, which Python accepts.
//
// Python values map to TS values one to one:
//   None → null · bool → boolean · int → bigint · float → number · str → string · list → array · dict → Map
// A Map keeps insertion order (as a dict does, a repeated key keeping its first position and last value) and
// any key, `__proto__` included.

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

export const isPyDict = (value: unknown): value is PyDict => value instanceof Map;

/** Python's type name for a value: `NoneType`, `bool`, `int`, `float`, `str`, `list`, `dict`. */
export function pythonTypeName(value: PyValue): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

/** `json.JSONDecodeError`: the message reads as Python's, e.g. `Expecting value: line 1 column 1 (char 0)`. */
export class PythonJsonDecodeError extends Error {
  override readonly name = "JSONDecodeError";
  constructor(
    readonly reason: string,
    readonly document: string,
    readonly position: number,
  ) {
    const line = countNewlines(document, position) + 1;
    const column = position - document.lastIndexOf("\n", position - 1);
    super(`${reason}: line ${line} column ${column} (char ${position})`);
  }
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) count++;
  return count;
}

// CPython refuses to convert integer strings longer than this (a ValueError, not a JSONDecodeError).
const INT_MAX_STR_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * `json.loads(text)` with CPython's scanner rules: JSON plus `NaN`, `Infinity`, `-Infinity`; a number with a
 * fraction or exponent is a float, otherwise an int; raw control characters in strings are refused (strict).
 * Throws {@link PythonJsonDecodeError} where Python raises `JSONDecodeError`.
 */
export function pythonJsonLoads(text: string): PyValue {
  let position = 0;

  const skipWhitespace = () => {
    WHITESPACE.lastIndex = position;
    WHITESPACE.exec(text);
    position = WHITESPACE.lastIndex;
  };
  const fail = (reason: string, at: number): never => {
    throw new PythonJsonDecodeError(reason, text, at);
  };
  const startsWithAt = (word: string, at: number) => text.startsWith(word, at);

  function parseValue(): PyValue {
    const start = position;
    const char = text[position];
    if (char === '"') return parseString();
    if (char === "{") return parseObject();
    if (char === "[") return parseArray();
    if (char === "n" && startsWithAt("null", start)) return advance(4, null);
    if (char === "t" && startsWithAt("true", start)) return advance(4, true);
    if (char === "f" && startsWithAt("false", start)) return advance(5, false);
    if (char === "N" && startsWithAt("NaN", start)) return advance(3, Number.NaN);
    if (char === "I" && startsWithAt("Infinity", start)) return advance(8, Number.POSITIVE_INFINITY);
    if (char === "-" && startsWithAt("-Infinity", start)) return advance(9, Number.NEGATIVE_INFINITY);
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(text);
    if (!match) return fail("Expecting value", start);
    position = NUMBER.lastIndex;
    if (match[1] !== undefined || match[2] !== undefined) return Number(match[0]);
    if (match[0].replace("-", "").length > INT_MAX_STR_DIGITS) {
      throw new Error(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion`);
    }
    return BigInt(match[0]);
  }

  function advance<T extends PyValue>(length: number, value: T): T {
    position += length;
    return value;
  }

  function parseString(): string {
    const start = position; // the opening quote
    position++;
    let value = "";
    for (;;) {
      const char = text[position];
      if (char === undefined) return fail("Unterminated string starting at", start);
      if (char === '"') {
        position++;
        return value;
      }
      if (char === "\\") {
        const escape = text[position + 1];
        if (escape === undefined) return fail("Unterminated string starting at", start);
        if (escape === "u") {
          const hex = text.slice(position + 2, position + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return fail("Invalid \\uXXXX escape", position + 1);
          // A surrogate pair is two UTF-16 code units here and one code point in Python: the same text.
          value += String.fromCharCode(Number.parseInt(hex, 16));
          position += 6;
          continue;
        }
        const decoded = ESCAPES[escape];
        if (decoded === undefined) return fail("Invalid \\escape", position);
        value += decoded;
        position += 2;
        continue;
      }
      if (char.charCodeAt(0) < 0x20) return fail("Invalid control character at", position);
      value += char;
      position++;
    }
  }

  function parseObject(): PyDict {
    const dict: PyDict = new Map();
    position++;
    skipWhitespace();
    if (text[position] === "}") return advance(1, dict);
    for (;;) {
      if (text[position] !== '"') return fail("Expecting property name enclosed in double quotes", position);
      const key = parseString();
      skipWhitespace();
      if (text[position] !== ":") return fail("Expecting ':' delimiter", position);
      position++;
      skipWhitespace();
      dict.set(key, parseValue());
      skipWhitespace();
      const next = text[position];
      position++;
      if (next === "}") return dict;
      if (next !== ",") return fail("Expecting ',' delimiter", position - 1);
      skipWhitespace();
    }
  }

  function parseArray(): PyValue[] {
    const list: PyValue[] = [];
    position++;
    skipWhitespace();
    if (text[position] === "]") return advance(1, list);
    for (;;) {
      list.push(parseValue());
      skipWhitespace();
      const next = text[position];
      position++;
      if (next === "]") return list;
      if (next !== ",") return fail("Expecting ',' delimiter", position - 1);
      skipWhitespace();
    }
  }

  if (text.startsWith("\ufeff")) fail("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
  skipWhitespace();
  const value = parseValue();
  skipWhitespace();
  if (position !== text.length) fail("Extra data", position);
  return value;
}

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
 * numbers); a NaN or infinite float throws, as Starlette's `json.dumps(allow_nan=False)` does (a 500).
 */
export function toJsonValue(value: PyValue): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("Out of range float values are not JSON compliant");
    return value;
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (isPyDict(value)) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) Object.defineProperty(object, key, { value: toJsonValue(item), enumerable: true, writable: true, configurable: true });
    return object;
  }
  return value;
}

/** `float(number)` compared exactly with an int, as Python does (no rounding of the int to a double). */
function intEqualsFloat(integer: bigint, float: number): boolean {
  return Number.isInteger(float) && BigInt(float) === integer;
}

/** A bool, int or float as the number Python compares it as (True is 1); undefined for any other value. */
export const asNumber = (value: PyValue): bigint | number | undefined =>
  typeof value === "boolean" ? (value ? 1n : 0n) : typeof value === "bigint" || typeof value === "number" ? value : undefined;

/**
 * Python's `a == b` on JSON values: `1 == 1.0 == True`, deep equality of lists and dicts, `NaN != NaN`. Inside a
 * list or dict two NaNs are equal: Python compares container items by identity first, and every NaN `json.loads`
 * makes is the one `json.decoder.NaN` object.
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
