// A route of this server called by this server's own code without HTTP — an agent's /run calling its own
// /v1/responses, NeMo Gym's self-call — answering exactly what the route answers over HTTP, as an HttpResponse:
// the body as JSON text (sent through JSON.stringify and read back as the server reads bodies, so the handler
// gets its own copy and the body limits hold), the cookies as the server parses a Cookie header, the session id
// from this server's cookie, the deadline and the caller's signal as the HTTP client applies them, errors answered
// by the error handler's own rules (errorAnswer), the session cookie re-set, and a 5xx logged as the HTTP route logs
// it. What it saves is the socket, undici's request and fastify's request and reply.
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { DeadlineExceededError, cookieHeader, cookiesFromSetCookie, type HttpResponse } from "../client/http-client.ts";
import { HttpError } from "../protocol/errors.ts";
import { abbreviatedPath, FLOAT_FIELDS, JsonDepthError, parseRequestJson, stringifyWire } from "../protocol/wire-json.ts";
import { errorAnswer, failedAnswerLine, headerSafeCookies } from "./base-app.ts";
import { parseCookieHeader } from "./session-cookie.ts";

export interface InProcessCall {
  /** The body as the route reads it (undefined: no body). */
  body: unknown;
  cookies: Record<string, string>;
  sessionId: string;
  /** Aborted when the caller gives up or the deadline passes (an HTTP route hears its caller hang up). */
  signal: AbortSignal;
}

/** A route's own answer: 200 with `body` serialized (and the route's Set-Cookie lines), or a status with pre-encoded JSON text. */
export type InProcessAnswer =
  | { body: unknown; setCookie?: string[] }
  | { status: number; jsonText: string; headers?: Record<string, string> };

export interface InProcessRequest {
  json: unknown;
  cookies: Record<string, string>;
  signal: AbortSignal;
}

export async function answerInProcess(
  app: FastifyInstance,
  route: { path: string; url: string; deadlineMs: number },
  request: InProcessRequest,
  handle: (call: InProcessCall) => Promise<InProcessAnswer>,
): Promise<HttpResponse> {
  const rules = app.answering;
  const codec = app.sessionCookies;
  // The HTTP client sends JSON.stringify(json); the server reads it back with its own parser and limits.
  const text = request.json === undefined ? undefined : JSON.stringify(request.json);
  const cookies = headerSafeCookies(parseCookieHeader(cookieHeader(request.cookies)));
  const sessionId = codec.decode(cookies[codec.cookieName]) ?? randomUUID();
  let body: unknown;

  // The HTTP client's deadline, as a timer cleared when the answer is in: an AbortSignal.timeout would hold this
  // call's closures (its body, its answer) for the whole deadline after the call is done.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), route.deadlineMs);
  const signal = AbortSignal.any([deadline.signal, request.signal]);
  const serialize = (value: unknown) => stringifyWire(value, { encoding: "json", floatFields: FLOAT_FIELDS });
  const run = async (): Promise<{ status: number; headers: Record<string, string>; text: string; setCookie: string[] }> => {
    let answer: { status: number; headers: Record<string, string>; text: string; setCookie: string[] };
    try {
      if (text !== undefined && Buffer.byteLength(text) > rules.bodyLimit) throw Object.assign(new Error("body too large"), { statusCode: 413 });
      body = text === undefined ? undefined : readBody(text, rules.maxJsonDepth);
      const own = await handle({ body, cookies, sessionId, signal });
      answer =
        "jsonText" in own
          ? { status: own.status, headers: { "content-type": "application/json", ...own.headers }, text: own.jsonText, setCookie: [] }
          : {
              status: 200,
              headers: { "content-type": "application/json; charset=utf-8" },
              text: serialize(own.body),
              setCookie: own.setCookie ?? [],
            };
    } catch (error) {
      const own = errorAnswer(error, rules);
      if (own.bug) {
        // A bug in this server's code: its stack, once, instead of the one-line failure log below.
        rules.log.error(`POST ${route.path} failed: ${(error as Error)?.stack ?? error}`);
        return { status: own.status, headers: { "content-type": "application/json", ...own.headers }, text: own.body as string, setCookie: [] };
      }
      answer = { status: own.status, headers: { "content-type": "application/json", ...own.headers }, text: typeof own.body === "string" ? own.body : serialize(own.body), setCookie: [] };
    }
    if (answer.status >= 500) rules.log.warn(failedAnswerLine({ rolloutId: undefined, body, method: "POST", url: route.path }, answer.status, answer.text));
    return answer;
  };

  const answering = run();
  const stop = abortedBy(signal, () => (deadline.signal.aborted ? new DeadlineExceededError(route.url, route.deadlineMs) : request.signal.reason));
  let answer: Awaited<ReturnType<typeof run>>;
  try {
    answer = await Promise.race([answering, stop.promise]);
  } catch (error) {
    // Nobody reads this answer any more (the caller gave up, or its deadline passed), as over HTTP.
    answering.catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    stop.cancel();
  }
  // Every answer re-sets this server's session cookie, after the route's own (base-app's onSend).
  const setCookie = [...answer.setCookie, codec.setCookieHeader(sessionId)];
  return {
    status: answer.status,
    headers: { ...answer.headers, "set-cookie": setCookie },
    cookies: cookiesFromSetCookie(setCookie),
    text: answer.text,
    ok: answer.status >= 200 && answer.status < 300,
    json<T>() {
      return JSON.parse(answer.text) as T;
    },
  };
}

/** The body read as the server's content parser reads it: Python's JSON, nesting bounded (a 413 past the limit). */
function readBody(text: string, maxJsonDepth: number): unknown {
  if (text.length === 0) return undefined;
  try {
    return parseRequestJson(text, "json", maxJsonDepth);
  } catch (error) {
    if (error instanceof JsonDepthError) throw new HttpError(413, `Request body nests deeper than ${error.maxDepth} levels at ${abbreviatedPath(error.path)}`);
    throw error;
  }
}

/** A promise that rejects with `reason()` once `signal` aborts, until `cancel()` takes its listener off the signal. */
function abortedBy(signal: AbortSignal, reason: () => unknown): { promise: Promise<never>; cancel(): void } {
  let onAbort = () => undefined as void;
  const promise = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(reason());
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, cancel: () => signal.removeEventListener("abort", onAbort) };
}
