// `serveQueue` in process against real Redis: which registered runs a worker takes. A run whose servers'
// fingerprint is not the worker's graph's is refused in one line naming the servers that differ.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { ServerClient } from "../../src/client/index.ts";
import { runFingerprint } from "../../src/rollouts/resume.ts";
import { parseQueueUrl, serveQueue } from "../../src/rollouts/queue/index.ts";
import { registryKey, settingsKey, type QueuedRunSettings } from "../../src/rollouts/queue/jobs.ts";

const REDIS_URL = process.env.NEMO_GYM_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const graph = {
  env: { resources_servers: { example: { entrypoint: "app.py", host: "127.0.0.1", port: 1 } } },
  agent: { responses_api_agents: { simple_agent: { entrypoint: "app.py", host: "127.0.0.1", port: 2, resources_server: { type: "resources_servers", name: "env" } } } },
};

const settingsOf = (outputPath: string, fingerprint: Record<string, string>): QueuedRunSettings => ({ outputPath, fingerprint, maxAttempts: 3, retryBackoffMs: 10, rolloutDeadlineMs: null, outageWaitMs: 1000 });

test("a worker serves the runs of its own servers and refuses, in one line, a run whose servers differ", async () => {
  const prefix = `test-queue-worker-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(REDIS_URL);
  const other = structuredClone(graph);
  (other.env.resources_servers.example as Record<string, unknown>).judge_model = "another";
  await redis.set(settingsKey(prefix, "rollouts-same"), JSON.stringify(settingsOf("/runs/same.jsonl", runFingerprint(graph))));
  await redis.set(settingsKey(prefix, "rollouts-other"), JSON.stringify(settingsOf("/runs/other.jsonl", runFingerprint(other))));
  await redis.sadd(registryKey(prefix), "rollouts-same", "rollouts-other");
  const printed: string[] = [];
  const warned: string[] = [];
  const stop = new AbortController();
  const client = new ServerClient({ globalConfig: graph });
  try {
    const serving = serveQueue({
      address: parseQueueUrl(`${REDIS_URL}?prefix=${prefix}`),
      client,
      // Where a server listens is not part of what it computes: another port is the same graph.
      config: { ...graph, env: { resources_servers: { example: { ...graph.env.resources_servers.example, port: 9 } } } },
      concurrency: 1,
      name: "w1",
      lockDurationMs: 2000,
      pollMs: 50,
      probeHealth: false,
      print: (line) => printed.push(line),
      warn: (line) => warned.push(line),
      signal: stop.signal,
    });
    const deadline = Date.now() + 5000;
    while ((!printed.some((line) => line.includes("serving")) || warned.length === 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    await serving;
    assert.deepEqual(printed.filter((line) => line.includes("serving")), ["gym eval worker w1: serving /runs/same.jsonl (queue rollouts-same, 1 in flight at most)"]);
    assert.deepEqual(warned, ["gym eval worker w1: not serving /runs/other.jsonl (queue rollouts-other): this graph's servers differ from the run's (server env differs); start the worker on the same config"]);
  } finally {
    await client.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});
