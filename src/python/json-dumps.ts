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
