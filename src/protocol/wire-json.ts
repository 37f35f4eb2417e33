// JSON for the wire, in two encodings.
//
// `json` (the default) is NeMo Gym's: plain JSON whose Python-float fields keep their ".0".
// `packed-v1` is ours, negotiated per connection: the token-level training arrays (prompt/generation
// token ids, generation log-probs) travel as base64 of little-endian Int32/Float64 arrays inside a
// string, `"ng-packed:i32:<b64>"`. A 65k-token generation then costs a memcpy instead of 130k number
// conversions each way; log-probs stay bit-exact (float64). A peer that never offered packed-v1
// never receives it.
//
// Both serializers work by walking the value once, swapping the few values that need special text
// for marker strings in place, calling the native JSON.stringify, and restoring the value — a
// replacer function would be called for every one of the 130k array elements.

import { randomBytes } from "node:crypto";
import { scanJson, type JsonScan, type NonFiniteLiteral } from "./json-scan.ts";

export type ArrayEncoding = "json" | "packed-v1";
export const ARRAY_ENCODING_HEADER = "x-ng-array-encoding";

/** Fields Python types as float: integral values are written `1.0` (rewards, timestamps, sampling parameters). */
export const FLOAT_FIELDS: ReadonlySet<string> = new Set(["reward", "created_at", "temperature", "top_p", "frequency_penalty", "presence_penalty"]);

/** Keys whose number arrays are packed (the training fields of NeMo Gym's "ForTraining" items and chat messages). */
export const PACKED_ARRAY_KEYS: ReadonlySet<string> = new Set(["prompt_token_ids", "generation_token_ids", "generation_log_probs"]);
const PACK_MIN_LENGTH = 16;
const PACKED_PREFIX = "ng-packed:";

const FLOAT_MARK = "\u0000f";
// JSON.stringify escapes the NUL of the marker, so the output holds the six characters \u0000.
const FLOAT_MARKED = /"\\u0000f(-?\d+)"/g;

/** A value written as different text: `replacement` stands in for the field while JSON.stringify runs. */
interface Swap {
  holder: Record<string, unknown>;
  key: string;
  replacement: string;
}

function packNumbers(values: number[]): string | undefined {
  let allInt32 = true;
  for (const v of values) {
    if (typeof v !== "number") return undefined;
    if (allInt32 && !(Number.isInteger(v) && v >= -2147483648 && v <= 2147483647)) allInt32 = false;
  }
  const typed = allInt32 ? Int32Array.from(values) : Float64Array.from(values);
  return `${PACKED_PREFIX}${allInt32 ? "i32" : "f64"}:${Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).toString("base64")}`;
}

function collectSwaps(value: unknown, floatFields: ReadonlySet<string>, pack: boolean, swaps: Swap[]): void {
  if (Array.isArray(value)) {
    for (const element of value) if (typeof element === "object" && element !== null) collectSwaps(element, floatFields, pack, swaps);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const holder = value as Record<string, unknown>;
  for (const key in holder) {
    const v = holder[key];
    if (typeof v === "number") {
      if (Number.isInteger(v) && floatFields.has(key) && Math.abs(v) < 1e16) swaps.push({ holder, key, replacement: FLOAT_MARK + String(v) });
    } else if (typeof v === "object" && v !== null) {
      if (pack && Array.isArray(v) && v.length >= PACK_MIN_LENGTH && PACKED_ARRAY_KEYS.has(key) && typeof v[0] === "number") {
        const packed = packNumbers(v as number[]);
        if (packed !== undefined) {
          swaps.push({ holder, key, replacement: packed });
          continue;
        }
      }
      collectSwaps(v, floatFields, pack, swaps);
    }
  }
}

/** Serializes `value` for the wire; never mutates it (observably). */
export function stringifyWire(value: unknown, options: { encoding?: ArrayEncoding; floatFields?: ReadonlySet<string> } = {}): string {
  const floatFields = options.floatFields ?? FLOAT_FIELDS;
  const swaps: Swap[] = [];
  collectSwaps(value, floatFields, options.encoding === "packed-v1", swaps);
  if (swaps.length === 0) return JSON.stringify(value) ?? "null";
  const originals = swaps.map((swap) => swap.holder[swap.key]);
  let text: string;
  try {
    for (const swap of swaps) swap.holder[swap.key] = swap.replacement;
    text = JSON.stringify(value);
  } finally {
    swaps.forEach((swap, i) => (swap.holder[swap.key] = originals[i]));
  }
  return swaps.some((swap) => swap.replacement.startsWith(FLOAT_MARK)) ? text.replace(FLOAT_MARKED, "$1.0") : text;
}

/**
 * A copy of `value` equal to `JSON.parse(JSON.stringify(value))` — what a server reads of a body the HTTP client
 * serialized (or of an answer stringifyWire wrote: its ".0" floats parse to the same numbers) — made without the
 * text, with an upper bound on that text's UTF-8 bytes (6 per UTF-16 unit of a string, the worst escape). Undefined
 * when `value` is not plain JSON data nesting at most `maxDepth` containers (a class instance, a `toJSON`, a bigint,
 * a `__proto__` key, a cycle, a top-level undefined): the caller then takes the text path, which decides those.
 */
export function copyJsonData(value: unknown, maxDepth: number): { copy: unknown; maxBytes: number } | undefined {
  let maxBytes = 0;
  let plain = true;
  const copy = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case "string":
        maxBytes += 6 * v.length + 2;
        return v;
      case "number":
        maxBytes += 24;
        // JSON writes NaN and ±Infinity as null, and -0 as 0.
        return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
      case "boolean":
        maxBytes += 5;
        return v;
      case "object":
        break;
      default:
        plain = false;
        return undefined;
    }
    maxBytes += 4;
    if (v === null) return null;
    if (depth >= maxDepth || typeof (v as { toJSON?: unknown }).toJSON === "function") {
      plain = false;
      return undefined;
    }
    if (Array.isArray(v)) {
      const out: unknown[] = new Array(v.length);
      for (let i = 0; i < v.length && plain; i++) {
        const element: unknown = v[i];
        // JSON writes an undefined, a function or a symbol in an array (or a hole) as null.
        out[i] = element === undefined || typeof element === "function" || typeof element === "symbol" ? ((maxBytes += 5), null) : copy(element, depth + 1);
      }
      return out;
    }
    const prototype = Object.getPrototypeOf(v);
    if (prototype !== Object.prototype && prototype !== null) {
      plain = false;
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      const field: unknown = (v as Record<string, unknown>)[key];
      // Skipped by JSON, as JSON.stringify skips them.
      if (field === undefined || typeof field === "function" || typeof field === "symbol") continue;
      // JSON.parse makes "__proto__" an own key; an assignment would set the prototype.
      if (key === "__proto__") plain = false;
      if (!plain) return undefined;
      maxBytes += 6 * key.length + 4;
      out[key] = copy(field, depth + 1);
    }
    return out;
  };
  const result = copy(value, 0);
  return plain ? { copy: result, maxBytes } : undefined;
}

function unpack(text: string): number[] | undefined {
  const kind = text.slice(PACKED_PREFIX.length, PACKED_PREFIX.length + 3);
  const bytes = Buffer.from(text.slice(PACKED_PREFIX.length + 4), "base64");
  // Copy into an aligned buffer: base64 decoding gives no alignment guarantee.
  const aligned = new Uint8Array(bytes).buffer;
  const view = kind === "i32" && aligned.byteLength % 4 === 0 ? new Int32Array(aligned) : kind === "f64" && aligned.byteLength % 8 === 0 ? new Float64Array(aligned) : undefined;
  if (!view) return undefined;
  // A plain loop into a presized array: several times faster than Array.from on a typed array.
  const numbers: number[] = new Array(view.length);
  for (let i = 0; i < view.length; i++) numbers[i] = view[i]!;
  return numbers;
}

/** Restores packed arrays in place (after JSON.parse); a malformed packed value is an error naming its key. */
export function unpackArrays(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const element of value) if (typeof element === "object" && element !== null) unpackArrays(element);
  } else if (typeof value === "object" && value !== null) {
    const holder = value as Record<string, unknown>;
    for (const key in holder) {
      const v = holder[key];
      if (typeof v === "string") {
        if (PACKED_ARRAY_KEYS.has(key) && v.startsWith(PACKED_PREFIX)) {
          const numbers = unpack(v);
          if (!numbers) throw new Error(`${key}: malformed ${ARRAY_ENCODING_HEADER} packed-v1 value`);
          holder[key] = numbers;
        }
      } else if (typeof v === "object" && v !== null) unpackArrays(v);
    }
  }
  return value;
}

export function parseWire(text: string, encoding: ArrayEncoding = "json"): unknown {
  const value = JSON.parse(text);
  return encoding === "packed-v1" ? unpackArrays(value) : value;
}

// ---- request bodies: Python's JSON, bounded ----

/** Containers a request body may nest: validators and serializers recurse, and overflow the stack near 10,000. */
export const MAX_JSON_DEPTH = 1000;

/** The text is not JSON: Python's `JSONDecodeError` message and position, for FastAPI's `json_invalid`. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly pythonMessage: string,
    readonly position: number,
  ) {
    super(`${pythonMessage}: char ${position}`);
    this.name = "JsonSyntaxError";
  }
}

/** The text nests deeper than the limit; `path` leads to the container that crossed it. */
export class JsonDepthError extends Error {
  constructor(
    readonly path: (string | number)[],
    readonly maxDepth: number,
  ) {
    super(`JSON nests deeper than ${maxDepth} levels at ${abbreviatedPath(path)}`);
    this.name = "JsonDepthError";
  }
}

/** `body.metadata.a.a.a…a.a (1000 levels)`: the first and last few steps of a long path. */
export function abbreviatedPath(path: readonly (string | number)[], root = "body"): string {
  const steps = [root, ...path.map(String)];
  const shown = steps.length <= 12 ? steps.join(".") : `${steps.slice(0, 6).join(".")}…${steps.slice(-3).join(".")}`;
  return `${shown} (${path.length} levels)`;
}

/**
 * Parses a request body as Python's `json.loads` reads it (NaN, Infinity and -Infinity included), after a
 * non-recursive scan that bounds the nesting. Throws JsonSyntaxError or JsonDepthError.
 */
export function parseRequestJson(text: string, encoding: ArrayEncoding = "json", maxDepth = MAX_JSON_DEPTH): unknown {
  // The common body: standard JSON (what JSON.parse takes, Python takes alike) with fewer containers than the depth
  // limit, so it cannot nest past it. The native parser and a bracket count cost a third of the scan below, which
  // only a body with NaN/Infinity, a syntax error or many containers needs.
  if (openersAtMost(text, maxDepth)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = NOT_STANDARD_JSON;
    }
    if (value !== NOT_STANDARD_JSON) return encoding === "packed-v1" ? unpackArrays(value) : value;
  }
  const scan = scanJson(text, maxDepth);
  if (scan.problem?.kind === "syntax") throw new JsonSyntaxError(scan.problem.message, scan.problem.position);
  if (scan.problem?.kind === "depth") throw new JsonDepthError(scan.problem.path, maxDepth);
  const value = scan.nonFinite.length === 0 ? JSON.parse(text) : parseWithNonFinite(text, scan.nonFinite);
  return encoding === "packed-v1" ? unpackArrays(value) : value;
}

const NOT_STANDARD_JSON = Symbol("not standard JSON");

/** Whether `text` holds at most `limit` of `{` and `[` (inside strings or not): then nothing in it nests deeper. */
function openersAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const opener of ["{", "["]) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) if (++count > limit) return false;
  }
  return true;
}

const NON_FINITE: Record<NonFiniteLiteral, number> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** Swaps each bare literal for a marker string no body contains, and the markers back for numbers while parsing. */
function parseWithNonFinite(text: string, tokens: JsonScan["nonFinite"]): unknown {
  let prefix: string;
  do prefix = `ng-non-finite-${randomBytes(8).toString("hex")}:`;
  while (text.includes(prefix));
  const parts: string[] = [];
  let from = 0;
  for (const { position, literal } of tokens) {
    parts.push(text.slice(from, position), JSON.stringify(prefix + literal));
    from = position + literal.length;
  }
  parts.push(text.slice(from));
  return JSON.parse(parts.join(""), (_key, value: unknown) =>
    typeof value === "string" && value.startsWith(prefix) ? NON_FINITE[value.slice(prefix.length) as NonFiniteLiteral] : value,
  );
}
