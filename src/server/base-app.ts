// The HTTP surface every Gym server shares: liveness, the signed per-rollout session cookie, JSON bodies,
// and FastAPI-shaped errors. Server kinds (resources, agent, model) add their routes on top.
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { z } from "zod";
import { parseCookieHeader, sessionCookieCodecFor, type SessionCookieCodec, type SessionSigning } from "./session-cookie.ts";
import { HttpError, INNER_STATUS_HEADER, InnerServerError, RequestValidationError } from "../protocol/errors.ts";
import { laxValidate } from "../python/pydantic/index.ts";
import { pythonBytesRepr } from "../python/repr.ts";
import { exceptionRepr } from "../python/exception.ts";
import { ARRAY_ENCODING_HEADER, FLOAT_FIELDS, parseWire, stringifyWire, type ArrayEncoding } from "../protocol/wire-json.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** This server's session cookie (name and signing): what a route answering outside fastify's reply re-sets. */
    sessionCookies: SessionCookieCodec;
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
  bodyLimitBytes?: number;
}

const ROLLOUT_PREFIX = /^\/ng-rollout\/([A-Za-z0-9._-]+)(\/.*)$/;

export function createBaseApp(options: BaseAppOptions): FastifyInstance {
  const codec = sessionCookieCodecFor(options.sessionCookieName, options.sessionSigning);
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024 * 1024,
    // uvicorn keeps idle connections 30 s; clients keep theirs for less so they never reuse a closing socket.
    keepAliveTimeout: 30_000,
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
  app.decorateRequest("sessionId", "");
  app.decorateRequest("cookies", null as unknown as Record<string, string>);
  app.decorateRequest("rolloutId", undefined);
  app.decorateRequest("arrayEncoding", "json");
  app.decorateReply("wireFloatFields", null);
  app.decorateReply("wireArrayEncoding", null);

  // Bodies are parsed leniently (an empty body is `{}`, like a tool with no arguments) and a malformed
  // body is a 422 json_invalid, as FastAPI answers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = (body as string).trim();
    if (text === "") return done(null, {});
    try {
      // onRequest has already read the caller's encoding.
      done(null, parseWire(text, request.arrayEncoding));
    } catch (error) {
      done(
        new RequestValidationError([
          { type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: (error as Error).message } },
        ]),
        undefined,
      );
    }
  });

  app.addHook("onRequest", async (request, reply) => {
    request.cookies = parseCookieHeader(request.headers.cookie);
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

  // Re-set on every response, as Starlette does: callers always forward the latest cookie.
  app.addHook("onSend", async (request, reply, payload) => {
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
    if (error instanceof RequestValidationError) {
      request.log.info({ detail: error.detail }, "request validation failed");
      return reply.code(422).send({ detail: error.detail });
    }
    if (error instanceof HttpError) return reply.code(error.statusCode).send({ detail: error.detail });
    const fastifyStatus = (error as { statusCode?: number }).statusCode;
    if (fastifyStatus === 413 || fastifyStatus === 415) return reply.code(fastifyStatus).send({ detail: (error as Error).message });
    if (error instanceof InnerServerError) {
      // The body stays NeMo Gym's; the header tells our collector what the inner server said, so a row no attempt
      // can fix (an environment's 4xx, or a verify it cannot do: 501) fails once instead of being retried.
      reply.header(INNER_STATUS_HEADER, String(error.statusCode));
      return sendJsonString(reply, 500, `Hit an exception in ${options.sessionCookieName} calling an inner server: ${pythonBytesRepr(error.body)}`);
    }
    process.stderr.write(`[${options.sessionCookieName}] ${request.method} ${request.url} failed: ${(error as Error)?.stack ?? error}\n`);
    return sendJsonString(reply, 500, exceptionRepr(error));
  });

  app.get("/", async () => ({ status: "ok" }));
  return app;
}

/** Only what we speak is honoured; anything else is plain JSON. */
const arrayEncodingOf = (header: string | string[] | undefined): ArrayEncoding => (header === "packed-v1" ? "packed-v1" : "json");

/** NeMo Gym's 500 bodies are JSON strings, not objects. */
function sendJsonString(reply: FastifyReply, status: number, message: string) {
  // A Buffer bypasses every serializer (a route may have set its own), so the string is encoded exactly once.
  return reply.code(status).header("content-type", "application/json").send(Buffer.from(JSON.stringify(message)));
}

/** Validates a request body with a zod schema; a failure becomes a FastAPI-shaped 422. */
export function parseBody<S extends z.ZodType>(schema: S, request: FastifyRequest): z.output<S> {
  // No body at all (a tool without arguments, posted bare) reads as an empty object.
  const body = request.body === undefined || request.body === null ? {} : request.body;
  // FastAPI validates bodies with pydantic in lax mode: "14" is an int there, so it is here.
  const result = laxValidate(schema, body);
  if (!result.success) throw new RequestValidationError(result.errors.map((error) => ({ ...error, loc: ["body", ...error.loc] })));
  return result.data;
}
