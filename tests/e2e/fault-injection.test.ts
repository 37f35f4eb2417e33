// No fault is ever scored. example_session_state_mgmt + simple_agent + scripted_model, with a fault-injecting proxy
// between the agent and the resources server and another between the agent and the model (10% of the requests on
// each hop, seeded: 500s with garbage bodies, resets before and after forwarding, truncated bodies, garbage 200s,
// 503s, hangs bounded by a short deadline). 300 rollouts are collected once without faults and once with them:
// every stored reward equals the fault-free one for that (task, rollout), every other rollout is a typed
// infrastructure failure with no reward, and each rollout is in the output or failed for good exactly once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectRollouts, type CollectSummary } from "../../src/rollouts/collect.ts";
import { startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { randomFaults, seededRandom, proxyInstance, type FaultProxy } from "../../src/testing/fault-proxy.ts";
import { INFRASTRUCTURE_FAILURE_CLASSES } from "../../src/protocol/failures.ts";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";
import scriptedModel from "../../responses_api_models/scripted_model/app.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

const ROWS = 60;
const REPEATS = 5;
const FAULT_RATE = 0.1;
const SEED = 20261201;

let graph: InProcessGraph;
let envProxy: FaultProxy;
let modelProxy: FaultProxy;

before(async () => {
  graph = await startServers(
    {
      counter_env: [counter],
      policy: [scriptedModel],
      agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env_proxy" }, model_server: { type: "responses_api_models", name: "model_proxy" } }],
    },
    // A hung call costs one rollout attempt this long; a healthy loop takes a small fraction of it.
    { http_request_deadline_s: 5 },
  );
  envProxy = await proxyInstance(graph, "counter_env", "env_proxy");
  modelProxy = await proxyInstance(graph, "policy", "model_proxy");
});
after(async () => {
  await envProxy?.close();
  await modelProxy?.close();
  // The shared client first: its idle keep-alive sockets would otherwise hold the agent's close for their timeout.
  await graph?.client.close();
  await graph?.close();
});

const TOOLS = [
  { type: "function", name: "increment_counter", description: "Add a number to the counter.", strict: true, parameters: { type: "object", properties: { count: { type: "integer", description: "How much to add." } }, required: ["count"], additionalProperties: false } },
  { type: "function", name: "get_counter_value", description: "Read the counter.", strict: true, parameters: { type: "object", properties: {}, required: [], additionalProperties: false } },
];

/** Two increments per task; about a third of the tasks expect a wrong count, so rewards are both 1 and 0. */
function writeInput(dir: string): string {
  const random = seededRandom(SEED);
  const int = (max: number) => 1 + Math.floor(random() * max);
  const lines = Array.from({ length: ROWS }, (_, i) => {
    const [initial, a, b] = [int(20) - 1, int(50), int(50)];
    const expected = initial + a + b + (random() < 0.33 ? 1 : 0);
    const content = `Task ${i}: add ${a} to the counter, then add ${b}, then tell me the value.`;
    return JSON.stringify({ responses_create_params: { input: [{ role: "user", content }], tools: TOOLS }, initial_count: initial, expected_count: expected });
  });
  const path = join(dir, "input.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

type Line = Record<string, any>;
const readLines = (path: string): Line[] => {
  try {
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
};
const keyOf = (line: Line) => `${line._ng_task_index}:${line._ng_rollout_index}`;

async function collect(dir: string, inputPath: string): Promise<{ summary: CollectSummary; output: Line[]; failures: Line[] }> {
  const outputPath = join(dir, "out.jsonl");
  const summary = await collectRollouts({
    client: graph.client,
    inputPath,
    outputPath,
    agentName: "agent",
    numRepeats: REPEATS,
    concurrency: 32,
    rolloutDeadlineMs: 20_000,
    maxAttempts: 4,
    retryBackoffMs: 10,
    disableAggregation: true,
    print: () => {},
    progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
    runConfig: graph.config,
  });
  return { summary, output: readLines(outputPath), failures: readLines(summary.failuresPath) };
}

const tally = (values: string[]) => Object.fromEntries([...values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>())].sort());

test("300 rollouts under 10% faults on both hops: every stored reward is the fault-free one, the rest are typed failures, none lost or duplicated", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "gym-faults-"));
  const inputPath = writeInput(dir);
  const total = ROWS * REPEATS;

  const cleanStarted = Date.now();
  const clean = await collect(mkdtempSync(join(dir, "clean-")), inputPath);
  const cleanMs = Date.now() - cleanStarted;
  assert.equal(clean.summary.succeeded, total, JSON.stringify(clean.failures.slice(0, 3)));
  // Without faults nothing fails but a deadline, when this shared machine is loaded (and that attempt is retried).
  const cleanFailures = tally(clean.failures.map((line) => String(line._ng_failure_class)));
  assert.deepEqual(Object.keys(cleanFailures).filter((failureClass) => failureClass !== "timeout"), [], JSON.stringify(clean.failures.slice(0, 3)));
  const expected = new Map(clean.output.map((line) => [keyOf(line), line.reward as number]));
  assert.equal(expected.size, total);
  const rewards = tally([...expected.values()].map(String));
  assert.ok(rewards["0"]! > 0 && rewards["1"]! > 0, `the fault-free run scores both ways: ${JSON.stringify(rewards)}`);

  const random = seededRandom(SEED + 1);
  envProxy.decide = randomFaults(random, FAULT_RATE);
  modelProxy.decide = randomFaults(random, FAULT_RATE);
  const faultyStarted = Date.now();
  const faulty = await collect(mkdtempSync(join(dir, "faulty-")), inputPath);
  const faultyMs = Date.now() - faultyStarted;
  envProxy.decide = () => undefined;
  modelProxy.decide = () => undefined;

  // Every stored reward is the fault-free run's, and each (task, rollout) is stored at most once.
  const stored = new Set<string>();
  for (const line of faulty.output) {
    const key = keyOf(line);
    assert.ok(!stored.has(key), `${key} is stored twice`);
    stored.add(key);
    assert.equal(line.reward, expected.get(key), `${key}: a fault changed the stored reward`);
  }
  // Every failure line is a typed infrastructure failure without a reward.
  for (const line of faulty.failures) {
    assert.ok((INFRASTRUCTURE_FAILURE_CLASSES as readonly string[]).includes(line._ng_failure_class), `untyped failure: ${JSON.stringify(line).slice(0, 600)}`);
    assert.equal(line.reward, undefined);
  }
  // None lost, none both: a rollout not stored failed for good (its last attempt will not be retried).
  const lastFailure = new Map(faulty.failures.map((line) => [keyOf(line), line]));
  const failedForGood = [...lastFailure].filter(([key, line]) => !stored.has(key) && line._ng_will_retry === false).map(([key]) => key);
  for (const key of expected.keys()) assert.ok(stored.has(key) !== failedForGood.includes(key), `${key} is in neither or both`);
  assert.equal(stored.size + failedForGood.length, total);
  assert.equal(faulty.summary.succeeded, stored.size);
  assert.equal(faulty.summary.failed, failedForGood.length);
  assert.ok(faulty.summary.retried > 0 && stored.size > total / 2, "faults happened, and most rollouts still completed");

  const figures = {
    rollouts: total,
    succeeded: faulty.summary.succeeded,
    failed_for_good: faulty.summary.failed,
    failed_for_good_by_class: tally(failedForGood.map((key) => lastFailure.get(key)!._ng_failure_class)),
    retried_attempts: faulty.summary.retried,
    failed_attempts_by_class: tally(faulty.failures.map((line) => line._ng_failure_class)),
    env_hop_requests: envProxy.counts,
    model_hop_requests: modelProxy.counts,
    fault_free_failed_attempts: cleanFailures,
    fault_free_ms: cleanMs,
    faulty_ms: faultyMs,
  };
  console.log(`fault injection: ${JSON.stringify(figures, null, 2)}`);
});
