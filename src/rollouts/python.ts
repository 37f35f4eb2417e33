// Small pieces of Python semantics that NeMo Gym's metrics depend on and JavaScript spells differently.
import { pythonStr as pythonStrOfValue } from "../verifiers/python-values.ts";

/** Python's truthiness of a JSON value: null, false, 0, "", [] and {} are false. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/**
 * Python's `str()` of a JSON scalar read with `JSON.parse` (`True`/`False` for booleans); numbers print as
 * JavaScript does and other values as JSON. For values from `pythonJsonLoads` (ints, floats, dicts, None),
 * use src/verifiers/python-values.ts's `pythonStr`, to which strings and booleans are delegated here.
 */
export function pythonStr(value: unknown): string {
  if (typeof value === "string" || typeof value === "boolean") return pythonStrOfValue(value);
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** Python's `sorted` order for strings: by code point (JavaScript's `<` compares UTF-16 code units). */
export function comparePython(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}
