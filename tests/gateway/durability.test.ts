// Beyond the reference: a gateway SIGKILLed with trials running, queued and finished loses none of them and runs
// none twice (SQLite), and two replicas on Redis serve one population with no double start and take over the
// trials of a replica that dies. Gateways run as real `gym gateway` child processes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { registration, startFakeAgent, trialPayload, type FakeAgent } from "./fake-gym.ts";
import { gatewayEnv, spawnGateway, startTestGateway, type GatewayProcess } from "./harness.ts";
import type { TrialSnapshot } from "../../src/gateway/types.ts";

const REDIS_URL = process.env.NEMO_GYM_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function redisAvailable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const rolloutOf = async (agent: FakeAgent, index: number) => (await agent.waitForRuns(index + 1))[index]!.rolloutId;

test("SIGKILL with trials finished, running and queued: after a restart none is lost or run twice (SQLite)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-state-"));
  const agent = await startFakeAgent();
  const env = gatewayEnv(agent.url, { NEMO_GYM_GATEWAY_STATE: join(dir, "trials.sqlite"), NEMO_GYM_LEASE_SCAN_INTERVAL_S: "0.05" }, { max_concurrency: 1 });
  let gateway: GatewayProcess | null = await spawnGateway(env);
  try {
    const finished = trialPayload();
    const running = trialPayload();
    const queued = trialPayload();
    await gateway.post("/v1/trials", finished);
    agent.finish(await rolloutOf(agent, 0), { reward: 0.75, response: { output: [{ type: "message" }] } });
    const finishedSnapshot = await gateway.terminal(finished.request_id);
    assert.equal(finishedSnapshot.status, "completed");
    await gateway.post("/v1/trials", running);
    const runningRollout = await rolloutOf(agent, 1);
    assert.equal((await gateway.post("/v1/trials", queued)).json<TrialSnapshot>().status, "queued");

    assert.equal(await gateway.kill("SIGKILL"), null);
    await gateway.client.close();
    gateway = await spawnGateway(env);

    // The finished trial is answered as before, and a replayed create does not run it again.
    assert.deepEqual((await gateway.get(`/v1/trials/${finished.request_id}`)).json(), finishedSnapshot);
    const replay = await gateway.post("/v1/trials", finished);
    assert.deepEqual([replay.status, replay.json()], [202, finishedSnapshot]);
    const conflict = { ...finished, metadata: { integration: "changed" } };
    assert.equal((await gateway.post("/v1/trials", conflict)).status, 409, "idempotency (the fingerprint key) survives the restart");

    // The run that was in flight when the gateway died cannot be resumed: it is cleaned up through the probe.
    const reconciled = await gateway.terminal(running.request_id);
    assert.deepEqual([reconciled.status, reconciled.error], ["aborted", { code: "gateway_restarted" }]);
    assert.equal(agent.abortCalls.get(runningRollout), 1);

    // The queued trial starts now, exactly once.
    const queuedRollout = await rolloutOf(agent, 2);
    agent.finish(queuedRollout, { reward: 1 });
    assert.equal((await gateway.terminal(queued.request_id)).status, "completed");
    assert.equal(agent.runs.length, 3);
    assert.equal(new Set(agent.runs.map((run) => run.rolloutId)).size, 3);
    assert.equal((await gateway.get("/healthz")).json<{ trials: number; active_trials: number }>().trials, 3);
  } finally {
    await gateway?.kill("SIGTERM");
    await gateway?.client.close();
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a gateway stopped with SIGTERM ends its running trials as service_shutdown and exits 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-state-"));
  const agent = await startFakeAgent();
  const env = gatewayEnv(agent.url, { NEMO_GYM_GATEWAY_STATE: join(dir, "trials.sqlite") });
  let gateway: GatewayProcess | null = await spawnGateway(env);
  try {
    const payload = trialPayload();
    await gateway.post("/v1/trials", payload);
    const rollout = await rolloutOf(agent, 0);
    assert.equal(await gateway.kill("SIGTERM"), 0);
    await gateway.client.close();
    gateway = await spawnGateway(env);
    const snapshot = (await gateway.get(`/v1/trials/${payload.request_id}`)).json<TrialSnapshot>();
    assert.deepEqual([snapshot.status, snapshot.error], ["aborted", { code: "service_shutdown" }]);
    assert.equal(agent.abortCalls.get(rollout), 1);
  } finally {
    await gateway?.kill("SIGTERM");
    await gateway?.client.close();
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a restart whose registrations no longer include a trial's environment still starts, and ends that trial", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-state-"));
  const agent = await startFakeAgent();
  const state = join(dir, "trials.sqlite");
  let gateway = await startTestGateway(gatewayEnv(agent.url, { NEMO_GYM_GATEWAY_STATE: state }, { max_concurrency: 1 }));
  try {
    await gateway.post("/v1/trials", trialPayload());
    await agent.waitForRuns(1);
    const queued = trialPayload();
    assert.equal((await gateway.post("/v1/trials", queued)).json<TrialSnapshot>().status, "queued");
    await gateway.close();
    await gateway.client.close();
    // The deployment now registers another environment only.
    gateway = await startTestGateway({
      ...gatewayEnv(agent.url, { NEMO_GYM_GATEWAY_STATE: state }),
      NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON: JSON.stringify({ "other-v1": { ...registration(agent.url), environment: "other" } }),
    });
    const snapshot = await gateway.terminal(queued.request_id);
    assert.deepEqual([snapshot.status, snapshot.error], ["aborted", { code: "gateway_restarted" }]);
    assert.equal(agent.runs.length, 1, "the queued trial never ran");
  } finally {
    await gateway.close();
    await gateway.client.close();
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("two replicas on Redis: one population, no double start, global max_concurrency, failover of a dead replica", async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${REDIS_URL} (set NEMO_GYM_TEST_REDIS_URL)`);
  const namespace = `test-${randomBytes(6).toString("hex")}`;
  const redis = new Redis(REDIS_URL);
  const agent = await startFakeAgent();
  let inFlight = 0;
  let maxInFlight = 0;
  agent.onRun = async () => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 30));
    inFlight--;
    return { status: 200, json: { reward: 1, response: { output: [] } } };
  };
  const env = gatewayEnv(agent.url, { NEMO_GYM_GATEWAY_STATE: REDIS_URL, NEMO_GYM_LEASE_SCAN_INTERVAL_S: "0.05" }, { max_concurrency: 4, queue_capacity: 100 });
  const replicas = [await spawnGateway(env, ["--namespace", namespace, "--lock-duration", "2"]), await spawnGateway(env, ["--namespace", namespace, "--lock-duration", "2"])];
  try {
    const payloads = Array.from({ length: 40 }, () => trialPayload());
    // Each create goes to one replica and its result is read from the other.
    await Promise.all(payloads.map((payload, i) => replicas[i % 2]!.post("/v1/trials", payload)));
    const snapshots = await Promise.all(payloads.map((payload, i) => replicas[(i + 1) % 2]!.terminal(payload.request_id)));
    assert.ok(snapshots.every((snapshot) => snapshot.status === "completed" && snapshot.reward === 1));
    assert.equal(agent.runs.length, 40, "no trial started twice");
    assert.equal(new Set(agent.runs.map((run) => run.rolloutId)).size, 40);
    assert.ok(maxInFlight <= 4, `max_concurrency is global across replicas (saw ${maxInFlight} runs at once)`);
    const replay = await replicas[1]!.post("/v1/trials", payloads[0]);
    assert.deepEqual([replay.status, replay.json()], [202, snapshots[0]]);
    assert.equal((await replicas[0]!.get("/healthz")).json<{ trials: number }>().trials, 40);

    // A replica dies while driving a trial: after its lock lapses the other reconciles the orphan.
    agent.onRun = null;
    const orphan = trialPayload();
    await replicas[0]!.post("/v1/trials", orphan);
    const orphanRollout = await rolloutOf(agent, 40);
    const driver = JSON.parse((await redis.hget(`ng:gw:${namespace}:trial:${orphan.request_id}`, "driver"))!) as string;
    const driverIndex = (await Promise.all(replicas.map(async (r) => (await r.get("/healthz")).json<{ replica_id: string }>().replica_id))).indexOf(driver);
    assert.notEqual(driverIndex, -1);
    await replicas[driverIndex]!.kill("SIGKILL");
    const survivor = replicas[1 - driverIndex]!;
    const reconciled = await survivor.terminal(orphan.request_id);
    assert.deepEqual([reconciled.status, reconciled.error], ["aborted", { code: "gateway_restarted" }]);
    assert.equal(agent.abortCalls.get(orphanRollout), 1);
    assert.equal(agent.runs.length, 41, "the orphan was not run again");
  } finally {
    for (const replica of replicas) {
      await replica.kill("SIGTERM");
      await replica.client.close();
    }
    await agent.close();
    const keys = [...(await redis.keys(`ng:gw:${namespace}:*`)), ...(await redis.keys(`ng-gw-${namespace}:*`))];
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});
