// NeMo Gym's strict reading of tool-call arguments and dataset rows: Python's json.loads, but NaN / Infinity and a
// key repeated within one object are errors (its parse_constant and object_pairs_hook reject them), never a
// silently kept last value.
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyJsonDecodeError } from "../../src/python/exception.ts";
import { isPyDict, pythonRepr, type PyValue } from "../../src/python/values.ts";

export class StrictJsonError extends Error {}

/** The first key repeated within one object of `text` (already known to be valid JSON), if any. */
function duplicateKey(text: string): string | undefined {
  const stack: { keys: Set<string>; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return key;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end;
    } else if (ch === "{") stack.push({ keys: new Set(), expectKey: true });
    else if (ch === "[") stack.push({ keys: new Set(), expectKey: false });
    else if (ch === "}" || ch === "]") stack.pop();
    else if (ch === ",") {
      const top = stack[stack.length - 1];
      if (top && top.keys.size > 0) top.expectKey = true;
    }
  }
  return undefined;
}

function hasNonFinite(value: PyValue): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (isPyDict(value)) return [...value.values()].some(hasNonFinite);
  return false;
}

/** `json.loads` with NeMo Gym's hooks; the error text is Python's str(exc). */
export function strictJsonLoads(text: string): PyValue {
  let value: PyValue;
  try {
    value = pythonJsonLoads(text);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) throw new StrictJsonError(error.message);
    throw error;
  }
  // NaN, Infinity and -Infinity are the literals parse_constant sees (a huge 1e999 is a float overflow Python keeps).
  if (hasNonFinite(value) && /(^|[^"\w])(-?Infinity|NaN)/.test(text)) {
    const literal = /-?Infinity|NaN/.exec(text)![0];
    throw new StrictJsonError(`non-finite JSON constant ${pythonRepr(literal)}`);
  }
  const repeated = duplicateKey(text);
  if (repeated !== undefined) throw new StrictJsonError(`duplicate JSON key ${pythonRepr(repeated)}`);
  return value;
}
