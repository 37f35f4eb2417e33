// A span per request on every server, a child of the caller's W3C `traceparent`; the handler runs with it active, so
// every call it makes through HttpClient carries it on (src/metrics/tracing.ts). Nothing is registered when tracing
// is off: the requests of such a server never meet this file.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { endRequestSpan, runInRequestSpan, startRequestSpan, tracingEnabled, type RequestSpan } from "../metrics/tracing.ts";
import { UNMATCHED_ROUTE } from "./metrics.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** This request's span, when tracing is on. */
    traceSpan: RequestSpan | null;
  }
}

/** Call after startTracing and before any route (so each route's requests get a span); a no-op when tracing is off. */
export function registerRequestTracing(app: FastifyInstance, serverName: string): void {
  if (!tracingEnabled()) return;
  app.decorateRequest("traceSpan", null);
  app.addHook("onRequest", (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    request.traceSpan = startRequestSpan(`${serverName} ${request.method} ${route}`, request.headers, {
      "gym.server": serverName,
      "http.request.method": request.method,
      "http.route": route,
    });
    done();
  });
  // After the body is read (the body stream's events run outside any request context), and synchronously into the
  // handler: everything it awaits inherits the span through AsyncLocalStorage.
  app.addHook("preHandler", (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.traceSpan === null) return done();
    runInRequestSpan(request.traceSpan, done);
  });
  app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.traceSpan !== null) endRequestSpan(request.traceSpan, reply.statusCode);
    done();
  });
  app.addHook("onRequestAbort", (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    if (request.traceSpan !== null) endRequestSpan(request.traceSpan, 499);
    done();
  });
}
