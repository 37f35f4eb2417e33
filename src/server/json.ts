// JSON as NeMo Gym's Python servers write it: compact, raw UTF-8, and floats that keep their ".0".
// JavaScript has one number type, so the fields that Python types as float are listed by name; their
// integral values are emitted as `1.0` (rewards, timestamps, sampling parameters).

export const FLOAT_FIELDS: ReadonlySet<string> = new Set(["reward", "created_at", "temperature", "top_p", "frequency_penalty", "presence_penalty"]);

const MARK = "\u0000f";
// JSON.stringify escapes the NUL of the marker, so the output holds the six characters \u0000.
const MARKED = /"\\u0000f(-?\d+)"/g;

export function toPythonJson(value: unknown, floatFields: ReadonlySet<string> = FLOAT_FIELDS): string {
  let marked = false;
  const text = JSON.stringify(value, function (key, v) {
    if (typeof v === "number" && Number.isInteger(v) && floatFields.has(key) && Math.abs(v) < 1e16) {
      marked = true;
      return MARK + String(v);
    }
    return v;
  });
  return marked ? text.replace(MARKED, "$1.0") : text;
}

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
