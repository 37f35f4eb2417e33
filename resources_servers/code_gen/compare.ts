// How a test's outcome is judged — here in the server, on what the program printed or returned, as NeMo Gym's
// LiveCodeBench grader judges it.
//
// stdin/stdout: both texts strip()ped and split on "\n", each line strip()ped; the line counts must match; each line
// pair is equal as strings, or else both lines parse as whitespace-separated Decimal lists that are equal.
// call-based: the returned value == the expected JSON value (Python's ==), or their json.dumps texts are equal, or
// np.allclose(float(returned), float(expected)).
import { pythonSlice, pythonLen, pythonStrip, splitWhitespace } from "../../src/python/str.ts";
import { decimalEquals, parseDecimal, type Decimal } from "../../src/python/decimal.ts";
import { pythonEquals, pythonStr, type PyValue } from "../../src/python/values.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { floatRepr } from "../../src/python/float.ts";

export const WRONG_ANSWER = -2;

/** NeMo Gym's truncatefn: `str(s)`, cut to its first and last 150 code points around "...(truncated) ...". */
export function truncate(text: string, length = 300): string {
  if (pythonLen(text) <= length) return text;
  return pythonSlice(text, 0, Math.floor(length / 2)) + "...(truncated) ..." + pythonSlice(text, -Math.floor(length / 2), undefined);
}

const strippedLines = (text: string) => pythonStrip(text).split("\n").map((line) => pythonStrip(line));

function decimals(line: string): Decimal[] | undefined {
  try {
    return splitWhitespace(line).map(parseDecimal);
  } catch {
    return undefined;
  }
}

/** Python's `list == list` of Decimals: lengths first, then item by item (an sNaN raises InvalidOperation). */
function decimalListsEqual(a: Decimal[], b: Decimal[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((item, i) => decimalEquals(item, b[i]!));
}

/** Why a stdin/stdout test failed (NeMo Gym's error_message), or undefined when the printed output is right. */
export function stdioMismatch(printed: string, expected: string): string | undefined {
  const got = strippedLines(printed);
  const want = strippedLines(expected);
  if (got.length !== want.length) return "Wrong answer: mismatched output length";
  for (let index = 0; index < got.length; index++) {
    const [line, gold] = [got[index]!, want[index]!];
    if (line === gold) continue;
    const message = `Wrong answer at output_line_idx=${index}: ${truncate(line)} != ${truncate(gold)}`;
    const lineDecimals = decimals(line);
    if (lineDecimals === undefined) return message;
    const goldDecimals = decimals(gold);
    if (goldDecimals === undefined) return message;
    if (!decimalListsEqual(lineDecimals, goldDecimals)) return message;
  }
  return undefined;
}

/** A value the harness reported (see harness.py `encode`): JSON types tagged, anything else opaque. */
export type EncodedValue = null | boolean | string | EncodedValue[] | { int: string } | { float: string } | { dict: [string, EncodedValue][] } | { opaque: string };

const OPAQUE = Symbol("opaque");

/** The reported value as a PyValue, or OPAQUE when it holds something no JSON value is ever equal to. */
function decode(value: EncodedValue): PyValue | typeof OPAQUE {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (Array.isArray(value)) {
    const items = value.map(decode);
    return items.includes(OPAQUE) ? OPAQUE : (items as PyValue[]);
  }
  if ("int" in value) return BigInt(value.int);
  if ("float" in value) return pythonFloatRepr(value.float);
  if ("dict" in value) {
    const entries = value.dict.map(([key, item]) => [key, decode(item)] as const);
    return entries.some(([, item]) => item === OPAQUE) ? OPAQUE : new Map(entries as [string, PyValue][]);
  }
  return OPAQUE;
}

/** A float from its Python repr ("1.5", "inf", "-inf", "nan"). */
const pythonFloatRepr = (repr: string): number => pythonFloat(repr);

/** `json.dumps(value)` with Python's defaults, of a json.loads value (int and float kept apart). */
export function pythonDumps(value: PyValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : !Number.isFinite(value) ? (value > 0 ? "Infinity" : "-Infinity") : floatRepr(value);
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(", ")}]`;
  return `{${[...value].map(([key, item]) => `${pythonDumps(key)}: ${pythonDumps(item)}`).join(", ")}}`;
}

/** numpy's isclose(a, b) with its defaults (rtol 1e-05, atol 1e-08): infinities equal only themselves, NaN nothing. */
function isClose(a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= 1e-8 + 1e-5 * Math.abs(b);
}

export interface Returned {
  value: EncodedValue;
  /** json.dumps(value) as the harness computed it; null when it raised. */
  json: string | null;
  /** repr(float(value)); null when float() raised. */
  float: string | null;
}

/** NeMo Gym's call-based check: pred == gold, or json.dumps equal, or np.allclose(float(pred), float(gold)). */
export function callMatches(returned: Returned, gold: PyValue): boolean {
  const value = decode(returned.value);
  if (value !== OPAQUE && pythonEquals(value, gold)) return true;
  if (returned.json !== null && returned.json === pythonDumps(gold)) return true;
  if (returned.float === null) return false;
  let goldFloat: number;
  try {
    goldFloat = pythonFloat(gold);
  } catch {
    return false;
  }
  return isClose(pythonFloatRepr(returned.float), goldFloat);
}

/** `str(value)` of a json.loads value, for the metadata NeMo Gym writes (`inputs`, `expected`). */
export const pythonText = (value: PyValue): string => pythonStr(value);
