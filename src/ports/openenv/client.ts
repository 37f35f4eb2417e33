// A client of one OpenEnv environment session: OpenEnv's EnvClient (src/openenv/core/env_client.py) over WS /ws,
// with undici's WebSocket. Every exchange is bounded: a connect timeout, a per-message deadline, and bounded
// connect retries. A step is never retried (a second send could apply the action twice, and a reconnect would be a
// new environment); a reset on a fresh connection is, via `openSession`.
//
// Failures are typed: `OpenEnvTransportError` (connection refused/reset/closed, a deadline, an answer that is not
// OpenEnv's JSON) is the infrastructure's fault, a 502/504 that is never a reward; `OpenEnvEnvironmentError` is the
// environment's own `{"type": "error"}` answer (an action it refused, an exception in its step), which an adapter
// may show the model as NeMo Gym shows an in-process exception.
import { WebSocket } from "undici";
import { HttpError } from "../../protocol/errors.ts";
import { isRecord, type OpenEnvState, type OpenEnvStepResult, type WsErrorData } from "./protocol.ts";

export type OpenEnvTransportKind = "transport" | "timeout" | "invalid_answer";

export class OpenEnvTransportError extends HttpError {
  constructor(
    readonly kind: OpenEnvTransportKind,
    readonly url: string,
    message: string,
  ) {
    super(kind === "timeout" ? 504 : 502, `OpenEnv environment at ${url}: ${message}`);
    this.name = "OpenEnvTransportError";
  }
}

export class OpenEnvEnvironmentError extends Error {
  constructor(readonly data: WsErrorData) {
    super(`Server error: ${data.message} (code: ${data.code})`);
    this.name = "OpenEnvEnvironmentError";
  }
}

export interface OpenEnvClientOptions {
  connectTimeoutMs?: number;
  /** Deadline of one request/answer exchange (OpenEnv's message_timeout_s). */
  messageTimeoutMs?: number;
  /** Extra connect attempts after a failed one (`openSession` also re-sends the reset on the new connection). */
  connectRetries?: number;
  retryBackoffMs?: number;
}

const DEFAULTS = { connectTimeoutMs: 10_000, messageTimeoutMs: 60_000, connectRetries: 2, retryBackoffMs: 200 } as const;

/** http(s)://host:port[/prefix] → ws(s)://host:port[/prefix]/ws (OpenEnv's convert_to_ws_url + "/ws"). */
export function wsUrlOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new Error(`an OpenEnv base URL is http(s):// or ws(s)://, not ${baseUrl}`);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/ws`;
  return url.toString();
}

interface Pending {
  resolve(message: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class OpenEnvSession {
  private pending: Pending | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private broken: OpenEnvTransportError | undefined;
  private closedByUs = false;

  private constructor(
    private readonly ws: WebSocket,
    readonly url: string,
    private readonly messageTimeoutMs: number,
  ) {
    ws.addEventListener("message", (event) => this.onMessage(event.data));
    ws.addEventListener("close", (event) => this.fail(new OpenEnvTransportError("transport", url, `the connection closed (code ${event.code}${event.reason ? `: ${event.reason}` : ""})`)));
    ws.addEventListener("error", () => this.fail(new OpenEnvTransportError("transport", url, "the connection failed")));
  }

  /** One connection attempt, bounded by `connectTimeoutMs`. */
  static connect(baseUrl: string, options: OpenEnvClientOptions = {}): Promise<OpenEnvSession> {
    const url = wsUrlOf(baseUrl);
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
    const messageTimeoutMs = options.messageTimeoutMs ?? DEFAULTS.messageTimeoutMs;
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const timer = setTimeout(() => {
        cleanup();
        ws.close();
        reject(new OpenEnvTransportError("timeout", url, `no connection within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const onOpen = () => {
        cleanup();
        resolve(new OpenEnvSession(ws, url, messageTimeoutMs));
      };
      const onFail = (event: Event) => {
        cleanup();
        const code = (event as { code?: number }).code;
        reject(new OpenEnvTransportError("transport", url, code !== undefined ? `the connection closed during the handshake (code ${code})` : "could not connect"));
      };
      const cleanup = () => {
        clearTimeout(timer);
        ws.removeEventListener("open", onOpen);
        ws.removeEventListener("error", onFail);
        ws.removeEventListener("close", onFail);
      };
      ws.addEventListener("open", onOpen);
      ws.addEventListener("error", onFail);
      ws.addEventListener("close", onFail);
    });
  }

  /**
   * Connects and resets, retrying both on a transport failure (each attempt is a fresh connection, so a fresh
   * environment: replaying the reset applies nothing twice). The environment's own error answer is not retried.
   */
  static async openSession(baseUrl: string, resetKwargs: Record<string, unknown>, options: OpenEnvClientOptions = {}): Promise<{ session: OpenEnvSession; initial: OpenEnvStepResult }> {
    const retries = options.connectRetries ?? DEFAULTS.connectRetries;
    const backoff = options.retryBackoffMs ?? DEFAULTS.retryBackoffMs;
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, backoff * 2 ** (attempt - 1)));
      let session: OpenEnvSession | undefined;
      try {
        session = await OpenEnvSession.connect(baseUrl, options);
        const initial = await session.reset(resetKwargs);
        return { session, initial };
      } catch (error) {
        session?.close();
        if (!(error instanceof OpenEnvTransportError)) throw error;
        last = error;
      }
    }
    throw last;
  }

  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  reset(kwargs: Record<string, unknown> = {}): Promise<OpenEnvStepResult> {
    return this.exchange({ type: "reset", data: kwargs }, "observation").then((data) => this.stepResult(data));
  }

  step(action: Record<string, unknown>): Promise<OpenEnvStepResult> {
    return this.exchange({ type: "step", data: action }, "observation").then((data) => this.stepResult(data));
  }

  state(): Promise<OpenEnvState> {
    return this.exchange({ type: "state" }, "state") as Promise<OpenEnvState>;
  }

  /** Sends OpenEnv's close message (best effort) and closes the socket. */
  close(): void {
    if (this.closedByUs) return;
    this.closedByUs = true;
    try {
      if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: "close" }));
      this.ws.close(1000);
    } catch {
      // already gone
    }
    this.fail(new OpenEnvTransportError("transport", this.url, "the session was closed"));
  }

  private stepResult(data: Record<string, unknown>): OpenEnvStepResult {
    const { observation, reward, done, metadata } = data;
    if (!isRecord(observation) || typeof done !== "boolean" || !(reward === null || reward === undefined || typeof reward === "number" || typeof reward === "boolean")) {
      throw this.poison(new OpenEnvTransportError("invalid_answer", this.url, `an observation without {observation: object, reward: number|null, done: bool}: ${JSON.stringify(data).slice(0, 300)}`));
    }
    const result: OpenEnvStepResult = { observation, reward: reward === undefined || reward === null ? null : Number(reward), done };
    if (isRecord(metadata)) result.metadata = metadata;
    return result;
  }

  /** One request, one answer, after every earlier exchange of this session has ended. */
  private exchange(message: Record<string, unknown>, expected: string): Promise<Record<string, unknown>> {
    const run = () =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        if (this.broken) return reject(this.broken);
        const timer = setTimeout(() => {
          this.pending = undefined;
          // The answer may still come and would be read as the next one's: the connection is no longer usable.
          reject(this.poison(new OpenEnvTransportError("timeout", this.url, `no answer to '${String(message.type)}' within ${this.messageTimeoutMs} ms`)));
        }, this.messageTimeoutMs);
        this.pending = { resolve, reject, timer };
        try {
          this.ws.send(JSON.stringify(message));
        } catch (error) {
          this.fail(new OpenEnvTransportError("transport", this.url, `send failed: ${(error as Error).message}`));
        }
      }).then((answer) => {
        if (answer.type === "error") throw new OpenEnvEnvironmentError(isRecord(answer.data) ? (answer.data as WsErrorData) : { message: String(answer.data), code: "UNKNOWN" });
        if (answer.type !== expected || !isRecord(answer.data)) {
          throw this.poison(new OpenEnvTransportError("invalid_answer", this.url, `expected a '${expected}' message, got ${JSON.stringify(answer).slice(0, 300)}`));
        }
        return answer.data;
      });
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  private onMessage(data: unknown): void {
    const pending = this.pending;
    if (!pending) return; // an answer after its deadline: the session is already poisoned
    this.pending = undefined;
    clearTimeout(pending.timer);
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer).toString("utf8"));
    } catch {
      return pending.reject(this.poison(new OpenEnvTransportError("invalid_answer", this.url, `an answer that is not JSON: ${String(data).slice(0, 200)}`)));
    }
    if (!isRecord(parsed)) return pending.reject(this.poison(new OpenEnvTransportError("invalid_answer", this.url, `an answer that is not a JSON object: ${String(data).slice(0, 200)}`)));
    pending.resolve(parsed);
  }

  /** Marks the session unusable and closes its socket; returns the error for throwing. */
  private poison(error: OpenEnvTransportError): OpenEnvTransportError {
    if (!this.broken) this.broken = error;
    try {
      this.ws.close();
    } catch {
      // already gone
    }
    return error;
  }

  private fail(error: OpenEnvTransportError): void {
    if (!this.broken) this.broken = error;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }
}
