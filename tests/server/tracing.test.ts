// One OpenTelemetry trace per rollout: a real collection through simple_agent + scripted_model +
// example_session_state_mgmt with tracing on, exported over OTLP/HTTP (JSON) to a small receiver in this test. The
// collector's span is the root; the agent's /run, the environment's /seed_session and /verify, the model's
// /v1/responses and the tool calls (made by the agent's loop, its own /v1/responses, in-process or over HTTP) all
// share its trace id, each a child of the span that called it (W3C traceparent on every internal call) — and the
// same trace, span for span, when the servers are co-located and call each other in-process.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { collectRollouts, type CollectSummary } from "../../src/rollouts/collect.ts";
import { startServers, type InProcessGraph, type TestServers } from "../../src/testing/index.ts";
import { flushTracing, otlpTracesUrlOf, stopTracing, tracingEnabled, TracingConfigError } from "../../src/metrics/tracing.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

let receiver: FastifyInstance;
const received: ReceivedSpan[] = [];
let graph: InProcessGraph;
let colocated: InProcessGraph;
const summaries: CollectSummary[] = [];

const TOOLS = [
  { type: "function", name: "increment_counter", description: "Add a number to the counter.", strict: true, parameters: { type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false } },
  { type: "function", name: "get_counter_value", description: "Read the counter.", strict: true, parameters: { type: "object", properties: {}, required: [], additionalProperties: false } },
];

before(async () => {
  // The OTLP/HTTP JSON trace service: resourceSpans → scopeSpans → spans, ids in hex.
  receiver = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  receiver.post("/v1/traces", async (request) => {
    const body = request.body as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: ReceivedSpan[] }> }> };
    for (const resourceSpans of body.resourceSpans) {
      const service = resourceSpans.resource.attributes.find((attribute) => attribute.key === "service.name")?.value.stringValue ?? "";
      for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) received.push({ ...span, service });
    }
    return {};
  });
  await receiver.listen({ host: "127.0.0.1", port: 0 });
  const address = receiver.server.address() as { port: number };

  const servers = {
    counter_env: [counter],
    policy: [scriptedModel],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "counter_env" }, model_server: { type: "responses_api_models", name: "policy" } }],
  } satisfies TestServers;
  const topLevel = { otel_exporter_otlp_endpoint: `http://127.0.0.1:${address.port}` };
  graph = await startServers(servers, topLevel);
  colocated = await startServers(servers, topLevel, { coLocated: true });
  const dir = mkdtempSync(join(tmpdir(), "gym-tracing-"));
  const inputPath = join(dir, "input.jsonl");
  const row = { responses_create_params: { input: [{ role: "user", content: "Add 3 to the counter, then tell me the value." }], tools: TOOLS }, initial_count: 0, expected_count: 3 };
  writeFileSync(inputPath, `${JSON.stringify(row)}\n`);
  for (const [i, running] of [graph, colocated].entries()) {
    summaries.push(
      await collectRollouts({
        client: running.client,
        inputPath,
        outputPath: join(dir, `out-${i}.jsonl`),
        agentName: "agent",
        numRepeats: 2,
        disableAggregation: true,
        print: () => {},
        progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
        runConfig: running.config,
      }),
    );
  }
  await flushTracing();
});
after(async () => {
  for (const running of [graph, colocated]) {
    await running?.client.close();
    await running?.close();
  }
  await stopTracing();
  await receiver?.close();
});

test("each rollout is one trace: collector → agent /run → seed, model and tools, verify; every span a child of its caller, servers apart or co-located", () => {
  assert.deepEqual(summaries.map((summary) => summary.succeeded), [2, 2]);
  assert.ok(tracingEnabled());
  const roots = received.filter((span) => span.name === "rollout");
  assert.equal(roots.length, 4, "one root span per rollout (two graphs, two rollouts each)");
  assert.ok(roots.every((root) => root.parentSpanId === undefined || root.parentSpanId === ""));
  assert.equal(new Set(roots.map((root) => root.traceId)).size, 4, "each rollout has its own trace");

  for (const root of roots) {
    const trace = received.filter((span) => span.traceId === root.traceId);
    const one = (name: string) => {
      const found = trace.filter((span) => span.name === name);
      assert.equal(found.length, 1, `one ${name} in trace ${root.traceId}: ${trace.map((span) => span.name).join(", ")}`);
      return found[0]!;
    };
    const many = (name: string) => trace.filter((span) => span.name === name);
    const run = one("agent POST /run");
    assert.equal(run.parentSpanId, root.spanId, "the agent's /run is a child of the collector's span");
    assert.equal(one("counter_env POST /seed_session").parentSpanId, run.spanId);
    assert.equal(one("counter_env POST /verify").parentSpanId, run.spanId);
    // The agent's loop: its own /v1/responses (in-process or over HTTP, a span either way), a child of /run.
    const loop = one("agent POST /v1/responses");
    assert.equal(loop.parentSpanId, run.spanId);
    const modelCalls = many("policy POST /v1/responses");
    assert.ok(modelCalls.length >= 2, "a tool call, then the answer");
    assert.ok(modelCalls.every((span) => span.parentSpanId === loop.spanId));
    const toolCalls = many("counter_env POST /increment_counter");
    assert.ok(toolCalls.length >= 1 && toolCalls.every((span) => span.parentSpanId === loop.spanId));
    // Every span of the trace hangs off another one of it: no orphan, no second root.
    const ids = new Set(trace.map((span) => span.spanId));
    assert.deepEqual(trace.filter((span) => span !== root && !ids.has(span.parentSpanId ?? "")).map((span) => span.name), []);
    // One provider per process: in this in-process graph every span carries the first server's service.name (a
    // launched graph runs each server in its own process, named after its instance); the span name says which.
    assert.equal(new Set(trace.map((span) => span.service)).size, 1);
  }
});

test("the endpoint comes from the config key, else OTEL_EXPORTER_OTLP_ENDPOINT; none means off; a bad value names its key", () => {
  assert.equal(otlpTracesUrlOf({ otel_exporter_otlp_endpoint: "http://127.0.0.1:4318/" }, {}), "http://127.0.0.1:4318/v1/traces");
  assert.equal(otlpTracesUrlOf({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), "http://collector:4318/v1/traces");
  assert.equal(otlpTracesUrlOf({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom" }), "http://collector:4318/custom");
  assert.equal(otlpTracesUrlOf({}, {}), undefined);
  assert.throws(() => otlpTracesUrlOf({ otel_exporter_otlp_endpoint: "localhost:4318" }, {}), (error: Error) => error instanceof TracingConfigError && /otel_exporter_otlp_endpoint must be an http\(s\) URL/.test(error.message));
});
