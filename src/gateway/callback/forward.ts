// Forwards one model call of an agent to the Relax session that owns the rollout (spec §2.3 steps 1–9).
// Relax may commit a turn to its session tree before answering, so a request is repeated only when Relax said
// plainly that it failed (500/502/503/504); anything ambiguous is reported, never replayed.
import { setTimeout as sleepMs } from "node:timers/promises";
import { Agent, ProxyAgent, type Dispatcher } from "undici";
import type { Logger } from "../../server/logger.ts";
import { redactForLog, redactText } from "../redact.ts";
import { isJsonObject, type CallbackResource, type CallbackTarget, type JsonObject, type JsonValue } from "../types.ts";
import { applyResponsesFixups } from "./responses-fixups.ts";

/** A callback that cannot be answered with Relax's reply; the bridge answers `status` with `{detail}`. */
export class CallbackForwardError extends Error {
  constructor(
    readonly status: 502 | 422,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "CallbackForwardError";
  }
}

/** The trial's signal fired (abort, expiry): the request or backoff in progress was dropped, not retried. */
export class CallbackCancelledError extends Error {
  constructor() {
    super("callback cancelled with its trial");
    this.name = "CallbackCancelledError";
  }
}

/** Seconds on a monotonic clock, and a sleep that an abort ends at once. Tests substitute a fake one. */
export interface CallbackClock {
  now(): number;
  sleep(seconds: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: CallbackClock = {
  now: () => performance.now() / 1000,
  sleep: (seconds, signal) => sleepMs(seconds * 1000, undefined, { signal }),
};

export interface AttemptInfo {
  attempt: number;
  /** Seconds since the forward began. */
  atS: number;
  readTimeoutS: number;
  connectTimeoutS: number;
}

export type ForwardResult =
  | { status: number; contentType: "application/json"; body: JsonObject }
  | { status: number; contentType: "text/event-stream"; body: string };

export interface ForwardOptions {
  rolloutId: string;
  resource: CallbackResource;
  /** The agent's body as parsed; never modified. */
  body: unknown;
  target: CallbackTarget;
  callbackTimeoutS: number;
  dispatcher: Dispatcher;
  signal: AbortSignal;
  logger: Logger;
  /** Log request and response payloads (secrets redacted). */
  verbose?: boolean;
  clock?: CallbackClock;
  onAttempt?: (attempt: AttemptInfo) => void;
}

export const CONNECT_TIMEOUT_CAP_S = 30;
const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);
/** Relax's reply when the turn may already be committed; repeating it would fork the session. */
const RENDERING_FAILURE = "Internal error while rendering agentic response.";
const MAX_BACKOFF_S = 8;
const SUMMARY_LIMIT = 4000;

/**
 * The outbound client for callbacks. Only the explicit proxy is used: proxy environment variables are never
 * read. Undici's own read timers are off because each attempt is bounded by the callback budget instead.
 */
export function createCallbackDispatcher(options: { proxyUrl?: string | null; connectTimeoutS?: number } = {}): Dispatcher {
  const connectTimeoutMs = (options.connectTimeoutS ?? CONNECT_TIMEOUT_CAP_S) * 1000;
  const common = { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000 };
  if (!options.proxyUrl) return new Agent({ ...common, connect: { timeout: connectTimeoutMs } });
  return new ProxyAgent({ ...common, uri: options.proxyUrl, proxyTls: { timeout: connectTimeoutMs }, requestTls: { timeout: connectTimeoutMs } });
}

export async function forwardCallback(options: ForwardOptions): Promise<ForwardResult> {
  const { target, resource, logger, rolloutId } = options;
  if (!isJsonObject(options.body)) throw new CallbackForwardError(422, "Callback body must be a JSON object");
  const payload = upstreamPayload(options.body, target);
  const request = {
    url: upstreamUrl(target.base_url, resource),
    headers: upstreamHeaders(target),
    // Serialized once so every attempt sends the same bytes.
    body: JSON.stringify(payload),
  };
  const log = { rolloutId, resource };
  if (options.verbose) logger.info({ ...log, payload: loggablePayload(payload, target.api_key) }, "model callback request");

  const answer = await sendWithRetries(options, request);
  if (answer.status >= 400) {
    logger.warn({ ...log, status: answer.status, error: errorSummary(answer.text, target.api_key) }, "model callback rejected upstream");
  }
  const result = decodeAnswer(answer, Boolean(payload.stream));
  if (resource === "responses" && result.contentType === "application/json" && result.status < 400) {
    applyResponsesFixups(result.body, payload);
  }
  if (options.verbose) logger.info({ ...log, status: result.status, payload: loggablePayload(result.body, target.api_key) }, "model callback response");
  return result;
}

interface UpstreamRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

interface UpstreamAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** One budget, min(time left in the trial, the callback cap), covers every attempt, read and backoff sleep. */
async function sendWithRetries(options: ForwardOptions, request: UpstreamRequest): Promise<UpstreamAnswer> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  const deadline = startedAt + Math.min(options.target.remaining_s, options.callbackTimeoutS);
  const log = { rolloutId: options.rolloutId, resource: options.resource };
  let backoffS = 1;
  for (let attempt = 1; ; attempt++) {
    const remainingS = deadline - clock.now();
    if (remainingS <= 0) throw deadlineExceeded(options.logger, log);
    options.onAttempt?.({ attempt, atS: clock.now() - startedAt, readTimeoutS: remainingS, connectTimeoutS: Math.min(remainingS, CONNECT_TIMEOUT_CAP_S) });
    const answer = await sendOnce(options, request, remainingS);
    if (!shouldRetry(answer)) {
      if (attempt > 1) options.logger.info({ ...log, attempts: attempt, status: answer.status, elapsedS: clock.now() - startedAt }, "model callback retries finished");
      return answer;
    }
    const leftS = deadline - clock.now();
    if (leftS <= 0) throw deadlineExceeded(options.logger, log);
    const waitS = Math.min(backoffS, leftS);
    options.logger.warn(
      { ...log, attempt, status: answer.status, waitS, remainingS: leftS, error: errorSummary(answer.text, options.target.api_key) },
      "retrying model callback",
    );
    try {
      await clock.sleep(waitS, options.signal);
    } catch (error) {
      if (options.signal.aborted) throw new CallbackCancelledError();
      throw error;
    }
    if (options.signal.aborted) throw new CallbackCancelledError();
    backoffS = Math.min(backoffS * 2, MAX_BACKOFF_S);
  }
}

/** One POST whose whole exchange (connect, headers, body) must finish within `timeoutS`. */
async function sendOnce(options: ForwardOptions, request: UpstreamRequest, timeoutS: number): Promise<UpstreamAnswer> {
  const { signal } = options;
  if (signal.aborted) throw new CallbackCancelledError();
  const attempt = new AbortController();
  let budgetSpent = false;
  const cancel = () => attempt.abort(signal.reason);
  signal.addEventListener("abort", cancel, { once: true });
  const timer = setTimeout(
    () => {
      budgetSpent = true;
      attempt.abort(new Error("callback budget spent"));
    },
    Math.min(Math.max(timeoutS * 1000, 1), 2 ** 31 - 1),
  );
  try {
    const response = await options.dispatcher.request({
      origin: request.url.origin,
      path: `${request.url.pathname}${request.url.search}`,
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: attempt.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const text = await response.body.text();
    const contentType = response.headers["content-type"];
    return { status: response.statusCode, contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? "", text };
  } catch (error) {
    if (signal.aborted) throw new CallbackCancelledError();
    const log = { rolloutId: options.rolloutId, resource: options.resource };
    if (budgetSpent) throw deadlineExceeded(options.logger, log);
    const code = (error as { code?: string }).code;
    options.logger.warn({ ...log, code, error: (error as Error).message }, "model callback transport failed; not retried");
    throw new CallbackForwardError(502, "Upstream model callback transport failed");
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", cancel);
  }
}

function shouldRetry(answer: UpstreamAnswer): boolean {
  if (!RETRYABLE_STATUSES.has(answer.status)) return false;
  const parsed = parseJson(answer.text);
  const error = isJsonObject(parsed) ? parsed.error : undefined;
  return !(isJsonObject(error) && error.message === RENDERING_FAILURE);
}

function deadlineExceeded(logger: Logger, log: object): CallbackForwardError {
  logger.warn(log, "model callback deadline exceeded");
  return new CallbackForwardError(502, "Upstream model callback deadline exceeded");
}

function decodeAnswer(answer: UpstreamAnswer, streamRequested: boolean): ForwardResult {
  if (streamRequested && answer.contentType.toLowerCase().startsWith("text/event-stream")) {
    return { status: answer.status, contentType: "text/event-stream", body: answer.text };
  }
  const parsed = parseJson(answer.text);
  if (parsed === undefined) throw new CallbackForwardError(502, "Upstream model callback returned a non-JSON response");
  if (!isJsonObject(parsed)) throw new CallbackForwardError(502, "Upstream model callback response must be a JSON object");
  return { status: answer.status, contentType: "application/json", body: parsed };
}

/** The agent's body with the trial's sampling parameters laid over it and the trial's model forced. */
function upstreamPayload(body: JsonObject, target: CallbackTarget): JsonObject {
  const sampling = target.generation.sampling_params;
  return { ...body, ...(isJsonObject(sampling) ? sampling : {}), model: target.model };
}

function upstreamUrl(baseUrl: string, resource: CallbackResource): URL {
  const base = baseUrl.replace(/\/+$/, "");
  return new URL(base.endsWith("/v1") ? `${base}/${resource}` : `${base}/v1/${resource}`);
}

function upstreamHeaders(target: CallbackTarget): Record<string, string> {
  const headers: Record<string, string> = { ...target.headers, [target.api_key_header]: `${target.api_key_prefix}${target.api_key}` };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
  return headers;
}

/** What Relax said went wrong, redacted by key and by the token's value (Relax may echo it), bounded for a log line. */
function errorSummary(text: string, secret: string): string {
  const parsed = parseJson(text);
  const error = isJsonObject(parsed) ? (parsed.error ?? parsed.detail ?? parsed) : (parsed ?? text);
  return redactText(JSON.stringify(redactForLog(error)), [secret], SUMMARY_LIMIT);
}

/** A payload for a verbose log line, redacted the same way, unbounded. */
function loggablePayload(payload: JsonValue, secret: string): string {
  return redactText(JSON.stringify(redactForLog(payload)), [secret], Number.POSITIVE_INFINITY);
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
