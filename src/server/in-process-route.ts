// Routes of a server answered without HTTP — an agent's /run calling its own /v1/responses (NeMo Gym's self-call),
// and every hot route of a co-located graph (servers sharing one process call each other so) — answering exactly
// what the route answers over HTTP, as an HttpResponse: the body as the server would read it — the handler's own
// copy, the body limits holding (plain JSON data copied as such, copyJsonData; anything else sent through
// JSON.stringify and read back by the server's parser), the answer's JSON likewise a copy per reader and its text
// written when first read, the cookies as the
// server parses a Cookie header, the session id from this server's cookie, the `/ng-rollout/<id>` prefix as the
// server's router reads it, the deadline and the caller's signal as the HTTP client applies them, errors answered by
// the error handler's own rules (errorAnswer) with the content types fastify sends, the session cookie re-set, a
// 5xx logged as the HTTP route logs it, and the answer counted in /metrics under the route's pattern. What it saves
// is the socket, undici's request and fastify's request and reply.
//
// A server registers a route here beside its fastify route, both calling one handler core; a path without an
// in-process route (a GET, an MCP call, a server's own extra routes) is answered over HTTP as before.
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { DeadlineExceededError, cookieHeader, cookiesFromSetCookie, jsonReaders, type HttpResponse } from "../client/http-client.ts";
import type { LocalRequest } from "../client/server-client.ts";
import { HttpError, RequestValidationError } from "../protocol/errors.ts";
import { abbreviatedPath, copyJsonData, FLOAT_FIELDS, JsonDepthError, MAX_JSON_DEPTH, JsonSyntaxError, parseRequestJson, stringifyWire } from "../protocol/wire-json.ts";
import { errorAnswer, failedAnswerLine, headerSafeCookies, ROLLOUT_PREFIX, rolloutLabel } from "./base-app.ts";
import { parseCookieHeader } from "./session-cookie.ts";
import { observeInProcessAnswer } from "./metrics.ts";
import { endRequestSpan, injectTraceContext, runInRequestSpan, startRequestSpan, tracingEnabled, type RequestSpan } from "../metrics/tracing.ts";

export interface InProcessCall {
  /** The body as the route reads it (undefined: no body). */
  body: unknown;
  cookies: Record<string, string>;
  sessionId: string;
  /** Request headers the route reads (lower-case names): the idempotency key. */
  headers: Readonly<Record<string, string>>;
  /** The `/ng-rollout/<id>` the path arrived with. */
  rolloutId: string | undefined;
  /** Aborted when the caller gives up or the deadline passes (an HTTP route hears its caller hang up). */
  signal: AbortSignal;
  /** The fields this call's answer writes as Python floats, its errors' too (an HTTP reply's wireFloatFields). */
  floatFields: ReadonlySet<string>;
  /**
   * `listener` hears the answer this call gave, as sent (after the error handler's rules), or undefined when the
   * caller gave up before it: what an HTTP route's onSend and its reply's "close" tell (an idempotency claim).
   */
  onSettled(listener: (answer: SettledAnswer | undefined) => void): void;
}

export interface SettledAnswer {
  status: number;
  contentType: string | undefined;
  text: string;
}

/**
 * A route's own answer: 200 with `body` serialized (and the route's Set-Cookie lines), or a status with pre-encoded
 * text (content type `application/json` unless given).
 */
export type InProcessAnswer =
  | { body: unknown; setCookie?: string[] }
  | { status: number; jsonText: string; headers?: Record<string, string>; contentType?: string };

export type InProcessHandler = (call: InProcessCall) => Promise<InProcessAnswer>;

export interface InProcessRequest extends LocalRequest {
  /** The URL this call would have gone to over HTTP (named by a deadline's error). */
  url: string;
  deadlineMs: number;
}

interface Route {
  handle: InProcessHandler;
  /** The pattern /metrics labels it with (fastify's route url). */
  pattern: string;
}

const JSON_TYPE = "application/json";
const JSON_UTF8 = "application/json; charset=utf-8";

/** The in-process POST routes of one server. */
export class InProcessRoutes {
  private readonly exact = new Map<string, Route>();
  /** Routes also registered as `/ng-rollout/:rollout_id<path>` (an agent's prefixed twin). */
  private readonly prefixed = new Map<string, Route>();

  constructor(
    private readonly app: FastifyInstance,
    /** The server strips `/ng-rollout/<id>` before routing (a model server): every route takes the prefix. */
    private readonly stripsRolloutPrefix: boolean,
    /** The instance name its trace spans carry, as its HTTP requests' do. */
    private readonly serverName: string,
  ) {}

  /** Registers `path`, and with `withRolloutPrefix` its `/ng-rollout/:rollout_id` twin (as the HTTP routes are). */
  post(path: string, handle: InProcessHandler, options: { withRolloutPrefix?: boolean } = {}): void {
    this.exact.set(path, { handle, pattern: path });
    if (options.withRolloutPrefix) this.prefixed.set(path, { handle, pattern: `/ng-rollout/:rollout_id${path}` });
  }

  /** The in-process answering of a POST to `path`, or undefined when the server has none (the call goes over HTTP). */
  route(path: string): ((request: InProcessRequest) => Promise<HttpResponse>) | undefined {
    const found = this.find(path);
    if (found === undefined) return undefined;
    const route = { path, pattern: found.route.pattern, rolloutId: found.rolloutId, serverName: this.serverName };
    return (request) => answerInProcess(this.app, route, request, found.route.handle);
  }

  /** POST `path` in-process, or undefined when the server has no in-process route for it (the call goes over HTTP). */
  answer(path: string, request: InProcessRequest): Promise<HttpResponse> | undefined {
    return this.route(path)?.(request);
  }

  private find(path: string): { route: Route; rolloutId: string | undefined } | undefined {
    const route = this.exact.get(path);
    if (route) return { route, rolloutId: undefined };
    if (this.stripsRolloutPrefix) {
      // The router's rewriteUrl: the id as it stands in the path.
      const match = ROLLOUT_PREFIX.exec(path);
      const stripped = match && this.exact.get(match[2]!);
      return stripped ? { route: stripped, rolloutId: match[1] } : undefined;
    }
    const match = /^\/ng-rollout\/([^/?#]+)(\/[^?#]*)$/.exec(path);
    const twin = match && this.prefixed.get(match[2]!);
    // Over HTTP a longer id is no route (maxParamLength): such a call goes over HTTP and gets its 404.
    if (!twin || match[1]!.length > 1000) return undefined;
    try {
      return { route: twin, rolloutId: decodeURIComponent(match[1]!) };
    } catch {
      return undefined; // a malformed escape: fastify's 400, over HTTP
    }
  }
}

const routesByApp = new WeakMap<FastifyInstance, InProcessRoutes>();

/** Gives `app` its in-process route table (buildServer does, before the server registers its routes). */
export function createInProcessRoutes(app: FastifyInstance, options: { stripsRolloutPrefix: boolean; serverName: string }): InProcessRoutes {
  const routes = new InProcessRoutes(app, options.stripsRolloutPrefix, options.serverName);
  routesByApp.set(app, routes);
  return routes;
}

/** The in-process route table of a server built by buildServer. */
export function inProcessRoutesOf(app: FastifyInstance): InProcessRoutes {
  const routes = routesByApp.get(app);
  if (routes === undefined) throw new Error("this app has no in-process routes: servers are built by buildServer (serve.ts)");
  return routes;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  contentType: string | undefined;
  /** The body as sent (for a success answered as a value: written when first read, from `value`). */
  text: string;
  /** A success's body as the caller parses it, nobody else's copy (JSON.parse of `text`). */
  value?: { copy: unknown };
  setCookie: string[];
}

/**
 * A route's 200 answer with `body`: a copy of the value as it stands now (what parsing the text would give,
 * copyJsonData) and the text written from that copy only when someone reads it — the caller reading the JSON of a
 * model's answer, say, never needs it. A value that is not plain JSON data is written now, as over HTTP.
 */
function successAnswer(body: unknown, floatFields: ReadonlySet<string>, setCookie: string[]): Answer {
  const headers = { "content-type": JSON_UTF8 };
  const copied = copyJsonData(body, MAX_JSON_DEPTH);
  if (copied === undefined) return { status: 200, headers, contentType: JSON_UTF8, text: stringifyWire(body, { encoding: "json", floatFields }), setCookie };
  let text: string | undefined;
  return {
    status: 200,
    headers,
    contentType: JSON_UTF8,
    get text() {
      return (text ??= stringifyWire(copied.copy, { encoding: "json", floatFields }));
    },
    value: { copy: copied.copy },
    setCookie,
  };
}

async function answerInProcess(app: FastifyInstance, route: { path: string; pattern: string; rolloutId: string | undefined; serverName: string }, request: InProcessRequest, handle: InProcessHandler): Promise<HttpResponse> {
  const started = performance.now();
  // The span its HTTP twin would have (server/tracing.ts), a child of the caller's; nothing when tracing is off.
  const span = tracingEnabled() ? startInProcessSpan(route) : null;
  const rules = app.answering;
  const codec = app.sessionCookies;
  // The HTTP client sends JSON.stringify(json); the server reads it back with its own parser and limits. A body of
  // plain JSON data that surely fits those limits is copied now instead, to the same value (copyJsonData); raw text,
  // anything else and a body that might not fit take the text path, which decides them as over HTTP.
  const copied = request.rawBody === undefined && request.json !== undefined ? copyJsonData(request.json, rules.maxJsonDepth - 1) : undefined;
  const bodyCopy = copied !== undefined && copied.maxBytes <= rules.bodyLimit ? copied : undefined;
  const text = bodyCopy !== undefined ? undefined : (request.rawBody ?? (request.json === undefined ? undefined : JSON.stringify(request.json)));
  const cookies = headerSafeCookies(parseCookieHeader(cookieHeader(request.cookies)));
  const sessionId = codec.decode(cookies[codec.cookieName]) ?? randomUUID();
  const settledListeners: ((answer: SettledAnswer | undefined) => void)[] = [];
  let body: unknown;

  // The call ends when its deadline passes or its caller gives up: one signal for the handler, aborted by a timer
  // cleared when the answer is in (an AbortSignal.timeout would hold this call's closures, its body and its answer,
  // for the whole deadline) or by the caller's signal (one listener, taken off at the end; AbortSignal.any would
  // cost a signal and its bookkeeping per call). The signal is made when the handler first reads it (born aborted
  // if the call has ended by then): most routes — a model's, a tool that waits on nothing — never do.
  let ended: AbortController | undefined;
  let endedWith: { reason: unknown } | undefined;
  let endCall!: (reason: unknown) => void;
  const stopped = new Promise<never>((_resolve, reject) => (endCall = reject));
  const stop = (reason: unknown, error: unknown) => {
    endedWith = { reason };
    ended?.abort(reason);
    endCall(error);
  };
  const timer = setTimeout(() => stop(undefined, new DeadlineExceededError(request.url, request.deadlineMs)), request.deadlineMs);
  const caller = request.signal;
  const onCallerGone = () => stop(caller!.reason, caller!.reason);
  if (caller?.aborted) onCallerGone();
  else caller?.addEventListener("abort", onCallerGone, { once: true });
  const call: InProcessCall = {
    body: undefined,
    cookies,
    sessionId,
    headers: request.headers ?? {},
    rolloutId: route.rolloutId,
    get signal() {
      if (ended === undefined) {
        ended = new AbortController();
        if (endedWith !== undefined) ended.abort(endedWith.reason);
      }
      return ended.signal;
    },
    floatFields: FLOAT_FIELDS,
    onSettled: (listener) => settledListeners.push(listener),
  };
  const run = async (): Promise<Answer> => {
    let answer: Answer;
    try {
      if (text !== undefined && Buffer.byteLength(text) > rules.bodyLimit) throw Object.assign(new Error("body too large"), { statusCode: 413 });
      body = call.body = bodyCopy !== undefined ? bodyCopy.copy : text === undefined ? undefined : readBody(text, rules.maxJsonDepth);
      const own = await handle(call);
      if ("jsonText" in own) {
        const contentType = own.contentType ?? JSON_TYPE;
        answer = { status: own.status, headers: { "content-type": contentType, ...own.headers }, contentType, text: own.jsonText, setCookie: [] };
      } else {
        answer = successAnswer(own.body, call.floatFields, own.setCookie ?? []);
      }
    } catch (error) {
      const own = errorAnswer(error, rules);
      // As the HTTP error handler sends it: a JSON-string body as is, a `{detail}` object through the serializer.
      const contentType = typeof own.body === "string" ? JSON_TYPE : JSON_UTF8;
      const errorText = typeof own.body === "string" ? own.body : stringifyWire(own.body, { encoding: "json", floatFields: call.floatFields });
      answer = { status: own.status, headers: { "content-type": contentType, ...own.headers }, contentType, text: errorText, setCookie: [] };
      // A bug in this server's code: its stack, once, instead of the one-line failure log below.
      if (own.bug) rules.log.error(`${rolloutLabel({ rolloutId: route.rolloutId, body })}POST ${route.path} failed: ${(error as Error)?.stack ?? error}`);
      else if (answer.status >= 500) rules.log.warn(failedAnswerLine({ rolloutId: route.rolloutId, body, method: "POST", url: route.path }, answer.status, answer.text));
      return answer;
    }
    if (answer.status >= 500) rules.log.warn(failedAnswerLine({ rolloutId: route.rolloutId, body, method: "POST", url: route.path }, answer.status, answer.text));
    return answer;
  };

  let answering!: Promise<Answer>;
  if (span === null) answering = run();
  else runInRequestSpan(span, () => (answering = run()));
  let answer: Answer;
  try {
    answer = await Promise.race([answering, stopped]);
  } catch (error) {
    // Nobody reads this answer any more (the caller gave up, or its deadline passed), as over HTTP.
    answering.catch(() => undefined);
    for (const listener of settledListeners) listener(undefined);
    observeInProcessAnswer(app, route.pattern, undefined, started);
    if (span !== null) endRequestSpan(span, 499);
    throw error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onCallerGone);
  }
  for (const listener of settledListeners) listener({ status: answer.status, contentType: answer.contentType, text: answer.text });
  observeInProcessAnswer(app, route.pattern, answer.status, started);
  if (span !== null) endRequestSpan(span, answer.status);
  // Every answer re-sets this server's session cookie, after the route's own (base-app's onSend).
  const setCookie = [...answer.setCookie, codec.setCookieHeader(sessionId)];
  const { value } = answer;
  return {
    status: answer.status,
    headers: { ...answer.headers, "set-cookie": setCookie },
    cookies: cookiesFromSetCookie(setCookie),
    get text() {
      return answer.text;
    },
    ok: answer.status >= 200 && answer.status < 300,
    // Each reader's value is a copy of the kept one (never the kept one: the text may still be written from it);
    // without one, the text is parsed.
    ...jsonReaders(value === undefined ? () => JSON.parse(answer.text) : () => copyJsonData(value.copy, MAX_JSON_DEPTH)!.copy),
  };
}

function startInProcessSpan(route: { pattern: string; serverName: string }): RequestSpan | null {
  // The caller's active span, as its HTTP client would send it (traceparent).
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier);
  return startRequestSpan(`${route.serverName} POST ${route.pattern}`, carrier, { "gym.server": route.serverName, "http.request.method": "POST", "http.route": route.pattern });
}

/** The body read as the server's content parser reads it: Python's JSON, nesting bounded (a 413 past the limit). */
function readBody(text: string, maxJsonDepth: number): unknown {
  if (text.length === 0) return undefined;
  try {
    return parseRequestJson(text, "json", maxJsonDepth);
  } catch (error) {
    if (error instanceof JsonDepthError) throw new HttpError(413, `Request body nests deeper than ${error.maxDepth} levels at ${abbreviatedPath(error.path)}`);
    // A caller's own raw text that is not JSON: the content parser's 422.
    if (error instanceof JsonSyntaxError) {
      throw new RequestValidationError([{ type: "json_invalid", loc: ["body", error.position], msg: "JSON decode error", input: {}, ctx: { error: error.pythonMessage } }]);
    }
    throw error;
  }
}
