// JSON as NeMo Gym's Python servers write it: compact, raw UTF-8, and floats that keep their ".0".
// JavaScript has one number type, so the fields that Python types as float are listed by name; their
// integral values are emitted as `1.0` (rewards, timestamps, sampling parameters).
import { FLOAT_FIELDS, stringifyWire } from "../protocol/wire-json.ts";

export { FLOAT_FIELDS } from "../protocol/wire-json.ts";

/** NeMo Gym's JSON: compact, raw UTF-8, Python-float fields written with their ".0". */
export const toPythonJson = (value: unknown, floatFields: ReadonlySet<string> = FLOAT_FIELDS): string => stringifyWire(value, { floatFields });

/** Python's `json.dumps` with default settings: ", " and ": " separators, non-ASCII escaped. */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${asciiJsonString(k)}: ${pythonJsonDumps(v)}`)
      .join(", ")}}`;
  }
  return typeof value === "string" ? asciiJsonString(value) : JSON.stringify(value ?? null);
}

function asciiJsonString(s: string): string {
  return JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
