// `session_store` of a resources server: where its per-rollout state lives. `memory` (the default) keeps it in the
// process; `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS) keeps it in Redis, so replicas of the
// server behind any load balancer share every session.
import { z } from "zod";

export const SESSION_STORE_KEY = "session_store";
/**
 * With Redis: how long a session's lock outlives a replica that stopped renewing it (killed, frozen); the longest a
 * retry of that rollout's call on another replica waits.
 */
export const SESSION_LOCK_LEASE_KEY = "session_lock_lease_s";
export const DEFAULT_SESSION_LOCK_LEASE_S = 10;

export type SessionStoreSetting = { kind: "memory" } | { kind: "redis"; url: string };

/** The setting a value names, or a sentence saying what is wrong with it. */
export function parseSessionStoreSetting(value: string): SessionStoreSetting | string {
  if (value === "memory") return { kind: "memory" };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be 'memory' or a redis:// URL (redis://host:6379/0), got ${JSON.stringify(value)}`;
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") return `must be 'memory' or a redis:// or rediss:// URL, got the scheme '${url.protocol.slice(0, -1)}'`;
  if (url.hostname === "") return `names no host: ${JSON.stringify(value)} (redis://host:6379/0)`;
  const db = url.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) return `database must be a number (redis://host:6379/0), got '${db}'`;
  return { kind: "redis", url: value };
}

/** `session_store` read once, as the setting it names (a custom issue saying what is wrong otherwise). */
export const SessionStoreSettingSchema = z.string().transform((value, context): SessionStoreSetting => {
  const parsed = parseSessionStoreSetting(value);
  if (typeof parsed !== "string") return parsed;
  context.addIssue({ code: "custom", message: `${SESSION_STORE_KEY} ${parsed}` });
  return z.NEVER;
});

/** The URL without its password, for messages and logs. */
export function redactedRedisUrl(value: string): string {
  const url = new URL(value);
  if (url.password !== "") url.password = "***";
  return url.toString();
}
