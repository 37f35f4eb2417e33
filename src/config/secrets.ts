import { isDict } from "./dict.ts";
import type { ConfigDict } from "./types.ts";

export const MASK = "****";

/**
 * NeMo Gym's rule, except that the key match ignores case (so `OPENAI_API_KEY` is masked too): a key containing
 * `token` or `key` hides its value; a list under such a key becomes one `****` per element; a dict under such a
 * key is not hidden wholesale but searched like any other dict. Lists elsewhere are searched for dicts (NeMo Gym
 * stops at lists nested in lists; this searches those too).
 */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  return lower.includes("token") || lower.includes("key");
}

/** Deep copy of `config` with secret values replaced by `****` (for printing, never for running). */
export function maskSecrets(config: ConfigDict): ConfigDict {
  return maskDict(config);
}

function maskDict(dict: ConfigDict): ConfigDict {
  const result: ConfigDict = {};
  for (const [key, value] of Object.entries(dict)) {
    if (isDict(value)) result[key] = maskDict(value);
    else if (Array.isArray(value)) result[key] = isSecretKey(key) ? value.map(() => MASK) : maskList(value);
    else result[key] = isSecretKey(key) ? MASK : value;
  }
  return result;
}

function maskList(list: unknown[]): unknown[] {
  return list.map((item) => (isDict(item) ? maskDict(item) : Array.isArray(item) ? maskList(item) : item));
}
