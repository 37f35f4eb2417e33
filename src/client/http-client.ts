// Outbound HTTP for every Gym component: undici Pools (one per origin), explicit cookies (no jar, as in
// NeMo Gym), a connect timeout, a per-call deadline, and bounded retries for transport failures only —
// and only when replaying the request cannot apply it twice (see `replaySafe`).
import { createRequire } from "node:module";
import type { Dispatcher, Pool as UndiciPool } from "undici";
import { ARRAY_ENCODING_HEADER, parseWire, stringifyWire, type ArrayEncoding } from "../protocol/wire-json.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../protocol/failures.ts";
import { injectTraceContext } from "../metrics/tracing.ts";

// undici's Pool and its request API on their own: the package's index loads all of undici (fetch, WebSocket,
// cookies, caches), 100–120 ms of every process's start here against ~30, and every server, collector and CLI
// process makes a client. The index gives dispatchers their request methods so (Object.assign onto
// Dispatcher.prototype, the same objects whichever loads first). undici's version is pinned exactly, and a moved path
// fails this import at once.
const requireUndici = createRequire(import.meta.url);
const Pool = requireUndici("undici/lib/dispatcher/pool.js") as typeof UndiciPool;
Object.assign((requireUndici("undici/lib/dispatcher/dispatcher.js") as { prototype: object }).prototype, requireUndici("undici/lib/api/index.js"));
type Pool = UndiciPool;

export interface HttpClientOptions {
  connectTimeoutMs?: number;
  /** Whole-call deadline (connect + request + response body). */
  deadlineMs?: number;
  /**
   * Retries after a transport failure (refused, reset, connect timeout). HTTP statuses are never retried here, and a
   * POST whose bytes may have reached the server is retried only when it is replay-safe (see RequestOptions).
   */
  maxRetries?: number;
  retryBackoffMs?: number;
  /** Sockets per origin; requests beyond this queue inside the pool instead of opening more sockets. */
  connectionsPerOrigin?: number;
  keepAliveMs?: number;
  /**
   * `packed-v1` offers the compact encoding of training arrays on every call; bodies are sent packed
   * only to an origin that has answered packed, so a NeMo Gym (Python) peer only ever sees plain JSON.
   */
  arrayEncoding?: ArrayEncoding;
}

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  json?: unknown;
  /** A pre-serialized body; sent as is with content-type application/json. */
  rawBody?: string;
  cookies?: Record<string, string>;
  headers?: Record<string, string>;
  deadlineMs?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  /**
   * Sent as `x-ng-idempotency-key`: the server de-duplicates the call by it, so a POST carrying one may be replayed
   * after a reset. Use one value per logical call (a tool call); it stays the same on every retry of that call.
   */
  idempotencyKey?: string;
  /** The caller vouches that replaying this POST is harmless (the server de-duplicates it some other way). */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Only the cookies set by this response (NeMo Gym's `response.cookies`). */
  cookies: Record<string, string>;
  text: string;
  /** The body parsed as JSON: a value of the caller's own (a later call parses again); throws when it is not JSON. */
  json<T = unknown>(): T;
  /**
   * The body parsed as JSON for a look that neither keeps nor changes it (an agent's check that an answer is the
   * server's own): the next json() hands over that same parse instead of parsing the text again.
   */
  peekJson?(): unknown;
  ok: boolean;
}

/**
 * json() and peekJson() over one parse: a peek parses once and the first json() after it takes that value, so an
 * answer checked and then read is parsed once, and every json() still returns a value nobody else holds.
 */
export function jsonReaders(parse: () => unknown): Pick<HttpResponse, "json" | "peekJson"> {
  let peeked: { value: unknown } | undefined;
  return {
    json<T>() {
      if (peeked === undefined) return parse() as T;
      const { value } = peeked;
      peeked = undefined;
      return value as T;
    },
    peekJson() {
      peeked ??= { value: parse() };
      return peeked.value;
    },
  };
}

export class TransportError extends Error {
  constructor(
    message: string,
    readonly url: string,
    readonly code: string | undefined,
    readonly attempts: number,
  ) {
    super(message);
    this.name = "TransportError";
  }
}

export class DeadlineExceededError extends Error {
  constructor(
    readonly url: string,
    readonly deadlineMs: number,
  ) {
    super(`${url}: no complete answer within ${deadlineMs} ms`);
    this.name = "DeadlineExceededError";
  }
}

/** Failures before any byte of the request left: retrying never applies a request twice. */
const FAILED_BEFORE_SENDING = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "EAI_AGAIN"]);
/** Failures once a connection existed: the server may have received the request and acted on it. */
const FAILED_MID_EXCHANGE = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * Whether a request may be sent again after a mid-exchange failure: GET, PUT and DELETE are idempotent in HTTP; a
 * POST only with an idempotency key (the server stores its answer) or the caller's word.
 */
function replaySafe(method: string, headers: Record<string, string>, options: RequestOptions): boolean {
  return method !== "POST" || options.idempotent === true || headers[IDEMPOTENCY_KEY_HEADER] !== undefined;
}

export const DEFAULT_HTTP_OPTIONS: Required<HttpClientOptions> = {
  connectTimeoutMs: 10_000,
  deadlineMs: 900_000,
  maxRetries: 3,
  retryBackoffMs: 200,
  connectionsPerOrigin: 1024,
  keepAliveMs: 15_000,
  arrayEncoding: "json",
};

export function cookieHeader(cookies: Record<string, string> | undefined): string | undefined {
  if (!cookies) return undefined;
  const parts = Object.entries(cookies).map(([name, value]) => `${name}=${value}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

export function cookiesFromSetCookie(header: string | string[] | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const line of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
    const first = line.split(";", 1)[0]!;
    const eq = first.indexOf("=");
    if (eq > 0) cookies[first.slice(0, eq).trim()] = first.slice(eq + 1).trim();
  }
  return cookies;
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One call's abort for undici: its deadline and the caller's signal in one small emitter (undici takes an
 * EventEmitter-like signal: it checks for `on`, listens with `once`, reads `aborted` and `reason`, and takes its
 * listener off with `removeListener`). It replaces an AbortSignal.timeout and an
 * AbortSignal.any per call — two EventTargets, the first one's timer left pending for the whole deadline and swept by
 * a FinalizationRegistry — which cost an agent about 4% of its CPU at 64 rollouts in flight. Ended with the call: its
 * timer cleared, and it no longer follows the caller's signal.
 */
class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  /** The deadline, not the caller, ended the call. */
  deadlineExceeded = false;
  private listeners: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    deadlineMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.deadlineExceeded = true;
      this.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    }, deadlineMs);
    this.timer.unref();
    if (caller?.aborted) this.abort(caller.reason);
    else if (caller) callsFollowing(caller).add(this);
  }

  once(_event: "abort", listener: () => void): this {
    this.listeners.push(listener);
    return this;
  }

  on(event: "abort", listener: () => void): this {
    return this.once(event, listener);
  }

  removeListener(_event: "abort", listener: () => void): this {
    this.listeners = this.listeners.filter((entry) => entry !== listener);
    return this;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.end();
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  /** The call is over: nothing of it stays pending. */
  end(): void {
    clearTimeout(this.timer);
    if (this.caller) callsUnder.get(this.caller)?.delete(this);
  }
}

/**
 * The calls in flight under each caller's signal. One listener per signal, however many calls share it (a
 * collection's run-wide signal is shared by every rollout in flight): a listener per call would be thousands on one
 * EventTarget, each removal a scan of them, and Node's possible-leak warning past ten.
 */
const callsUnder = new WeakMap<AbortSignal, Set<CallAbort>>();

function callsFollowing(signal: AbortSignal): Set<CallAbort> {
  let calls = callsUnder.get(signal);
  if (!calls) {
    const following = new Set<CallAbort>();
    callsUnder.set(signal, (calls = following));
    signal.addEventListener("abort", () => {
      for (const call of [...following]) call.abort(signal.reason);
    }, { once: true });
  }
  return calls;
}

export class HttpClient {
  readonly options: Required<HttpClientOptions>;
  private readonly pools = new Map<string, Pool>();
  /** Origins that answered in packed-v1, so they read it too. */
  private readonly packedOrigins = new Set<string>();

  constructor(options: HttpClientOptions = {}) {
    this.options = { ...DEFAULT_HTTP_OPTIONS, ...options };
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connectionsPerOrigin,
        keepAliveTimeout: this.options.keepAliveMs,
        keepAliveMaxTimeout: this.options.keepAliveMs * 4,
        connect: { timeout: this.options.connectTimeoutMs },
        // The per-call deadline below bounds the whole exchange; undici's own timers would cut long generations.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const target = new URL(url);
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    const maxRetries = options.maxRetries ?? this.options.maxRetries;
    const headers: Record<string, string> = { ...options.headers };
    if (options.idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey;
    const cookie = cookieHeader(options.cookies);
    if (cookie) headers.cookie = cookie;
    const offerPacked = this.options.arrayEncoding === "packed-v1";
    if (offerPacked) headers[ARRAY_ENCODING_HEADER] = "packed-v1";
    let body: string | undefined = options.rawBody;
    if (body === undefined && options.json !== undefined) {
      body = offerPacked && this.packedOrigins.has(target.origin) ? stringifyWire(options.json, { encoding: "packed-v1" }) : JSON.stringify(options.json);
    }
    if (body !== undefined) headers["content-type"] ??= "application/json";
    injectTraceContext(headers); // W3C traceparent of the active span; returns at once when tracing is off

    const method = options.method ?? (body === undefined ? "GET" : "POST");
    const mayReplay = replaySafe(method, headers, options);
    const signal = new CallAbort(deadlineMs, options.signal);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const response = await this.pool(target.origin).request({
            path: target.pathname + target.search,
            method,
            headers,
            body,
            signal,
          });
          const text = await response.body.text();
          const packed = offerPacked && response.headers[ARRAY_ENCODING_HEADER] === "packed-v1";
          if (packed) this.packedOrigins.add(target.origin);
          return toHttpResponse(response, text, packed ? "packed-v1" : "json");
        } catch (error) {
          if (signal.deadlineExceeded) throw new DeadlineExceededError(url, deadlineMs);
          if (options.signal?.aborted) throw error;
          const code = errorCode(error) ?? "";
          const retryable = FAILED_BEFORE_SENDING.has(code) || (FAILED_MID_EXCHANGE.has(code) && mayReplay);
          if (!retryable || attempt >= maxRetries) {
            const why = FAILED_MID_EXCHANGE.has(code) && !mayReplay ? "; not retried: the server may have run this POST" : "";
            throw new TransportError(`${url}: ${(error as Error).message} (${code || "no code"}) after ${attempt + 1} attempt(s)${why}`, url, code || undefined, attempt + 1);
          }
          await sleep(this.options.retryBackoffMs * 2 ** attempt);
        }
      }
    } finally {
      signal.end();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}

function toHttpResponse(response: Dispatcher.ResponseData, text: string, encoding: ArrayEncoding): HttpResponse {
  return {
    status: response.statusCode,
    headers: response.headers,
    cookies: cookiesFromSetCookie(response.headers["set-cookie"]),
    text,
    ok: response.statusCode >= 200 && response.statusCode < 300,
    ...jsonReaders(() => parseWire(text, encoding)),
  };
}
