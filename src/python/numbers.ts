// Python's numbers from text: `int(str)` and `float(value)` with Python's whitespace, `_` separators, Unicode
// digits, `inf`/`nan` spellings and the ValueError / OverflowError texts Python raises.
import { PYTHON_NUMBER_SPACE_CHARS } from "./chars.ts";
import { OverflowError, PyException, ValueError } from "./exception.ts";
import { pythonStringRepr } from "./repr.ts";
import { stripWhere } from "./str.ts";
import { pythonTypeName, type PyValue } from "./values.ts";

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

/**
 * Python's `int(value)` of a JSON value (JSON.parse's model): a bool is 0/1, a number is truncated toward zero
 * (`nan` a ValueError, `inf` an OverflowError), a str is read as `int(str)`; None, a list or a dict is a TypeError.
 */
export function pythonIntOfJson(value: unknown): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (Number.isNaN(value)) throw new ValueError("cannot convert float NaN to integer");
    if (!Number.isFinite(value)) throw new OverflowError("cannot convert float infinity to integer");
    return Math.trunc(value) + 0;
  }
  if (typeof value === "string") return pythonInt(value);
  const typeName = value === null || value === undefined ? "NoneType" : Array.isArray(value) ? "list" : "dict";
  throw new PyException("TypeError", `int() argument must be a string, a bytes-like object or a real number, not '${typeName}'`);
}
