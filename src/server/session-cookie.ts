// Session cookies byte-compatible with Starlette's SessionMiddleware (itsdangerous TimestampSigner), so a
// cookie minted by a Python NeMo Gym server is accepted here and vice versa.
//   value = base64(json.dumps(session)) "." base64url(timestamp) "." base64url(HMAC-SHA1)
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { pythonJsonDumps } from "../python/json-dumps.ts";

export const SESSION_MAX_AGE_S = 14 * 24 * 60 * 60;

export interface SessionCookieCodec {
  readonly cookieName: string;
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

export function sessionCookieCodec(cookieName: string, secret: string = cookieName): SessionCookieCodec {
  // itsdangerous "django-concat" key derivation with its default salt
  const key = createHash("sha1").update("itsdangerous.Signer" + "signer" + secret).digest();
  const sign = (message: string) => createHmac("sha1", key).update(message).digest();

  return {
    cookieName,
    encode(sessionId, nowSeconds = Date.now() / 1000) {
      const payload = Buffer.from(pythonJsonDumps({ session_id: sessionId }), "utf8").toString("base64");
      const signed = `${payload}.${b64url(timestampBytes(nowSeconds))}`;
      return `${signed}.${b64url(sign(signed))}`;
    },
    decode(value, nowSeconds = Date.now() / 1000) {
      if (!value) return undefined;
      const lastDot = value.lastIndexOf(".");
      if (lastDot <= 0) return undefined;
      const signed = value.slice(0, lastDot);
      const given = Buffer.from(value.slice(lastDot + 1), "base64url");
      const expected = sign(signed);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      const tsDot = signed.lastIndexOf(".");
      if (tsDot <= 0) return undefined;
      const ageSeconds = nowSeconds - timestampFromBytes(Buffer.from(signed.slice(tsDot + 1), "base64url"));
      if (ageSeconds > SESSION_MAX_AGE_S) return undefined;
      try {
        const session = JSON.parse(Buffer.from(signed.slice(0, tsDot), "base64").toString("utf8"));
        return typeof session?.session_id === "string" ? session.session_id : undefined;
      } catch {
        return undefined;
      }
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
