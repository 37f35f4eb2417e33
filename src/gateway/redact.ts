// What the gateway and the thin client may write to logs: payloads with credential-bearing keys masked, and
// upstream text with known secrets cut out. The session id is the Relax bearer token, so it counts as a secret.

export const REDACTED = "[REDACTED]";

const SENSITIVE_KEYS = new Set([
  "api_key",
  "api_key_prefix",
  "authorization",
  "proxy_authorization",
  "cookie",
  "set_cookie",
  "password",
  "secret",
  "session_id",
  "access_token",
  "refresh_token",
]);
const SENSITIVE_SUFFIXES = ["_api_key", "_password", "_secret"];

/** Case-insensitive, and `X-Api-Key` counts as `x_api_key`. */
export function isSensitiveKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/-/g, "_");
  return SENSITIVE_KEYS.has(normalized) || SENSITIVE_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/** A deep copy for logging: values under sensitive keys become "[REDACTED]", everything else is kept. */
export function redactForLog(value: unknown): unknown {
  const ancestors = new Set<object>();
  const copy = (node: unknown): unknown => {
    if (typeof node !== "object" || node === null) return typeof node === "bigint" ? node.toString() : node;
    if (ancestors.has(node)) return "[Circular]";
    const withJson = node as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === "function") return copy(withJson.toJSON());
    ancestors.add(node);
    try {
      if (Array.isArray(node)) return node.map(copy);
      if (node instanceof Map) return copy(Object.fromEntries(node));
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) out[key] = isSensitiveKey(key) ? REDACTED : copy(item);
      return out;
    } finally {
      ancestors.delete(node);
    }
  };
  return copy(value);
}

const TRUNCATED = "…[truncated]";

/** `text` with every occurrence of each non-empty secret replaced, then cut to at most `maxChars` characters. */
export function redactText(text: string, secrets: readonly string[], maxChars = 4000): string {
  // Longest first, so a secret that contains another is removed whole rather than leaving its tail behind.
  const ordered = [...new Set(secrets.filter((secret) => secret !== ""))].sort((a, b) => b.length - a.length);
  let redacted = text;
  for (const secret of ordered) redacted = redacted.split(secret).join(REDACTED);
  if (redacted.length <= maxChars) return redacted;
  return maxChars > TRUNCATED.length ? redacted.slice(0, maxChars - TRUNCATED.length) + TRUNCATED : redacted.slice(0, Math.max(0, maxChars));
}
