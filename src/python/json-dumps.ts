// `json.dumps` of JSON values, in its two forms: NeMo Gym's wire JSON as its servers write it (compact, raw
// UTF-8, floats that keep their ".0": JavaScript has one number type, so the fields Python types as float are
// listed by name and their integral values emitted as `1.0`), and Python's default `json.dumps(value)`.
import { FLOAT_FIELDS, stringifyWire } from "../protocol/wire-json.ts";
import { floatRepr } from "./float.ts";

export { FLOAT_FIELDS } from "../protocol/wire-json.ts";

/** NeMo Gym's JSON: compact, raw UTF-8, Python-float fields written with their ".0". */
export const toPythonJson = (value: unknown, floatFields: ReadonlySet<string> = FLOAT_FIELDS): string => stringifyWire(value, { floatFields });

/**
 * Python's `json.dumps` with default settings of a JSON value: ", " and ": " separators, everything past ASCII
 * (and DEL) escaped, a float as repr(float) (`1e-07`), NaN and ±Infinity as Python writes them.
 */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${asciiJsonString(k)}: ${pythonJsonDumps(v)}`)
      .join(", ")}}`;
  }
  if (typeof value === "number") return jsonNumber(value);
  return typeof value === "string" ? asciiJsonString(value) : JSON.stringify(value ?? null);
}

/** A whole number is an int (JSON.parse merged 1 and 1.0); any other is a float, printed as Python prints it. */
function jsonNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  return Number.isInteger(value) ? String(value) : floatRepr(value);
}

function asciiJsonString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export interface PythonDumpsOptions {
  /** `ensure_ascii` (Python's default true): everything past ASCII written as \uXXXX escapes. */
  ensureAscii?: boolean;
  /** `sort_keys`: dict keys in code point order. */
  sortKeys?: boolean;
  /** `indent=N`: one item a line, N spaces a level, "," then a newline between items (`json.dump(…, indent=4)`). */
  indent?: number;
  /** `separators=(item, key)` without indent; default `(", ", ": ")`, `(",", ":")` for compact text. */
  separators?: readonly [string, string];
}

/**
 * `json.dumps(value, ensure_ascii=…, sort_keys=…)` of a value in the PyValue model, where the int/float
 * distinction is kept: a bigint is an int (`3`), a number a float (`3.0`, `1e-07`); dicts are Maps or plain
 * objects (insertion order, undefined left out). For rows that must be byte-identical to what a Python script wrote.
 */
export function pythonJsonDumpsTyped(value: unknown, options: PythonDumpsOptions = {}): string {
  const ensureAscii = options.ensureAscii ?? true;
  const str = (s: string) => (ensureAscii ? asciiJsonString(s) : JSON.stringify(s));
  const indent = options.indent;
  // Items of a container at `depth`: ", " inline, or one a line indented (an empty container stays "[]" / "{}").
  const [itemSeparator, keySeparator] = options.separators ?? [", ", ": "];
  const join = (items: string[], depth: number, open: string, close: string): string => {
    if (indent === undefined || items.length === 0) return `${open}${items.join(itemSeparator)}${close}`;
    const inner = `\n${" ".repeat(indent * (depth + 1))}`;
    return `${open}${inner}${items.join(`,${inner}`)}\n${" ".repeat(indent * depth)}${close}`;
  };
  const dump = (v: unknown, depth = 0): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number") return Number.isNaN(v) ? "NaN" : !Number.isFinite(v) ? (v > 0 ? "Infinity" : "-Infinity") : floatRepr(v);
    if (typeof v === "string") return str(v);
    if (Array.isArray(v)) return join(v.map((item) => dump(item, depth + 1)), depth, "[", "]");
    if (typeof v === "object") {
      let entries = (v instanceof Map ? [...v.entries()] : Object.entries(v)).filter(([, item]) => item !== undefined) as [string, unknown][];
      if (options.sortKeys) entries = entries.sort(([a], [b]) => compareCodePoints(a, b));
      return join(entries.map(([k, item]) => `${str(String(k))}${keySeparator}${dump(item, depth + 1)}`), depth, "{", "}");
    }
    throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
  };
  return dump(value);
}

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * `orjson.dumps(value)` of a value in the PyValue model: compact, raw UTF-8, ints within 64 bits (orjson's range:
 * -2**63 … 2**64-1). orjson's float formatting differs from repr past 1e16 and below 1e-4; only the floats both
 * write alike are accepted (integral ones below 1e16, and those written without an exponent), the rest refused.
 */
export function orjsonDumps(value: unknown): string {
  const dump = (v: unknown): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "bigint") {
      if (v < -(2n ** 63n) || v > 2n ** 64n - 1n) throw new TypeError("Integer exceeds 64-bit range");
      return v.toString();
    }
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return "null";
      const repr = floatRepr(v);
      if (/e/.test(repr) || (v !== 0 && Math.abs(v) < 1e-4)) throw new TypeError(`orjson's text for the float ${repr} is not reproduced here`);
      return repr;
    }
    if (typeof v === "string") {
      if (/\p{Surrogate}/u.test(v)) throw new TypeError("str is not valid UTF-8: surrogates not allowed");
      return JSON.stringify(v);
    }
    if (Array.isArray(v)) return `[${v.map(dump).join(",")}]`;
    if (typeof v === "object") {
      const entries = (v instanceof Map ? [...v.entries()] : Object.entries(v)).filter(([, item]) => item !== undefined) as [unknown, unknown][];
      return `{${entries
        .map(([k, item]) => {
          if (typeof k !== "string") throw new TypeError("Dict key must be str");
          return `${dump(k)}:${dump(item)}`;
        })
        .join(",")}}`;
    }
    throw new TypeError(`Type is not JSON serializable: ${typeof v}`);
  };
  return dump(value);
}
