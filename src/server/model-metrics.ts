// A model server's figures: how long its backend (the upstream model, or the scripted policy) took per call, the
// retries it made upstream, and the tokens it reports in `usage`.
import { Counter, Histogram, type Registry } from "prom-client";
import { LATENCY_BUCKETS_S } from "./metrics.ts";

export interface ModelMetrics {
  /** One backend call (`responses()` or `chatCompletions()`) of `seconds`, with the usage it reported. */
  observeCall(seconds: number, inputTokens: number | undefined, outputTokens: number | undefined): void;
  /** One retry of an upstream request after it answered `status` (429, 5xx). */
  countRetry(status: number): void;
}

const byRegistry = new WeakMap<Registry, ModelMetrics>();

/** The model metrics of a server's registry (created on first use, so a server's code and the library share them). */
export function modelMetricsOf(registry: Registry): ModelMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = createModelMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

function createModelMetrics(registry: Registry): ModelMetrics {
  const latency = new Histogram({
    name: "gym_model_upstream_duration_seconds",
    help: "Time the model backend took to answer one call (every upstream attempt and retry wait included)",
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const tokens = new Counter({ name: "gym_model_tokens_total", help: "Tokens in the usage the model reported, by kind", labelNames: ["kind"] as const, registers: [registry] });
  const retries = new Counter({ name: "gym_model_upstream_retries_total", help: "Upstream requests sent again, by the status that caused it", labelNames: ["status"] as const, registers: [registry] });
  const input = tokens.labels({ kind: "input" });
  const output = tokens.labels({ kind: "output" });
  return {
    observeCall(seconds, inputTokens, outputTokens) {
      latency.observe(seconds);
      if (typeof inputTokens === "number" && inputTokens > 0) input.inc(inputTokens);
      if (typeof outputTokens === "number" && outputTokens > 0) output.inc(outputTokens);
    },
    countRetry(status) {
      retries.inc({ status: String(status) });
    },
  };
}
