// A stand-in OTLP/HTTP trace collector for measuring tracing's cost: accepts `POST /v1/traces` (JSON), counts the
// spans, answers 200, keeps nothing. Run it in its own process, so its parsing is not charged to the servers:
//   node --import tsx bench/otlp-sink.ts 4318 &
//   BENCH_COLLECTION_OVERRIDES="++otel_exporter_otlp_endpoint=http://127.0.0.1:4318" npm run bench collection
// It prints the spans received when it stops (SIGTERM / SIGINT).
import Fastify from "fastify";

const port = Number(process.argv[2] ?? 4318);
const app = Fastify({ bodyLimit: 256 * 1024 * 1024 });
let spans = 0;
app.post("/v1/traces", async (request) => {
  const body = request.body as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
  for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
  return {};
});
await app.listen({ host: "127.0.0.1", port });
process.stderr.write(`otlp-sink: listening on http://127.0.0.1:${port}\n`);
const stop = async () => {
  process.stderr.write(`otlp-sink: ${spans} spans received\n`);
  await app.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
