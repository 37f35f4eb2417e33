// Trial gateway: what the callback bridge adds to a model call, and how many trials per second one gateway
// process takes from create to terminal with each state backend (SQLite file, in memory, Redis + BullMQ).
// The NeMo Gym agent and the Relax model API are minimal HTTP servers in this process, answering at once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import pino from "pino";
import { Redis } from "ioredis";
import { HttpClient } from "../src/client/http-client.ts";
import { startGateway } from "../src/gateway/gateway.ts";
import { loadGatewaySettings } from "../src/gateway/settings.ts";
import type { TrialSnapshot } from "../src/gateway/types.ts";
import { fixed, formatTable, measureInterleaved, percentile, type Measurement } from "./measure.ts";

const RESPONSE = JSON.stringify({ id: "resp_1", object: "response", created_at: 1, model: "m", status: "completed", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `/run` answers at once with a reward unless the task says hold; the holds are what callbacks ride on. */
async function startAgent(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    if (request.url === "/run" && text.includes('"hold"')) return; // stays running for the callback bench
    response.writeHead(200, { "content-type": "application/json" }).end('{"reward":1.0,"response":{"output":[{"type":"message"}]}}');
  });
  const url = await listen(server);
  return { url, close: () => (server.closeAllConnections(), new Promise((resolve) => server.close(() => resolve()))) };
}

async function startRelax(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    for await (const _ of request);
    response.writeHead(200, { "content-type": "application/json" }).end(RESPONSE);
  });
  const url = await listen(server);
  return { url, close: () => (server.closeAllConnections(), new Promise((resolve) => server.close(() => resolve()))) };
}

function settingsFor(agentUrl: string, state: string) {
  return loadGatewaySettings({
    NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({
      "bench-v1": { environment: "bench", agent_url: agentUrl, interrupt_policy: "protected", max_concurrency: 256, queue_capacity: 100_000, max_deadline_s: 3600 },
    }),
    NEMO_GYM_CALLBACK_ALLOWED_NETWORKS: "127.0.0.1/32",
    NEMO_GYM_GATEWAY_STATE: state,
  });
}

let counter = 0;
function trial(relaxUrl: string, task: Record<string, unknown> = { messages: [{ role: "user", content: "hi" }] }) {
  counter++;
  return {
    protocol_version: "relax-nemo-gym/v1",
    request_id: `relax-bench-${process.pid}-${counter}-${randomBytes(4).toString("hex")}`,
    session: { session_id: `s-${counter}`, group_id: "0", rollout_mode: "train", attempt: 1 },
    environment: { name: "bench", config: "bench-v1", task },
    model_endpoint: { base_url: relaxUrl, api_key: `s-${counter}`, model: "policy" },
    interrupt_policy: "protected",
    deadline_s: 600,
    lease_s: 600,
  };
}

export interface CallbackHop {
  direct: Measurement;
  viaGateway: Measurement;
}

export interface LifecycleRow {
  backend: string;
  trials: number;
  concurrency: number;
  trialsPerSecond: number;
  medianMs: number;
  p99Ms: number;
}

export interface GatewayBenchResult {
  callbackHop: CallbackHop;
  lifecycle: LifecycleRow[];
}

async function callbackHop(client: HttpClient): Promise<CallbackHop> {
  const agent = await startAgent();
  const relax = await startRelax();
  const gateway = await startGateway({ settings: settingsFor(agent.url, ":memory:"), logger: pino({ level: "silent" }) });
  try {
    await client.request(`${gateway.url}/v1/trials`, { method: "POST", json: trial(relax.url, { messages: [], metadata: { hold: true } }) });
    let rolloutId: string | undefined;
    while (!rolloutId) {
      const [record] = await gateway.service.store.nonTerminal();
      if (record?.status === "running") rolloutId = record.rollout_id;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const body = { input: [{ role: "user", content: "hello" }], model: "agent-model" };
    const [direct, viaGateway] = await measureInterleaved(2000, [
      async () => void (await client.request(`${relax.url}/v1/responses`, { method: "POST", json: body })),
      async () => void (await client.request(`${gateway.url}/ng-rollout/${rolloutId}/v1/responses`, { method: "POST", json: body })),
    ], 50);
    return { direct: direct!, viaGateway: viaGateway! };
  } finally {
    await gateway.close();
    await agent.close();
    await relax.close();
  }
}

async function lifecycle(client: HttpClient, backend: string, state: string, trials: number, concurrency: number): Promise<LifecycleRow> {
  const agent = await startAgent();
  const namespace = `bench-${randomBytes(4).toString("hex")}`;
  const gateway = await startGateway({ settings: settingsFor(agent.url, state), logger: pino({ level: "silent" }), namespace });
  const latencies: number[] = [];
  try {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < trials) {
          next++;
          const begin = performance.now();
          const payload = trial("http://127.0.0.1:9");
          let snapshot = (await client.request(`${gateway.url}/v1/trials`, { method: "POST", json: payload })).json<TrialSnapshot>();
          while (snapshot.status === "queued" || snapshot.status === "running") {
            snapshot = (await client.request(`${gateway.url}/v1/trials/${payload.request_id}?wait=30`)).json<TrialSnapshot>();
          }
          if (snapshot.status !== "completed") throw new Error(`trial ended ${snapshot.status}: ${JSON.stringify(snapshot.error)}`);
          latencies.push(performance.now() - begin);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { backend, trials, concurrency, trialsPerSecond: trials / seconds, medianMs: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  } finally {
    await gateway.close();
    await agent.close();
    if (state.startsWith("redis")) await dropNamespace(state, namespace);
  }
}

/** The run's trials and BullMQ queues, so a benchmark leaves the shared Redis as it found it. */
async function dropNamespace(url: string, namespace: string): Promise<void> {
  const redis = new Redis(url);
  try {
    for (const pattern of [`ng:gw:${namespace}:*`, `ng-gw-${namespace}:*`]) {
      const keys = await redis.keys(pattern);
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

export async function gatewayBench(): Promise<GatewayBenchResult> {
  const client = new HttpClient({ connectTimeoutMs: 5000, deadlineMs: 120_000, maxRetries: 0 });
  const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
  try {
    const hop = await callbackHop(client);
    const rows: LifecycleRow[] = [];
    for (const [backend, state] of [
      ["sqlite file", join(dir, "trials.sqlite")],
      [":memory:", ":memory:"],
      ["redis + bullmq", process.env.NEMO_GYM_TEST_REDIS_URL ?? "redis://127.0.0.1:6379"],
    ] as const) {
      rows.push(await lifecycle(client, backend, state, 2000, 64));
    }
    return { callbackHop: hop, lifecycle: rows };
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatGateway(result: GatewayBenchResult): string {
  const { direct, viaGateway } = result.callbackHop;
  const hop = formatTable(
    ["model call (Responses, 2000 sequential)", "median ms", "p99 ms", "CPU ms/call (all in this process)"],
    [
      ["direct to the Relax stand-in", fixed(direct.medianMs, 3), fixed(direct.p99Ms, 3), fixed(direct.cpuMsPerCall, 3)],
      ["through the gateway bridge", fixed(viaGateway.medianMs, 3), fixed(viaGateway.p99Ms, 3), fixed(viaGateway.cpuMsPerCall, 3)],
    ],
  );
  const added = `bridge adds ${fixed(viaGateway.medianMs - direct.medianMs, 3)} ms at the median (capability lookup, overlay, forward, re-serialise)`;
  const lifecycleTable = formatTable(
    ["state backend", "trials", "concurrency", "trials/s", "create→terminal median ms", "p99 ms"],
    result.lifecycle.map((row) => [row.backend, row.trials, row.concurrency, fixed(row.trialsPerSecond, 0), fixed(row.medianMs, 1), fixed(row.p99Ms, 1)]),
  );
  return `${hop}\n${added}\n\n${lifecycleTable}`;
}
