// Plain-object helpers: the config is JSON-like data (dicts, lists, scalars).
import { MISSING_VALUE, type ConfigDict } from "./types.ts";

export type PathSegment = string | number;

export function isDict(value: unknown): value is ConfigDict {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function deepClone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => deepClone(item)) as T;
  if (isDict(value)) {
    const copy: ConfigDict = {};
    for (const [key, item] of Object.entries(value)) copy[key] = deepClone(item);
    return copy as T;
  }
  return value;
}

/**
 * OmegaConf.merge semantics for plain data: dicts merge key by key, anything else (lists included) is replaced
 * by the later value, except that a later `???` never erases a value that is already set.
 * Inputs are not modified.
 */
export function deepMerge(...layers: ConfigDict[]): ConfigDict {
  const result: ConfigDict = {};
  for (const layer of layers) mergeInto(result, layer);
  return result;
}

function mergeInto(target: ConfigDict, source: ConfigDict): void {
  for (const [key, sourceValue] of Object.entries(source)) {
    const hasTarget = Object.prototype.hasOwnProperty.call(target, key);
    const targetValue = target[key];
    if (hasTarget && sourceValue === MISSING_VALUE) continue;
    if (hasTarget && isDict(targetValue) && isDict(sourceValue)) {
      mergeInto(targetValue, sourceValue);
    } else {
      target[key] = deepClone(sourceValue);
    }
  }
}

/** `a.b[2].c` — the notation used in every message about a config location. */
export function formatPath(path: readonly PathSegment[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? segment : `.${segment}`;
  }
  return text;
}

export function hasOwn(dict: ConfigDict, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(dict, key);
}

/** Child of a dict or list, or `undefined` when absent. Numeric string segments index lists. */
export function childOf(node: unknown, segment: PathSegment): { found: boolean; value: unknown } {
  if (isDict(node)) {
    const key = String(segment);
    return hasOwn(node, key) ? { found: true, value: node[key] } : { found: false, value: undefined };
  }
  if (Array.isArray(node)) {
    const index = typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : NaN;
    return Number.isInteger(index) && index >= 0 && index < node.length
      ? { found: true, value: node[index] }
      : { found: false, value: undefined };
  }
  return { found: false, value: undefined };
}

export function getPath(root: unknown, path: readonly PathSegment[]): { found: boolean; value: unknown } {
  let node: unknown = root;
  for (const segment of path) {
    const child = childOf(node, segment);
    if (!child.found) return child;
    node = child.value;
  }
  return { found: true, value: node };
}

export function hasPath(root: unknown, path: readonly PathSegment[]): boolean {
  return getPath(root, path).found;
}

/** A config flag as a boolean: `true`/`false`, or the strings "true"/"false" an env var interpolation yields. */
export function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    if (text === "true") return true;
    if (text === "false") return false;
  }
  return undefined;
}
