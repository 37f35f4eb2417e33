// OpenTelemetry traces, one per rollout: the collector opens a root span per /run attempt, every server opens a
// span per request under the caller's `traceparent`, and every internal call (HttpClient) carries the active one on.
// Off unless an OTLP endpoint is configured, and then free: the SDK is not even loaded, no hook is registered, and
// each call site pays one boolean check (`tracer === undefined`).
import type { Context, Span, Tracer } from "@opentelemetry/api";

/** The global config key naming the OTLP/HTTP collector (its base URL; spans go to `<url>/v1/traces`). */
export const OTLP_ENDPOINT_KEY = "otel_exporter_otlp_endpoint";

type OtelApi = typeof import("@opentelemetry/api");

interface ActiveTracing {
  api: OtelApi;
  tracer: Tracer;
  /** Flushes buffered spans (BatchSpanProcessor) and stops exporting. */
  shutdown(): Promise<void>;
  flush(): Promise<void>;
}

let active: ActiveTracing | undefined;
let starting: Promise<void> | undefined;

export const tracingEnabled = (): boolean => active !== undefined;

export class TracingConfigError extends Error {
  override name = "TracingConfigError";
}

/**
 * The OTLP base URL to export to: the config key, else the standard OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, a full URL); undefined when none is set. A config value that is not an http(s)
 * URL is refused, naming the key.
 */
export function otlpTracesUrlOf(globalConfig: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = globalConfig[OTLP_ENDPOINT_KEY];
  if (configured !== undefined && configured !== null && configured !== "") {
    return `${httpUrl(configured, OTLP_ENDPOINT_KEY).replace(/\/+$/, "")}/v1/traces`;
  }
  const tracesOnly = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (tracesOnly) return httpUrl(tracesOnly, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base) return `${httpUrl(base, "OTEL_EXPORTER_OTLP_ENDPOINT").replace(/\/+$/, "")}/v1/traces`;
  return undefined;
}

function httpUrl(value: unknown, key: string): string {
  if (typeof value === "string") {
    try {
      const url = new URL(value);
      if (url.protocol === "http:" || url.protocol === "https:") return value;
    } catch {
      // falls through to the error below
    }
  }
  throw new TracingConfigError(`${key} must be an http(s) URL of an OTLP/HTTP collector (e.g. http://127.0.0.1:4318), got ${JSON.stringify(value)}`);
}

/**
 * Starts exporting spans of this process to `tracesUrl` (OTLP/HTTP JSON). Once per process: later calls (the other
 * servers of an in-process graph) share the first one's provider; each span names its server in `gym.server`.
 */
export async function startTracing(tracesUrl: string, serviceName: string): Promise<void> {
  if (active) return;
  starting ??= (async () => {
    const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ "service.name": serviceName }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))],
    });
    // The AsyncLocalStorage context manager and the W3C trace-context propagator, as the API's globals.
    provider.register();
    active = {
      api,
      tracer: api.trace.getTracer("nemo-gym-ts"),
      shutdown: () => provider.shutdown(),
      flush: () => provider.forceFlush(),
    };
  })();
  await starting;
}

/** Starts tracing when the config (or the environment) names an OTLP endpoint; a no-op otherwise. */
export async function startTracingFromConfig(globalConfig: Record<string, unknown>, serviceName: string): Promise<void> {
  const url = otlpTracesUrlOf(globalConfig);
  if (url !== undefined) await startTracing(url, serviceName);
}

/** Sends the spans still buffered (a test, or a process about to exit). */
export async function flushTracing(): Promise<void> {
  await active?.flush();
}

/** Flushes and stops; tracing is off again afterwards. */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  starting = undefined;
  if (!stopping) return;
  await stopping.shutdown();
  stopping.api.trace.disable();
  stopping.api.context.disable();
  stopping.api.propagation.disable();
}

/** Writes the active span's `traceparent` (and `tracestate`) into outgoing headers. */
export function injectTraceContext(headers: Record<string, string>): void {
  if (active === undefined) return;
  active.api.propagation.inject(active.api.context.active(), headers);
}

/** A server span and the context to run its handler in. */
export interface RequestSpan {
  span: Span;
  context: Context;
}

/** Opens the span of one incoming request, a child of the caller's `traceparent` when it sent one. */
export function startRequestSpan(name: string, headers: Record<string, string | string[] | undefined>, attributes: Record<string, string>): RequestSpan | null {
  if (active === undefined) return null;
  const { api, tracer } = active;
  const parent = api.propagation.extract(api.ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes }, parent);
  return { span, context: api.trace.setSpan(parent, span) };
}

/** Runs `fn` (and everything it awaits) with the request span active, so the calls it makes carry it on. */
export function runInRequestSpan(requestSpan: RequestSpan, fn: () => void): void {
  active!.api.context.with(requestSpan.context, fn);
}

/** Closes a request span with its HTTP status (5xx marks it failed). */
export function endRequestSpan(requestSpan: RequestSpan, statusCode: number): void {
  const { span } = requestSpan;
  span.setAttribute("http.response.status_code", statusCode);
  if (statusCode >= 500) span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
  span.end();
}

/**
 * Runs `fn` in a new root span (the collector's per-rollout span); `fn` alone when tracing is off. The span ends when
 * `fn` settles; `outcomeOf` names how it ended (an attribute, and an error status unless it is `succeeded`).
 */
export async function inRootSpan<T>(name: string, attributes: Record<string, string | number>, fn: () => Promise<T>, outcomeOf: (result: T) => string): Promise<T> {
  if (active === undefined) return fn();
  const { api, tracer } = active;
  const span = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes, root: true });
  try {
    const result = await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, span), fn);
    const outcome = outcomeOf(result);
    span.setAttribute("gym.outcome", outcome);
    if (outcome !== "succeeded") span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome });
    return result;
  } catch (error) {
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}
