// Session cookies in the format of Starlette's SessionMiddleware (itsdangerous TimestampSigner), so clients see
// NeMo Gym's cookies:
//   value = base64(json.dumps(session)) "." base64url(timestamp) "." base64url(HMAC-SHA1)
// NeMo Gym signs with the cookie's own (public) name, so anyone can mint a cookie for a session id of their
// choosing. Here a graph signs with a random secret its launcher shares with every server (or a configured one,
// for replicas behind a balancer), and session ids are only ever minted by the server: a cookie that does not
// verify is no session. NeMo Gym's signing stays available for a graph that mixes in NeMo Gym's Python servers.
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import { pythonJsonDumps } from "../python/json-dumps.ts";

export const SESSION_MAX_AGE_S = 14 * 24 * 60 * 60;

export interface SessionCookieCodec {
  readonly cookieName: string;
  /** NeMo Gym's MCP session token (X-NeMo-Gym-Session-Token), signed with the same secret as the cookie. */
  readonly mcpToken: McpSessionTokenCodec;
  encode(sessionId: string, nowSeconds?: number): string;
  /** The session id, or undefined when the value is missing, malformed, tampered or expired. */
  decode(value: string | undefined, nowSeconds?: number): string | undefined;
  setCookieHeader(sessionId: string): string;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

function timestampBytes(seconds: number): Buffer {
  // itsdangerous: int_to_bytes = big-endian with leading zero bytes stripped
  const bytes: number[] = [];
  let rest = BigInt(Math.floor(seconds));
  while (rest > 0n) {
    bytes.unshift(Number(rest & 0xffn));
    rest >>= 8n;
  }
  return Buffer.from(bytes);
}

function timestampFromBytes(buf: Buffer): number {
  let value = 0;
  for (const byte of buf) value = value * 256 + byte;
  return value;
}

/**
 * How a graph signs its session cookies: one secret shared by every server (the default: random per graph), or
 * NeMo Gym's way, each cookie signed with its own name (forgeable; only for graphs with NeMo Gym Python servers).
 */
export type SessionSigning = { kind: "secret"; secret: string } | { kind: "cookie-name" };

/** Config key and environment variable of a fixed secret (replicas of one server behind a balancer share it). */
export const SESSION_SECRET_KEY = "session_secret";
export const SESSION_SECRET_ENV = "NEMO_GYM_SESSION_SECRET";
/** `session_signing: nemo_gym` signs every cookie with its own name, as NeMo Gym does. */
export const SESSION_SIGNING_KEY = "session_signing";

export function randomSessionSigning(): SessionSigning {
  return { kind: "secret", secret: randomBytes(32).toString("base64url") };
}

/**
 * The signing a config asks for: `session_signing: nemo_gym`, else a non-empty `session_secret`, else
 * NEMO_GYM_SESSION_SECRET; undefined when none (the graph then gets a random secret).
 */
export function configuredSessionSigning(globalConfig: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): SessionSigning | undefined {
  const mode = globalConfig[SESSION_SIGNING_KEY];
  if (mode === "nemo_gym") return { kind: "cookie-name" };
  if (mode !== undefined && mode !== null && mode !== "graph_secret") {
    throw new Error(`${SESSION_SIGNING_KEY} must be 'graph_secret' (the default) or 'nemo_gym', got ${JSON.stringify(mode)}`);
  }
  const secret = globalConfig[SESSION_SECRET_KEY];
  if (secret !== undefined && secret !== null && secret !== "") {
    if (typeof secret !== "string") throw new Error(`${SESSION_SECRET_KEY} must be a string`);
    return { kind: "secret", secret };
  }
  return env[SESSION_SECRET_ENV] ? { kind: "secret", secret: env[SESSION_SECRET_ENV] } : undefined;
}

/** The codec of the cookie `cookieName` under a graph's signing. */
export function sessionCookieCodecFor(cookieName: string, signing: SessionSigning): SessionCookieCodec {
  return sessionCookieCodec(cookieName, signing.kind === "cookie-name" ? cookieName : signing.secret);
}

/** What an MCP session token carries: the Gym session id and the tools it may call (null: all). */
export interface McpSessionClaims {
  sid: string;
  tools: string[] | null;
}

export interface McpSessionTokenCodec {
  dumps(claims: McpSessionClaims): string;
  /** The claims, or undefined for a token that is malformed or not signed with this secret. */
  loads(token: string): McpSessionClaims | undefined;
}

/** The salt NeMo Gym's MCP auto-exposure signs its session token with (so it is no other signer's). */
export const MCP_SESSION_TOKEN_SALT = "nemo-gym-mcp-session-token";

/**
 * itsdangerous' URLSafeSerializer(secret, salt=MCP_SESSION_TOKEN_SALT), as NeMo Gym mints its MCP session token: the
 * payload as compact JSON (zlib-compressed and marked with a leading "." when that is shorter), base64url without
 * padding, then "." and the base64url HMAC-SHA1 under the django-concat key derivation. Byte for byte Python's.
 */
export function mcpSessionTokenCodec(secret: string): McpSessionTokenCodec {
  const key = createHash("sha1").update(MCP_SESSION_TOKEN_SALT + "signer" + secret).digest();
  const sign = (message: string) => createHmac("sha1", key).update(message).digest();
  return {
    dumps(claims) {
      // Python's json.dumps(separators=(",", ":")) of an id and tool names: the same bytes as JSON.stringify.
      const json = Buffer.from(JSON.stringify({ sid: claims.sid, tools: claims.tools }), "utf8");
      const compressed = deflateSync(json);
      const body = compressed.length < json.length - 1 ? `.${b64url(compressed)}` : b64url(json);
      return `${body}.${b64url(sign(body))}`;
    },
    loads(token) {
      const dot = token.lastIndexOf(".");
      if (dot <= 0) return undefined;
      const body = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1), "base64url");
      const expected = sign(body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const raw = body.startsWith(".") ? inflateSync(Buffer.from(body.slice(1), "base64url")) : Buffer.from(body, "base64url");
        const claims = JSON.parse(raw.toString("utf8"));
        if (typeof claims?.sid !== "string") return undefined;
        const tools = Array.isArray(claims.tools) && claims.tools.every((t: unknown) => typeof t === "string") ? (claims.tools as string[]) : null;
        return { sid: claims.sid, tools };
      } catch {
        return undefined;
      }
    },
  };
}

/** Session ids whose JSON string is the id itself between quotes (what randomUUID mints). */
const PLAIN_ID = /^[0-9A-Za-z_-]*$/;

/** Entries of each of a codec's caches (a few MB at most). */
const COOKIE_CACHE_LIMIT = 16_384;

/** A codec signing with `secret` (NeMo Gym's own cookies: `secret` = `cookieName`). */
export function sessionCookieCodec(cookieName: string, secret: string): SessionCookieCodec {
  // itsdangerous "django-concat" key derivation with its default salt
  const key = createHash("sha1").update("itsdangerous.Signer" + "signer" + secret).digest();
  const sign = (message: string) => createHmac("sha1", key).update(message).digest();
  // A rollout's calls carry the same cookie, re-set on every answer within the same second: each value is signed
  // once per second and verified once, not on every request (two HMACs per hop otherwise). Only values this codec
  // signed or verified enter the caches; a cache past its bound starts over.
  const signedThisSecond = new Map<string, { second: number; value: string }>();
  const verified = new Map<string, { sessionId: string; issuedAt: number }>();
  let stamp = { second: -1, text: "" };
  const remember = <V>(cache: Map<string, V>, key: string, entry: V) => {
    if (cache.size >= COOKIE_CACHE_LIMIT) cache.clear();
    cache.set(key, entry);
  };

  return {
    cookieName,
    mcpToken: mcpSessionTokenCodec(secret),
    encode(sessionId, nowSeconds = Date.now() / 1000) {
      const second = Math.floor(nowSeconds);
      const known = signedThisSecond.get(sessionId);
      if (known?.second === second) return known.value;
      // A minted id (a UUID) needs no escaping: Python's json.dumps text written directly.
      const json = PLAIN_ID.test(sessionId) ? `{"session_id": "${sessionId}"}` : pythonJsonDumps({ session_id: sessionId });
      if (stamp.second !== second) stamp = { second, text: b64url(timestampBytes(second)) };
      const signed = `${Buffer.from(json, "utf8").toString("base64")}.${stamp.text}`;
      const value = `${signed}.${b64url(sign(signed))}`;
      remember(signedThisSecond, sessionId, { second, value });
      return value;
    },
    decode(value, nowSeconds = Date.now() / 1000) {
      if (!value) return undefined;
      const known = verified.get(value);
      if (known) return nowSeconds - known.issuedAt > SESSION_MAX_AGE_S ? undefined : known.sessionId;
      const lastDot = value.lastIndexOf(".");
      if (lastDot <= 0) return undefined;
      const signed = value.slice(0, lastDot);
      const given = Buffer.from(value.slice(lastDot + 1), "base64url");
      const expected = sign(signed);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      const tsDot = signed.lastIndexOf(".");
      if (tsDot <= 0) return undefined;
      const issuedAt = timestampFromBytes(Buffer.from(signed.slice(tsDot + 1), "base64url"));
      if (nowSeconds - issuedAt > SESSION_MAX_AGE_S) return undefined;
      let session: { session_id?: unknown } | undefined;
      try {
        session = JSON.parse(Buffer.from(signed.slice(0, tsDot), "base64").toString("utf8"));
      } catch {
        return undefined;
      }
      if (typeof session?.session_id !== "string") return undefined;
      remember(verified, value, { sessionId: session.session_id, issuedAt });
      return session.session_id;
    },
    setCookieHeader(sessionId) {
      return `${cookieName}=${this.encode(sessionId)}; path=/; Max-Age=${SESSION_MAX_AGE_S}; httponly; samesite=lax`;
    },
  };
}

/**
 * Parses a Cookie header the way Starlette does: split on ";", split at the first "=", trim, and undo
 * Python's cookie quoting (Python clients wrap values containing "/" or "=" in quotes with \ooo escapes).
 */
export function parseCookieHeader(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const chunk of header.split(";")) {
    const eq = chunk.indexOf("=");
    const name = (eq === -1 ? "" : chunk.slice(0, eq)).trim();
    const value = (eq === -1 ? chunk : chunk.slice(eq + 1)).trim();
    if (name || value) cookies[name] = unquoteCookieValue(value);
  }
  return cookies;
}

export function unquoteCookieValue(value: string): string {
  if (value.length < 2 || value[0] !== '"' || value[value.length - 1] !== '"') return value;
  return value.slice(1, -1).replace(/\\(?:([0-3][0-7][0-7])|(.))/g, (_m, octal: string | undefined, ch: string | undefined) =>
    octal !== undefined ? String.fromCharCode(parseInt(octal, 8)) : (ch ?? ""),
  );
}
