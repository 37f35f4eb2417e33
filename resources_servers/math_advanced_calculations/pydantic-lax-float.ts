// pydantic's `Optional[float]` in lax mode, as the calculator's request model reads each argument.

// Rust's f64 grammar (what pydantic-core parses a string with): sign, digits, optional fraction and
// exponent, or inf / infinity / nan in any case.
const FLOAT_TEXT = /^[+-]?(?:inf|infinity|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/i;

/** A float from text as Rust's `str::parse::<f64>` reads it (after pydantic strips whitespace and `_` separators). */
function parseFloatText(text: string): number | undefined {
  const trimmed = text.trim();
  const candidates = [trimmed];
  if (/^[+-]?\d+(?:_\d+)*(?:\.\d+(?:_\d+)*)?(?:[eE][+-]?\d+(?:_\d+)*)?$/.test(trimmed)) candidates.push(trimmed.replace(/_/g, ""));
  for (const candidate of candidates) {
    if (!FLOAT_TEXT.test(candidate)) continue;
    const lower = candidate.toLowerCase().replace(/^\+/, "");
    if (/^-?inf(inity)?$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
    if (/^-?nan$/.test(lower)) return NaN;
    return Number(candidate);
  }
  return undefined;
}

export type LaxFloat = { ok: true; value: number | null } | { ok: false; type: string; msg: string };

/** pydantic's `Optional[float]` in lax mode: numbers, bools and numeric strings are floats; null is None. */
export function laxFloat(value: unknown): LaxFloat {
  if (value === null || value === undefined) return { ok: true, value: null };
  if (typeof value === "number") return { ok: true, value };
  if (typeof value === "boolean") return { ok: true, value: value ? 1 : 0 };
  if (typeof value === "string") {
    const parsed = parseFloatText(value);
    if (parsed !== undefined) return { ok: true, value: parsed };
    return { ok: false, type: "float_parsing", msg: "Input should be a valid number, unable to parse string as a number" };
  }
  return { ok: false, type: "float_type", msg: "Input should be a valid number" };
}
