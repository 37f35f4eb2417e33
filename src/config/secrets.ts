import { isDict } from "./dict.ts";
import type { ConfigDict } from "./types.ts";

export const MASK = "****";

/**
 * The one rule of which config keys hold secrets (used by `gym env resolve` and by the head server). NeMo Gym's
 * rule — a key containing `token` or `key` — extended with `secret`, `password` and `authorization`, and matched
 * ignoring case (so `OPENAI_API_KEY` counts too). A list under such a key becomes one mask per element; a dict
 * under such a key is not hidden wholesale but searched like any other dict. Lists elsewhere are searched for
 * dicts (NeMo Gym stops at lists nested in lists; this searches those too).
 */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  return SECRET_KEY_PARTS.some((part) => lower.includes(part));
}

const SECRET_KEY_PARTS = ["token", "key", "secret", "password", "authorization"];

/** Deep copy of `config` with secret values replaced by `****` (for printing, never for running). */
export function maskSecrets(config: ConfigDict): ConfigDict {
  return redactSecrets(config, { marker: MASK });
}

export interface RedactOptions {
  /** What a hidden value becomes. */
  marker: string;
  /** Key paths whose value is hidden whatever its key says (e.g. every value taken from env.yaml). */
  hiddenPaths?: Iterable<readonly string[]>;
  /** Keep true/false and null under secret keys (a switch such as `return_token_id_information` is no credential). */
  keepBooleans?: boolean;
}

/** Deep copy of `config` with the values under secret keys, and at `hiddenPaths`, replaced by `marker`. */
export function redactSecrets(config: ConfigDict, options: RedactOptions): ConfigDict {
  const hidden = new Set([...(options.hiddenPaths ?? [])].map((path) => JSON.stringify(path)));
  const hide = (value: unknown, path: string[]): unknown => {
    if (isDict(value)) return redactDict(value, path);
    if (options.keepBooleans && (typeof value === "boolean" || value === null)) return value;
    return Array.isArray(value) ? value.map(() => options.marker) : options.marker;
  };
  const redactDict = (dict: ConfigDict, path: string[]): ConfigDict => {
    const result: ConfigDict = {};
    for (const [key, value] of Object.entries(dict)) {
      const at = [...path, key];
      if (isSecretKey(key) || hidden.has(JSON.stringify(at))) result[key] = hide(value, at);
      else if (isDict(value)) result[key] = redactDict(value, at);
      else result[key] = Array.isArray(value) ? redactList(value, at) : value;
    }
    return result;
  };
  // Dicts in lists are searched by key; their paths are not addressable by `hiddenPaths` (env.yaml leaves are).
  const redactList = (list: unknown[], path: string[]): unknown[] =>
    list.map((item) => (isDict(item) ? redactDict(item, [...path, "[]"]) : Array.isArray(item) ? redactList(item, path) : item));
  return redactDict(config, []);
}
