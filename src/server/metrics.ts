// GET /metrics on every server (Prometheus text format, prom-client): requests by route and status with their
// latency (one histogram), requests in flight and aborted, plus whatever the server's kind registers on the same registry (resources-metrics.ts,
// agent-metrics.ts, model-metrics.ts) and the process-wide metrics (process-metrics.ts: sandbox runs).
// Per request: one callback hook at each end, label values from the route pattern (never the raw URL, so the series
// stay bounded), the latency fastify already measures (reply.elapsedTime), no allocation of our own.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { collectProcessMetrics, processRegistry } from "../metrics/process-metrics.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** This server's Prometheus registry: what GET /metrics serves (with the process-wide one). */
    metrics: Registry;
  }
}

export const METRICS_PATH = "/metrics";

/** Seconds: from a 1 ms tool call to a long generation. */
export const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

/** What a request matched no route is labelled (404s, 405s): one series, whatever the path. */
export const UNMATCHED_ROUTE = "<unmatched>";

const inProcessObservers = new WeakMap<FastifyInstance, (route: string, status: number | undefined, seconds: number) => void>();

/** Counts a POST `route` answered in-process with `status` (undefined: its caller gave up first), started at `startedMs` (performance.now()). */
export function observeInProcessAnswer(app: FastifyInstance, route: string, status: number | undefined, startedMs: number): void {
  inProcessObservers.get(app)?.(route, status, (performance.now() - startedMs) / 1000);
}

/**
 * Registers GET /metrics and the request hooks on `app` (call it before any route, so every route is counted).
 * `registry` defaults to a new one; `serverName` becomes the `server` label of every series.
 */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry = new Registry(), serverName?: string): Registry {
  if (serverName !== undefined) registry.setDefaultLabels({ server: serverName });
  // The histogram's `_count` is the request counter by route and status (a second Counter would double the cost
  // per request: a labelled prom-client update is most of what these hooks spend, ~0.4 µs).
  const latency = new Histogram({
    name: "gym_http_request_duration_seconds",
    help: "Time from receiving a request to the last byte of its answer, by method, route pattern and status (its _count: requests answered)",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const aborted = new Counter({
    name: "gym_http_requests_aborted_total",
    help: "Requests whose caller hung up before the answer, by method and route pattern",
    labelNames: ["method", "route"] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({ name: "gym_http_requests_in_flight", help: "Requests received and not yet answered", registers: [registry] });

  const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? UNMATCHED_ROUTE;
  app.addHook("onRequest", (_request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    inFlight.inc();
    done();
  });
  app.addHook("onResponse", (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    inFlight.dec();
    latency.observe({ method: request.method, route: routeOf(request), status: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
  // A caller that hangs up before the answer: no onResponse follows (fastify fires one or the other).
  app.addHook("onRequestAbort", (request: FastifyRequest, done: HookHandlerDoneFunction) => {
    inFlight.dec();
    aborted.inc({ method: request.method, route: routeOf(request) });
    done();
  });

  // A call answered in-process (in-process-route.ts) is counted as its HTTP twin would be: the same series.
  inProcessObservers.set(app, (route, status, seconds) => {
    if (status === undefined) aborted.inc({ method: "POST", route });
    else latency.observe({ method: "POST", route, status }, seconds);
  });

  collectProcessMetrics();
  app.decorate("metrics", registry);
  app.get(METRICS_PATH, async (_request, reply) => {
    const text = (await registry.metrics()) + (await processRegistry.metrics());
    return reply.type(registry.contentType).send(text);
  });
  return registry;
}
