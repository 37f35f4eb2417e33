// The HTTP surface every Gym server shares: liveness, the signed per-rollout session cookie, JSON bodies,
// and FastAPI-shaped errors. Server kinds (resources, agent, model) add their routes on top.
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { processAdmission } from "./turn-admission.ts";
import { parseCookieHeader, sessionCookieCodecFor, type SessionCookieCodec, type SessionSigning } from "./session-cookie.ts";
import { HttpError, INNER_STATUS_HEADER, InnerServerError, RequestValidationError } from "../protocol/errors.ts";
import { laxValidate } from "../python/pydantic/index.ts";
import { pythonBytesRepr } from "../python/repr.ts";
import { exceptionRepr } from "../python/exception.ts";
import { failureChain } from "../protocol/failure-chain.ts";
import {
  abbreviatedPath,
  ARRAY_ENCODING_HEADER,
  FLOAT_FIELDS,
  JsonDepthError,
  JsonSyntaxError,
  MAX_JSON_DEPTH,
  parseRequestJson,
  stringifyWire,
  type ArrayEncoding,
} from "../protocol/wire-json.ts";
import type { Registry } from "prom-client";
import { registerHttpMetrics } from "./metrics.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** This server's session cookie (name and signing): what a route answering outside fastify's reply re-sets. */
    sessionCookies: SessionCookieCodec;
    /** How this server reads bodies and answers errors: what a route called in-process must do alike. */
    answering: AnsweringRules;
  }
  interface FastifyRequest {
    /** Per-rollout key from the signed session cookie (a new UUID when absent, tampered or expired). */
    sessionId: string;
    /** Every cookie the caller sent, by name (values unquoted). */
    cookies: Record<string, string>;
    /** Set when the path arrived with an `/ng-rollout/<rollout_id>` prefix (stripped before routing). */
    rolloutId: string | undefined;
    /** `packed-v1` when the caller offered it (x-ng-array-encoding): its body may be packed, and so is our reply. */
    arrayEncoding: ArrayEncoding;
  }
  interface FastifyReply {
    /** Fields written as Python floats (`1.0`) in this reply; a route may widen the default set. */
    wireFloatFields: ReadonlySet<string> | null;
    /** Overrides the negotiated encoding of this reply (a route whose text is relayed verbatim keeps JSON). */
    wireArrayEncoding: ArrayEncoding | null;
  }
}

export interface BaseAppOptions {
  /** `<ClassName>___<instance_name>`: the session cookie's name, as in NeMo Gym. */
  sessionCookieName: string;
  /** How the cookie is signed: the graph's secret (see session-cookie.ts). */
  sessionSigning: SessionSigning;
  /** Strip `/ng-rollout/<id>` before routing (model servers do; agents register the prefixed route). */
  stripRolloutPrefix?: boolean;
  /** Largest request body accepted (default DEFAULT_MAX_BODY_BYTES); a larger one is a 413. */
  bodyLimitBytes?: number;
  /** Deepest nesting of a JSON body (default MAX_JSON_DEPTH); a deeper one is a 413 naming where. */
  maxJsonDepth?: number;
  /** Where this server says which of its answers failed (one line each: rollout, cause); default stderr. */
  log?: FailureLog;
  /** The registry GET /metrics serves (default: a new one); its series are labelled `server=<metricsServerName>`. */
  metrics?: Registry;
  metricsServerName?: string;
}

export interface AnsweringRules {
  sessionCookieName: string;
  bodyLimit: number;
  maxJsonDepth: number;
  log: FailureLog;
}

export interface FailureLog {
  warn(message: string): void;
  error(message: string): void;
}

const stderrLog: FailureLog = {
  warn: (message) => process.stderr.write(`WARN ${message}\n`),
  error: (message) => process.stderr.write(`ERROR ${message}\n`),
};

/**
 * 256 MiB. A body is decoded into one string, and V8 refuses strings past ~512 MiB (ERR_STRING_TOO_LONG,
 * which would escape the parser and stop the server): the limit stays well below that.
 */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
/** The config key that overrides the body limit of one server instance. */
export const MAX_BODY_BYTES_KEY = "max_body_bytes";
/** A Node string holds at most this many UTF-16 units on 64-bit V8 (2^29 - 24). */
export const V8_MAX_STRING_LENGTH = 2 ** 29 - 24;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** `/ng-rollout/<id><path>`: the prefix a model server strips before routing (its id, then the path routed). */
export const ROLLOUT_PREFIX = /^\/ng-rollout\/([A-Za-z0-9._-]+)(\/.*)$/;

export function createBaseApp(options: BaseAppOptions): FastifyInstance {
  const codec = sessionCookieCodecFor(options.sessionCookieName, options.sessionSigning);
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isSafeInteger(bodyLimit) && bodyLimit > 0 && bodyLimit < V8_MAX_STRING_LENGTH)) {
    throw new RangeError(`${MAX_BODY_BYTES_KEY} must be a positive integer below ${V8_MAX_STRING_LENGTH} (a body must fit in one string), got ${bodyLimit}`);
  }
  const maxJsonDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH;
  const app = Fastify({
    logger: false,
    bodyLimit,
    // uvicorn keeps idle connections 30 s; clients keep theirs for less so they never reuse a closing socket.
    keepAliveTimeout: 30_000,
    // Closing ends every connection at once. In-flight handlers were told already (preClose aborts their signals);
    // waiting on them instead left a connection whose caller gave up busy until the caller's keep-alive ran out:
    // a 15 s close behind one aborted model call (measured), and a test file per such agent 15 s longer.
    forceCloseConnections: true,
    requestTimeout: 0,
    routerOptions: { maxParamLength: 1000 },
    rewriteUrl: options.stripRolloutPrefix
      ? (req) => {
          const match = ROLLOUT_PREFIX.exec(req.url ?? "/");
          if (!match) return req.url ?? "/";
          (req as { ngRolloutId?: string }).ngRolloutId = match[1];
          return match[2]!;
        }
      : undefined,
  });

  app.decorate("sessionCookies", codec);
  app.decorate("answering", { sessionCookieName: options.sessionCookieName, bodyLimit, maxJsonDepth, log: options.log ?? stderrLog } satisfies AnsweringRules);
  app.decorateRequest("sessionId", "");
  app.decorateRequest("cookies", null as unknown as Record<string, string>);
  app.decorateRequest("rolloutId", undefined);
  app.decorateRequest("arrayEncoding", "json");
  app.decorateReply("wireFloatFields", null);
  app.decorateReply("wireArrayEncoding", null);

  // Bodies are read as FastAPI reads them: no bytes at all is no body (parseBody reads it as {}, a model route answers `missing`),
  // bytes that are not UTF-8 are a 400, text that is not JSON (Python's json, NaN and Infinity included) is a
  // 422 json_invalid with Python's message and position, and nesting past the limit is a 413 naming where.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return done(new HttpError(400, "There was an error parsing the body"), undefined);
    }
    try {
      // onRequest has already read the caller's encoding.
      done(null, parseRequestJson(text, request.arrayEncoding, maxJsonDepth));
    } catch (error) {
      if (error instanceof JsonSyntaxError) {
        return done(
          new RequestValidationError([
            { type: "json_invalid", loc: ["body", error.position], msg: "JSON decode error", input: {}, ctx: { error: error.pythonMessage } },
          ]),
          undefined,
        );
      }
      if (error instanceof JsonDepthError) return done(new HttpError(413, `Request body nests deeper than ${error.maxDepth} levels at ${abbreviatedPath(error.path)}`), undefined);
      // A malformed packed-v1 array: a json_invalid naming its key.
      const message = (error as Error).message;
      return done(new RequestValidationError([{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: message } }]), undefined);
    }
  });

  // Work arriving over sockets is admitted a few requests per event-loop turn, first come first served (see
  // turn-admission.ts); GETs (health, /metrics, /tools) are cheap reads that monitoring must get promptly.
  app.addHook("onRequest", async (request, reply) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      const turn = processAdmission.enter();
      if (turn) await turn;
    }
    request.cookies = headerSafeCookies(parseCookieHeader(request.headers.cookie));
    request.sessionId = codec.decode(request.cookies[codec.cookieName]) ?? randomUUID();
    request.rolloutId = (request.raw as { ngRolloutId?: string }).ngRolloutId;
    request.arrayEncoding = arrayEncodingOf(request.headers[ARRAY_ENCODING_HEADER]);
    reply.serializer((payload: unknown) => {
      // Strings (SSE streams, pre-encoded bodies) are already the bytes to send.
      if (typeof payload === "string") return payload;
      const encoding = reply.wireArrayEncoding ?? request.arrayEncoding;
      reply.header("content-type", "application/json; charset=utf-8");
      if (encoding === "packed-v1") reply.header(ARRAY_ENCODING_HEADER, "packed-v1");
      return stringifyWire(payload, { encoding, floatFields: reply.wireFloatFields ?? FLOAT_FIELDS });
    });
  });

  // Every 5xx this server answers is one line of its log: which rollout, and the innermost cause (the answer's
  // body unwrapped), so an upstream that cannot be reached shows in the terminal of each server it passed.
  const log = options.log ?? stderrLog;
  const loggedWithStack = new WeakSet<FastifyRequest>();
  // One hook for both (each async hook is a promise and a turn per request).
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode >= 500 && !loggedWithStack.has(request)) {
      const text = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : "";
      log.warn(failedAnswerLine(request, reply.statusCode, text));
    }
    // The session cookie is re-set on every response, as Starlette does: callers always forward the latest one.
    const existing = reply.getHeader("set-cookie");
    const mine = codec.setCookieHeader(request.sessionId);
    reply.header("set-cookie", existing === undefined ? mine : [...(Array.isArray(existing) ? existing : [String(existing)]), mine]);
    return payload;
  });

  app.setNotFoundHandler((request, reply) => {
    const otherMethod = request.method === "GET" ? "POST" : "GET";
    const pathOnly = request.url.split("?")[0]!;
    if (app.hasRoute({ method: otherMethod, url: pathOnly })) return reply.code(405).send({ detail: "Method Not Allowed" });
    return reply.code(404).send({ detail: "Not Found" });
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof RequestValidationError) request.log.info({ detail: error.detail }, "request validation failed");
    const answer = errorAnswer(error, { bodyLimit, sessionCookieName: options.sessionCookieName });
    if (answer.bug) {
      // A bug in this server's code: its stack, once (the one-line failure log skips this answer).
      loggedWithStack.add(request);
      log.error(`${rolloutLabel(request)}${request.method} ${request.url} failed: ${(error as Error)?.stack ?? error}`);
    }
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    // A JSON-string body goes as a Buffer, which bypasses every serializer (a route may have set its own), so the
    // string is encoded exactly once; a `{detail}` object goes through this server's serializer.
    return typeof answer.body === "string" ? reply.code(answer.status).header("content-type", "application/json").send(Buffer.from(answer.body)) : reply.code(answer.status).send(answer.body);
  });

  registerHttpMetrics(app, options.metrics, options.metricsServerName);
  app.get("/", async () => ({ status: "ok" }));
  return app;
}

/** What a server answers for an error its route raised: status, extra headers, and a `{detail}` object or a JSON-string body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  /** An object goes through the server's serializer; a string is the JSON text of NeMo Gym's string body. */
  body: { detail: unknown } | string;
  /** A bug in the server's own code (logged with its stack). */
  bug: boolean;
}

/**
 * FastAPI's answers to errors, in one place for the HTTP error handler and for a route called in-process (see
 * agent-server.ts): a validation error is a 422, an HttpError its status, an inner server's error a 500 that names
 * it (NeMo Gym's text) with the inner status in x-ng-inner-status, anything else a 500 with the exception's repr.
 */
export function errorAnswer(error: unknown, options: { bodyLimit: number; sessionCookieName: string }): ErrorAnswer {
  const answer = (status: number, body: ErrorAnswer["body"], headers: Record<string, string> = {}, bug = false): ErrorAnswer => ({ status, headers, body, bug });
  if (error instanceof RequestValidationError) return answer(422, { detail: error.detail });
  if (error instanceof HttpError) return answer(error.statusCode, { detail: error.detail });
  const fastifyStatus = (error as { statusCode?: number }).statusCode;
  if (fastifyStatus === 413) return answer(413, { detail: `Request body is larger than ${options.bodyLimit} bytes (this server's ${MAX_BODY_BYTES_KEY})` });
  if (fastifyStatus === 415) return answer(415, { detail: (error as Error).message });
  if (error instanceof InnerServerError) {
    // The body stays NeMo Gym's; the header tells our collector what the inner server said, so a row no attempt
    // can fix (an environment's 4xx, or a verify it cannot do: 501) fails once instead of being retried.
    return answer(500, JSON.stringify(`Hit an exception in ${options.sessionCookieName} calling an inner server: ${pythonBytesRepr(error.body)}`), { [INNER_STATUS_HEADER]: String(error.statusCode) });
  }
  // Any other error fastify raised while reading the request (a truncated body, a bad header) is the caller's.
  if (isFastifyError(error) && typeof fastifyStatus === "number" && fastifyStatus >= 400 && fastifyStatus < 500) return answer(fastifyStatus, { detail: (error as Error).message });
  // The body says what failed, not where: addresses of the graph's other servers stay inside.
  return answer(500, JSON.stringify(withoutServerUrls(exceptionRepr(error), (error as { url?: unknown }).url)), {}, true);
}

/**
 * Cookies that can be sent on again: every server forwards the caller's cookies to the servers it calls, and a
 * value that is no valid header value (non-ASCII, control characters, or an unquoted `\012`) would fail there.
 */
export function headerSafeCookies(cookies: Record<string, string>): Record<string, string> {
  const safe: Record<string, string> = {};
  for (const [name, value] of Object.entries(cookies)) if (COOKIE_NAME.test(name) && COOKIE_VALUE.test(value)) safe[name] = value;
  return safe;
}
const COOKIE_NAME = /^[!#-'*+.0-9A-Z^-z|~-]+$/;
const COOKIE_VALUE = /^[\x20-\x3a\x3c-\x7e]*$/;

const isFastifyError = (error: unknown) => String((error as { code?: unknown }).code ?? "").startsWith("FST_");

/** URLs on an IP literal, localhost or a bare service name: how the graph's servers address each other. */
const SERVER_URL = /\bhttps?:\/\/(?:\[[0-9a-fA-F:.]+\]|\d{1,3}(?:\.\d{1,3}){3}|localhost|[A-Za-z0-9_-]+)(?![\w.-])(?::\d+)?(?:[/?#][^\s'"\\)]*)?/g;

/** `text` without the graph's addresses: those of the failed call (`url`, a TransportError's) and any server URL. */
function withoutServerUrls(text: string, url: unknown): string {
  let origin: string | undefined;
  try {
    origin = typeof url === "string" ? new URL(url).origin : undefined;
  } catch {
    origin = undefined;
  }
  const scrubbed = origin ? text.split(origin).join("<server>") : text;
  return scrubbed.replace(SERVER_URL, "<server>");
}

/**
 * `rollout <id>: ` for a request that names its rollout: the `/ng-rollout/<id>` prefix, or a /run row's indices
 * (`<task>-<rollout>`, `-a<n>` for a retry, as agents name rollouts); else nothing.
 */
/** The log line of a 5xx answer: which rollout, the route, and the innermost cause (the body unwrapped). */
export function failedAnswerLine(request: Pick<FastifyRequest, "rolloutId" | "body" | "method" | "url">, status: number, bodyText: string): string {
  const cause = failureChain(bodyText).at(0);
  const from = cause?.server ? ` (from ${cause.server})` : "";
  return `${rolloutLabel(request)}${request.method} ${request.url.split("?")[0]} answered ${status}: ${oneLineExcerpt(cause?.message ?? "")}${from}`;
}

export function rolloutLabel(request: Pick<FastifyRequest, "rolloutId" | "body">): string {
  if (request.rolloutId) return `rollout ${request.rolloutId}: `;
  const body = request.body as Record<string, unknown> | undefined;
  const task = body?._ng_task_index;
  const rollout = body?._ng_rollout_index;
  if (task === undefined || rollout === undefined) return "";
  const attempt = body?._ng_attempt_index;
  return `rollout ${String(task)}-${String(rollout)}${Number.isInteger(attempt) && (attempt as number) > 0 ? `-a${attempt}` : ""}: `;
}

const oneLineExcerpt = (text: string, maxChars = 500) => {
  const line = text.replace(/\s*\n\s*/g, " ").trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
};

/** Only what we speak is honoured; anything else is plain JSON. */
const arrayEncodingOf = (header: string | string[] | undefined): ArrayEncoding => (header === "packed-v1" ? "packed-v1" : "json");

/** Validates a request body with a zod schema; a failure becomes a FastAPI-shaped 422. */
export function parseBody<S extends z.ZodType>(schema: S, request: Pick<FastifyRequest, "body">): z.output<S> {
  // No body at all (a tool without arguments, posted bare: NeMo Gym's tools without a body model take that) reads
  // as an empty object. Routes whose NeMo Gym twin requires a body model answer `missing` instead (missingBody).
  const body = request.body === undefined || request.body === null ? {} : request.body;
  // FastAPI validates bodies with pydantic in lax mode: "14" is an int there, so it is here.
  const result = laxValidate(schema, body);
  if (!result.success) throw new RequestValidationError(result.errors.map((error) => ({ ...error, loc: ["body", ...error.loc] })));
  return result.data;
}

/** FastAPI's answer when a route's required body model got no body at all (or JSON null, which it cannot tell apart). */
export const missingBody = () => new RequestValidationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
