// Python's builtins on the values `pythonJsonLoads` makes, for verifiers that must print, convert and index
// them the way NeMo Gym's Python does: `repr(float)`, `repr(complex)`, `str()`, `int(str)`, `float()` and
// `d[key]` (str methods are in python-str.ts).
//
// Values are those of src/python/json.ts (None → null, int → bigint, float → number, dict → Map). `str()` and
// `d[key]` also take plain JSON objects, since rows posted to /verify arrive as ordinary JSON.
import { PYTHON_NUMBER_SPACE_CHARS } from "./chars.ts";
import { pythonTypeName, type PyValue } from "./json.ts";
import { stripWhere } from "./str.ts";

/** Python's ValueError; the message is Python's str() of it. */
export class ValueError extends Error {
  override name = "ValueError";
}

/** Python's OverflowError. */
export class OverflowError extends Error {
  override name = "OverflowError";
}

// ---- repr() and str() ----

/** Shortest round-trip digits of |x| (finite, non-zero) with Python's decimal-point position: |x| = 0.d1d2… × 10^point. */
function shortestDigits(x: number): { digits: string; point: number } {
  let text = String(Math.abs(x));
  let exponent = 0;
  const e = text.indexOf("e");
  if (e >= 0) {
    exponent = Number(text.slice(e + 1));
    text = text.slice(0, e);
  }
  const dot = text.indexOf(".");
  const integer = dot >= 0 ? text.slice(0, dot) : text;
  let digits = integer + (dot >= 0 ? text.slice(dot + 1) : "");
  let point = integer.length + exponent;
  const leadingZeros = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(leadingZeros).replace(/0+$/, "");
  point -= leadingZeros;
  return { digits, point };
}

/** `repr(x)` (= `str(x)`) of a float; `addDotZero: false` is the form complex repr uses (`1` rather than `1.0`). */
export function floatRepr(x: number, addDotZero = true): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0${addDotZero ? ".0" : ""}`;
  const { digits, point } = shortestDigits(x);
  // Python switches to exponent form outside 1e-4 ≤ |x| < 1e16.
  if (point <= -4 || point > 16) {
    const exponent = point - 1;
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}${addDotZero ? ".0" : ""}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `repr(complex(re, im))`: `(1.5+2j)`, or just `2j` when the real part is +0. */
export function complexRepr(re: number, im: number): string {
  const imaginarySign = im < 0 || Object.is(im, -0) ? "-" : "+";
  const imaginary = floatRepr(Number.isNaN(im) ? im : Math.abs(im), false);
  if (re === 0 && !Object.is(re, -0)) return `${im < 0 || Object.is(im, -0) ? "-" : ""}${imaginary}j`;
  return `(${floatRepr(re, false)}${imaginarySign}${imaginary}j)`;
}

// Characters Python's repr() escapes: not printable (control, format, surrogate, private, unassigned, separators but space).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `repr(text)`: single quotes unless the text has `'` and no `"`; `\xhh`, `\uhhhh`, `\Uhhhhhhhh` for the unprintable. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = "";
  for (const ch of text) {
    if (ch === quote) body += `\\${ch}`;
    else if (SIMPLE_ESCAPES[ch] !== undefined) body += SIMPLE_ESCAPES[ch];
    else if (ch !== " " && NON_PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!;
      body += code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
    } else body += ch;
  }
  return quote + body + quote;
}

/** A Python value outside the JSON types (datetime.date, datetime.datetime, datetime.time, bytes, set, …). */
export class PyOpaque {
  constructor(
    readonly typeName: string,
    /** Python's repr of the value (`datetime.date(2024, 1, 15)`). */
    readonly repr: string,
  ) {}
}

/** Python's `repr(value)` of a parsed value. */
export const pythonRepr = (value: unknown): string => (typeof value === "string" ? pythonStringRepr(value) : value instanceof PyOpaque ? value.repr : pythonStr(value));

/** Python's `str(value)` of a parsed value (a plain JSON object prints as the dict it would be; not for a PyOpaque). */
export function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const entries = value instanceof Map ? [...value] : Object.entries(value as object);
  return `{${entries.map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
}

// ---- d[key] ----

/** `value[key]` with a str key: a dict's item; a missing key or any other type raises what Python raises. */
export function pythonGetItem(value: unknown, key: string): unknown {
  if (value instanceof Map) {
    if (!value.has(key)) throw new Error(`KeyError: ${pythonStringRepr(key)}`);
    return value.get(key);
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    if (!Object.hasOwn(value, key)) throw new Error(`KeyError: ${pythonStringRepr(key)}`);
    return (value as Record<string, unknown>)[key];
  }
  if (Array.isArray(value)) throw new TypeError("list indices must be integers or slices, not str");
  if (typeof value === "string") throw new TypeError("string indices must be integers, not 'str'");
  throw new TypeError(`'${pythonTypeName((value ?? null) as PyValue)}' object is not subscriptable`);
}

// ---- numbers from text ----

const NUMBER_SPACE = new RegExp(`^[${PYTHON_NUMBER_SPACE_CHARS}]$`, "u");
/** What `int()` and `float()` strip around a number. */
const stripNumber = (text: string): string => stripWhere(text, (ch) => NUMBER_SPACE.test(ch));
// CPython refuses longer decimal strings (sys.get_int_max_str_digits()).
const INT_MAX_STR_DIGITS = 4300;

/** The value of a Unicode decimal digit: its offset in the run of ten it belongs to. */
function digitValue(ch: string): number {
  let code = ch.codePointAt(0)!;
  let offset = 0;
  while (/\p{Nd}/u.test(String.fromCodePoint(code - 1))) code--, offset++;
  return offset % 10;
}

/** Unicode decimal digits as ASCII ones, as Python reads them in int(), float() and Decimal(). */
export const asciiDigits = (text: string): string => text.replace(/\p{Nd}/gu, (ch) => String(digitValue(ch)));

/** Python's `int(text)` of any size: whitespace around, a sign, Unicode digits with single `_` between them. */
export function pythonIntBig(text: unknown): bigint {
  if (typeof text !== "string") throw new TypeError("int() argument must be a string");
  const body = stripNumber(text);
  if (!/^[+-]?\p{Nd}(?:_?\p{Nd})*$/u.test(body)) throw new ValueError(`invalid literal for int() with base 10: ${pythonStringRepr(text)}`);
  const digits = asciiDigits(body.replace(/^[+-]/, "").replace(/_/g, ""));
  if (digits.length > INT_MAX_STR_DIGITS) throw new ValueError(`Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits.length} digits; use sys.set_int_max_str_digits() to increase the limit`);
  return body.startsWith("-") ? -BigInt(digits) : BigInt(digits);
}

/** Python's `int(text)` as a double (exact up to 2^53, then the nearest double). */
export const pythonInt = (text: unknown): number => Number(pythonIntBig(text));

const DIGITS = "[0-9](?:_?[0-9])*";
const FLOAT_TEXT = new RegExp(`^[+-]?(?:inf|infinity|nan|(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?)$`, "i");

/** Python's `float(value)` for a parsed value; throws where Python raises. */
export function pythonFloat(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") {
    const float = Number(value);
    if (!Number.isFinite(float)) throw new OverflowError("int too large to convert to float");
    return float;
  }
  if (typeof value === "string") {
    const body = asciiDigits(stripNumber(value));
    if (!FLOAT_TEXT.test(body)) throw new ValueError(`could not convert string to float: ${pythonStringRepr(value)}`);
    const lower = body.toLowerCase().replace(/^\+/, "");
    if (/^-?inf(inity)?$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
    if (/^-?nan$/.test(lower)) return NaN;
    return Number(body.replace(/_/g, ""));
  }
  throw new TypeError(`float() argument must be a string or a real number, not '${pythonTypeName((value ?? null) as PyValue)}'`);
}

/** `math.gcd(a, b)` of two ints: never negative. */
export function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
