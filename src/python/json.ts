// JSON as Python's `json.loads` reads it, for verifiers that must judge values the way NeMo Gym's Python
// verifiers do. `JSON.parse` cannot: it turns `5` and `5.0` into the same number (Python: int vs float),
// loses digits of big integers, and refuses `NaN` / `Infinity`, which Python accepts. The values it makes are
// values.ts's PyValue model (None → null · bool → boolean · int → bigint · float → number · str → string ·
// list → array · dict → Map).
import { PyJsonDecodeError, ValueError } from "./exception.ts";
import type { PyDict, PyValue } from "./values.ts";

// CPython refuses to convert integer strings longer than this (a ValueError, not a JSONDecodeError).
const INT_MAX_STR_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * `json.loads(text)` with CPython's scanner rules: JSON plus `NaN`, `Infinity`, `-Infinity`; a number with a
 * fraction or exponent is a float, otherwise an int; raw control characters in strings are refused (strict).
 * Throws {@link PyJsonDecodeError} where Python raises `JSONDecodeError`.
 */
export function pythonJsonLoads(text: string): PyValue {
  let position = 0;

  const skipWhitespace = () => {
    WHITESPACE.lastIndex = position;
    WHITESPACE.exec(text);
    position = WHITESPACE.lastIndex;
  };
  const fail = (reason: string, at: number): never => {
    throw new PyJsonDecodeError(reason, text, at);
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
    const digits = match[0].replace("-", "").length;
    if (digits > INT_MAX_STR_DIGITS) {
      throw new ValueError(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`);
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
