// Python str and Fraction behaviour the English validators lean on, beyond src/python: `isdigit`, `isalnum`,
// `istitle`, `count`, `re.escape`, comparisons that raise Python's TypeError, and `fractions.Fraction` from a string.
import { isAlpha, isLower, isUpper } from "../../src/python/str.ts";
import { KeyError, PyException, ValueError, ZeroDivisionError } from "../../src/python/exception.ts";
import { compilePythonRegex, type PythonPattern } from "../../src/python/re/index.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { fromJsonValue, pythonRepr } from "../../src/python/values.ts";
import { floatRepr } from "../../src/python/float.ts";

export const STRING_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

// Python's isdigit: decimal digits plus the other Numeric_Type=Digit characters (superscripts, circled digits, …).
const DIGIT = /^[\p{Nd}\u00B2\u00B3\u00B9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247C\u2488-\u2490\u24EA\u24F5-\u24FD\u24FF\u2776-\u277E\u2780-\u2788\u278A-\u2792\u{10A40}-\u{10A43}\u{1F100}-\u{1F10A}]+$/u;
export const isDigit = (text: string): boolean => DIGIT.test(text);
export const isAlnum = (text: string): boolean => text !== "" && Array.from(text).every((ch) => isAlpha(ch) || /\p{N}/u.test(ch));
export const charIsUpper = (ch: string): boolean => isUpper(ch);
export const charIsLower = (ch: string): boolean => isLower(ch);

/** `text.istitle()`: cased runs start upper (or titlecase) and continue lower; at least one cased character. */
export function isTitle(text: string): boolean {
  let cased = false;
  let previousCased = false;
  for (const ch of text) {
    const upper = /\p{Lu}|\p{Lt}/u.test(ch);
    const lower = /\p{Ll}/u.test(ch);
    if (upper) {
      if (previousCased) return false;
      previousCased = true;
      cased = true;
    } else if (lower) {
      if (!previousCased) return false;
      previousCased = true;
      cased = true;
    } else {
      previousCased = false;
    }
  }
  return cased;
}

/** `text.count(sub)`: non-overlapping occurrences; "" occurs len + 1 times. */
export const pythonCount = (text: string, sub: string): number => (sub === "" ? Array.from(text).length + 1 : text.split(sub).length - 1);

/** `re.escape` (Python 3.7+): every regex-special character and whitespace gets a backslash. */
export const pythonReEscape = (text: string): string => text.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (ch) => `\\${ch}`);

export class PyTypeError extends PyException {
  constructor(message: string) {
    super("TypeError", message);
  }
}

export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  if (value instanceof Fraction) return "Fraction";
  return "dict";
}

// ---- fractions.Fraction ----

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};

export class Fraction {
  readonly numerator: bigint;
  readonly denominator: bigint;
  constructor(numerator: bigint, denominator: bigint) {
    if (denominator === 0n) throw new ZeroDivisionError(`Fraction(${numerator}, 0)`);
    const sign = denominator < 0n ? -1n : 1n;
    const divisor = gcd(numerator, denominator) || 1n;
    this.numerator = (sign * numerator) / divisor;
    this.denominator = (sign * denominator) / divisor;
  }
  valueOf(): number {
    return Number(this.numerator) / Number(this.denominator);
  }
  /** `str(fraction)`: "n" when whole, else "n/d". */
  toString(): string {
    return this.denominator === 1n ? String(this.numerator) : `${this.numerator}/${this.denominator}`;
  }
}

// CPython's fractions._RATIONAL_FORMAT.
const RATIONAL = /^\s*([-+]?)(?=\d|\.\d)(\d*|\d+(?:_\d+)*)(?:(?:\/(\d+(?:_\d+)*))?|(?:\.(\d*|\d+(?:_\d+)*))?(?:[eE]([-+]?\d+(?:_\d+)*))?)\s*$/;

/** `Fraction(text)`. */
export function parseFraction(text: string): Fraction {
  const match = RATIONAL.exec(text);
  if (!match) throw new ValueError(`Invalid literal for Fraction: ${JSON.stringify(text).replace(/^"|"$/g, "'")}`);
  const [, sign, num, denom, decimal, exp] = match;
  let numerator = BigInt((num || "0").replaceAll("_", ""));
  let denominator = 1n;
  if (denom !== undefined) denominator = BigInt(denom.replaceAll("_", ""));
  else {
    if (decimal) {
      const digits = decimal.replaceAll("_", "");
      const scale = 10n ** BigInt(digits.length);
      numerator = numerator * scale + BigInt(digits);
      denominator *= scale;
    }
    if (exp) {
      const e = Number(exp.replaceAll("_", ""));
      if (e >= 0) numerator *= 10n ** BigInt(e);
      else denominator *= 10n ** BigInt(-e);
    }
  }
  if (sign === "-") numerator = -numerator;
  return new Fraction(numerator, denominator);
}

/** A ratio bound or value: a Fraction, a plain number (an int/float kwarg, or infinity). */
export type Ratio = Fraction | number;

/** `str(value)` of a Ratio. */
export const ratioStr = (value: Ratio): string => (value instanceof Fraction ? value.toString() : Number.isInteger(value) ? String(value) : floatRepr(value));

/** Python's ordering of two Ratios (exact between Fractions; through floats otherwise). */
export function compareRatios(a: Ratio, b: Ratio): number {
  if (a instanceof Fraction && b instanceof Fraction) {
    const left = a.numerator * b.denominator;
    const right = b.numerator * a.denominator;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `f"{x:.2f}"` of a Ratio's float value. */
export const fixed2 = (value: Ratio): string => {
  const x = Number(value);
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  return x.toFixed(2);
};

const isNumeric = (value: unknown): value is number | boolean => typeof value === "number" || typeof value === "boolean";

/** `a <op> b` as Python evaluates it for the values kwargs carry: numbers (bools count), or two strings; else TypeError. */
export function pyCompare(a: unknown, op: "<" | "<=" | ">" | ">=", b: unknown): boolean {
  let x: number | string;
  let y: number | string;
  if (isNumeric(a) && isNumeric(b)) [x, y] = [Number(a), Number(b)];
  else if (typeof a === "string" && typeof b === "string") [x, y] = [a, b];
  else throw new PyTypeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  switch (op) {
    case "<":
      return x < y;
    case "<=":
      return x <= y;
    case ">":
      return x > y;
    case ">=":
      return x >= y;
  }
}

const patterns = new Map<string, PythonPattern>();
/** A Python regex, compiled once per pattern and flags. */
export function cachedPythonRegex(pattern: string, flags: { multiline?: boolean; ignoreCase?: boolean; dotAll?: boolean } = {}): PythonPattern {
  const key = `${pattern}\u0000${flags.multiline ? "m" : ""}${flags.ignoreCase ? "i" : ""}${flags.dotAll ? "s" : ""}`;
  let compiled = patterns.get(key);
  if (!compiled) patterns.set(key, (compiled = compilePythonRegex(pattern, flags)));
  return compiled;
}

/** `kwargs[name]`: a missing one is Python's KeyError, whose str() is the key's repr. */
export function arg(kwargs: Record<string, unknown>, name: string): unknown {
  if (!(name in kwargs)) throw new KeyError(pythonStringRepr(name));
  return kwargs[name];
}

/** `str(value)` inside an f-string. */
export function fstr(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (value instanceof Fraction) return value.toString();
  return pythonRepr(fromJsonValue(value));
}
