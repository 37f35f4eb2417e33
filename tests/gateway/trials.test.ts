// The registry and HTTP surface of the gateway (reference tests 2–7, 17, 19–22 and the suggested additions),
// over real HTTP: the gateway in this process, a fake NeMo Gym agent and a fake Relax model API on loopback.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { refusedPort } from "../../src/testing/ports.ts";
import { startFakeAgent, startFakeRelax, trialPayload, type FakeAgent } from "./fake-gym.ts";
import { COMMIT, gatewayEnv, startTestGateway, type TestGateway } from "./harness.ts";

async function withGateway(
  fn: (gateway: TestGateway, agent: FakeAgent) => Promise<void>,
  env: Record<string, string> = {},
  registration: Record<string, unknown> = {},
): Promise<void> {
  const agent = await startFakeAgent();
  const gateway = await startTestGateway(gatewayEnv(agent.url, env, registration));
  try {
    await fn(gateway, agent);
  } finally {
    await gateway.close();
    await gateway.client.close();
    await agent.close();
  }
}

const rolloutOf = async (agent: FakeAgent, index: number) => (await agent.waitForRuns(index + 1))[index]!.rolloutId;

test("registry_create_is_idempotent_and_rejects_payload_conflict", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload();
    const first = await gateway.post("/v1/trials", payload);
    const replay = await gateway.post("/v1/trials", payload);
    assert.equal(first.status, 202);
    assert.equal(replay.status, 202);
    assert.deepEqual(replay.json<{ request_id: string }>().request_id, payload.request_id);
    const changed = structuredClone(payload);
    changed.environment.task = { messages: [{ role: "user", content: "something else" }], metadata: { ground_truth: [] } };
    const conflict = await gateway.post("/v1/trials", changed);
    assert.equal(conflict.status, 409);
    assert.deepEqual(conflict.json(), { detail: "request_id already exists with a different payload" });
    assert.equal((await gateway.get("/healthz")).json<{ trials: number }>().trials, 1);
    await agent.waitForRuns(1);
    assert.equal(agent.runs.length, 1);
  }));

test("registry_enforces_environment_queue_capacity_before_insert", () =>
  withGateway(
    async (gateway) => {
      assert.equal((await gateway.post("/v1/trials", trialPayload())).status, 202);
      const second = trialPayload();
      const rejected = await gateway.post("/v1/trials", second);
      assert.equal(rejected.status, 429);
      assert.deepEqual(rejected.json(), { detail: "environment queue is full" });
      assert.equal((await gateway.get(`/v1/trials/${second.request_id}`)).status, 404);
    },
    {},
    { max_concurrency: 1, queue_capacity: 0 },
  ));

test("abort_is_idempotent_revokes_callback_and_waits_for_confirmed_cleanup", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload();
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    const [a, b] = await Promise.all([gateway.post(`/v1/trials/${payload.request_id}/abort`), gateway.post(`/v1/trials/${payload.request_id}/abort`)]);
    assert.equal(a.status, 202);
    assert.equal(b.status, 202);
    const snapshot = await gateway.terminal(payload.request_id);
    assert.equal(snapshot.status, "aborted");
    assert.deepEqual(snapshot.error, { code: "aborted" });
    assert.equal(agent.abortCalls.get(rolloutId), 1);
    const late = await gateway.post(`/ng-rollout/${rolloutId}/v1/responses`, { input: "hi" });
    assert.equal(late.status, 410);
    assert.deepEqual(late.json(), { detail: "callback capability is unavailable" });
  }));

test("abort_during_start_cleans_the_registered_handle (abort sent the moment create returns, 20 trials)", () =>
  withGateway(
    async (gateway, agent) => {
      const payloads = Array.from({ length: 20 }, () => trialPayload());
      await Promise.all(
        payloads.map(async (payload) => {
          assert.equal((await gateway.post("/v1/trials", payload)).status, 202);
          assert.equal((await gateway.post(`/v1/trials/${payload.request_id}/abort`)).status, 202);
        }),
      );
      for (const payload of payloads) {
        const snapshot = await gateway.terminal(payload.request_id);
        assert.equal(snapshot.status, "aborted", JSON.stringify(snapshot));
      }
      // Every run that reached the agent was aborted exactly once; none was left running.
      for (const run of agent.runs) assert.equal(agent.abortCalls.get(run.rolloutId), 1, run.rolloutId);
    },
    {},
    { max_concurrency: 20, queue_capacity: 0 },
  ));

test("lease_expiry_cancels_a_running_trial", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload({ lease_s: 0.3 });
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    const snapshot = await gateway.terminal(payload.request_id);
    assert.equal(snapshot.status, "aborted");
    assert.deepEqual(snapshot.error, { code: "lease_expired" });
    assert.equal(agent.abortCalls.get(rolloutId), 1);
  }));

test("renew keeps a trial alive past its lease; renew after terminal is a silent 204", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload({ lease_s: 0.4 });
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    for (let i = 0; i < 6; i++) {
      assert.equal((await gateway.post(`/v1/trials/${payload.request_id}/renew`)).status, 204);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    assert.equal((await gateway.get(`/v1/trials/${payload.request_id}`)).json<{ status: string }>().status, "running");
    agent.finish(rolloutId, { reward: 1.0, response: { output: [] } });
    const done = await gateway.terminal(payload.request_id);
    assert.equal(done.status, "completed");
    const renew = await gateway.post(`/v1/trials/${payload.request_id}/renew`);
    assert.equal(renew.status, 204);
    assert.equal(renew.text, "");
    assert.deepEqual((await gateway.get(`/v1/trials/${payload.request_id}`)).json(), done);
    assert.equal((await gateway.post(`/v1/trials/nope/renew`)).status, 404);
  }));

test("agent_failure_cleans_the_remote_run_before_marking_failed", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload();
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    agent.fail(rolloutId, 500);
    const snapshot = await gateway.terminal(payload.request_id);
    assert.equal(snapshot.status, "failed");
    assert.deepEqual(snapshot.error, { code: "agent_error" });
    assert.equal(agent.abortCalls.get(rolloutId), 1);
    const errorLines = gateway.logs.filter((line) => line.includes('"level":50') && line.includes(payload.request_id));
    assert.equal(errorLines.length, 1, errorLines.join("\n"));
    assert.match(errorLines[0]!, /"stack":/);
  }));

test("terminal_completion_cannot_be_overwritten_by_late_abort", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload();
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    agent.finish(rolloutId, { reward: 0.75, response: { output: [{ type: "message" }, { type: "function_call" }, { type: "function_call_output" }] } });
    const done = await gateway.terminal(payload.request_id);
    assert.equal(done.status, "completed");
    assert.equal(done.reward, 0.75);
    assert.deepEqual(done.metrics, { model_output_items: 3, tool_calls: 1, tool_outputs: 1, assistant_messages: 1 });
    const late = await gateway.post(`/v1/trials/${payload.request_id}/abort`);
    assert.equal(late.status, 202);
    assert.deepEqual(late.json(), done);
    assert.equal(agent.abortCalls.get(rolloutId) ?? 0, 0);
  }));

test("a completion racing an abort ends in exactly one terminal path (never both)", () =>
  withGateway(
    async (gateway, agent) => {
      const payloads = Array.from({ length: 10 }, (_, i) => trialPayload({ task: { messages: [{ role: "user", content: `task-${i}` }], metadata: {} } }));
      await Promise.all(payloads.map((payload) => gateway.post("/v1/trials", payload)));
      const runs = await agent.waitForRuns(10);
      const runOf = (i: number) => runs.find((run) => taskText(run.body) === `task-${i}`)!;
      await Promise.all(
        payloads.map(async (payload, i) => {
          agent.finish(runOf(i).rolloutId, { reward: 1 });
          await gateway.post(`/v1/trials/${payload.request_id}/abort`);
        }),
      );
      for (const [i, payload] of payloads.entries()) {
        const snapshot = await gateway.terminal(payload.request_id);
        const cleanups = agent.abortCalls.get(runOf(i).rolloutId) ?? 0;
        if (snapshot.status === "completed") assert.deepEqual([snapshot.error, snapshot.reward, cleanups], [null, 1, 0]);
        else assert.deepEqual([snapshot.status, snapshot.error, cleanups], ["aborted", { code: "aborted" }, 1]);
      }
    },
    {},
    { max_concurrency: 10, queue_capacity: 0 },
  ));

test("every cleanup outcome maps to its terminal error", async (t) => {
  const port = await refusedPort();
  const cases: { name: string; registration: Record<string, unknown>; agent?: (agent: FakeAgent) => void; status: string; error: unknown }[] = [
    { name: "probe answers clean", registration: {}, status: "aborted", error: { code: "aborted" } },
    { name: "no probe URL", registration: { cleanup_probe_url: null }, status: "failed", error: { code: "cleanup_unverified", type: "CleanupError", cause: "aborted" } },
    {
      name: "abort answers 500 and force is unreachable",
      registration: { force_cleanup_url: `http://127.0.0.1:${port}/force/{rollout_id}` },
      agent: (a) => ((a.abortStatus = 500), (a.probe = () => ({ status: 200, body: { clean: false } }))),
      status: "failed",
      error: { code: "cleanup_failed", type: "CleanupError", cause: "aborted" },
    },
    {
      name: "probe answers something that is not JSON",
      registration: {},
      agent: (a) => (a.probe = () => ({ status: 200, text: "<html>oops</html>" })),
      status: "failed",
      error: { code: "cleanup_probe_failed", type: "CleanupError", cause: "aborted" },
    },
  ];
  for (const each of cases) {
    await t.test(each.name, async () => {
      const agent = await startFakeAgent();
      each.agent?.(agent);
      const gateway = await startTestGateway(gatewayEnv(agent.url, {}, each.registration));
      try {
        const payload = trialPayload();
        await gateway.post("/v1/trials", payload);
        await agent.waitForRuns(1);
        await gateway.post(`/v1/trials/${payload.request_id}/abort`);
        const snapshot = await gateway.terminal(payload.request_id);
        assert.deepEqual([snapshot.status, snapshot.error], [each.status, each.error]);
      } finally {
        await gateway.close();
        await gateway.client.close();
        await agent.close();
      }
    });
  }
});

test("a trial still queued at its deadline ends truncated/deadline_exceeded and never runs", () =>
  withGateway(
    async (gateway, agent) => {
      const blocker = trialPayload();
      await gateway.post("/v1/trials", blocker);
      await agent.waitForRuns(1);
      const late = trialPayload({ deadline_s: 0.3 });
      assert.equal((await gateway.post("/v1/trials", late)).json<{ status: string }>().status, "queued");
      const snapshot = await gateway.terminal(late.request_id);
      assert.equal(snapshot.status, "truncated");
      assert.deepEqual(snapshot.error, { code: "deadline_exceeded" });
      assert.equal(agent.runs.length, 1);
      agent.finish(agent.runs[0]!.rolloutId, { reward: 1 });
      assert.equal((await gateway.terminal(blocker.request_id)).status, "completed");
    },
    {},
    { max_concurrency: 1 },
  ));

test("a callback that finds the lease expired before the janitor does cancels the trial and answers 410", () =>
  withGateway(
    async (gateway, agent) => {
      const payload = trialPayload({ lease_s: 0.2 });
      await gateway.post("/v1/trials", payload);
      const rolloutId = await rolloutOf(agent, 0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const callback = await gateway.post(`/ng-rollout/${rolloutId}/v1/responses`, { input: "hi" });
      assert.equal(callback.status, 410);
      const snapshot = await gateway.terminal(payload.request_id);
      assert.deepEqual([snapshot.status, snapshot.error], ["aborted", { code: "lease_expired" }]);
    },
    { NEMO_GYM_LEASE_SCAN_INTERVAL_S: "3600" },
  ));

test("abort_cancels_an_inflight_relax_callback and abort_cancels_callback_backoff_without_retry_or_trial_restart", async () => {
  for (const upstreamMode of ["hang", "503"] as const) {
    let upstreamCalls = 0;
    const upstream = createServer((request, response) => {
      upstreamCalls++;
      if (upstreamMode === "503") response.writeHead(503, { "content-type": "application/json" }).end('{"error":"busy"}');
      // "hang": never answers.
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await withGateway(async (gateway, agent) => {
      const payload = trialPayload({ base_url: upstreamUrl });
      await gateway.post("/v1/trials", payload);
      const rolloutId = await rolloutOf(agent, 0);
      const callback = gateway.post(`/ng-rollout/${rolloutId}/v1/responses`, { input: "hi" });
      while (upstreamCalls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await gateway.post(`/v1/trials/${payload.request_id}/abort`);
      const answer = await callback;
      assert.notEqual(answer.status, 200);
      assert.equal(upstreamCalls, 1, `${upstreamMode}: no retry after the abort`);
      assert.equal((await gateway.terminal(payload.request_id)).status, "aborted");
      assert.equal(agent.runs.length, 1, "the trial was not restarted");
      assert.equal((await gateway.post(`/ng-rollout/${rolloutId}/v1/responses`, { input: "again" })).status, 410);
    });
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  }
});

test("gateway_http_contract_and_health_metadata", () =>
  withGateway(async (gateway, agent) => {
    agent.onRun = () => ({ status: 200, json: { reward: 1.0, response: { output: [{ type: "message" }] } } });
    const health = (await gateway.get("/healthz")).json<Record<string, unknown>>();
    assert.equal(health.gym_commit, COMMIT);
    assert.equal(health.protocol_version, "relax-nemo-gym/v1");
    assert.match(String(health.service_epoch), /^[0-9a-f]{32}$/);
    assert.equal("ready" in health, false);
    const payload = trialPayload();
    const created = await gateway.post("/v1/trials", payload);
    assert.equal(created.status, 202);
    let snapshot = created.json<{ status: string; reward: unknown }>();
    while (snapshot.status === "queued" || snapshot.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      snapshot = (await gateway.get(`/v1/trials/${payload.request_id}`)).json();
    }
    assert.deepEqual([snapshot.status, snapshot.reward], ["completed", 1.0]);
    const ready = await gateway.get("/readyz");
    assert.equal(ready.status, 200);
    assert.equal(ready.json<{ ready: boolean }>().ready, true);
    assert.deepEqual((await gateway.get("/v1/trials/unknown")).json(), { detail: "trial not found" });
    assert.equal((await gateway.get("/v1/trials/unknown")).status, 404);
    assert.equal((await gateway.post("/v1/trials/unknown/abort")).status, 404);
  }));

test("gateway_rejects_unregistered_callback_host_without_echoing_token", () =>
  withGateway(async (gateway) => {
    const payload = trialPayload({ base_url: "http://relax-evil.example:8000/agentic_api", api_key: "super-secret-session-token" });
    const answer = await gateway.post("/v1/trials", payload);
    assert.equal(answer.status, 400);
    assert.doesNotMatch(answer.text, /super-secret-session-token/);
  }));

test("create answers 400 for a body that is not JSON, 422 for protocol errors, 400 for registration errors", () =>
  withGateway(async (gateway) => {
    const notJson = await gateway.client.request(`${gateway.url}/v1/trials`, { method: "POST", rawBody: "{nope" });
    assert.equal(notJson.status, 400);
    const wrongVersion = await gateway.post("/v1/trials", { ...trialPayload(), protocol_version: "relax-nemo-gym/v0" });
    assert.equal(wrongVersion.status, 422);
    assert.match(wrongVersion.json<{ detail: string }>().detail, /protocol_version/);
    const noPolicy = trialPayload() as Record<string, unknown>;
    delete noPolicy.interrupt_policy;
    assert.equal((await gateway.post("/v1/trials", noPolicy)).status, 422);
    assert.equal((await gateway.post("/v1/trials", { ...trialPayload(), interrupt_policy: "resumable" })).status, 400);
    assert.equal((await gateway.post("/v1/trials", trialPayload({ deadline_s: 121 }))).status, 400);
    assert.equal((await gateway.post("/v1/trials", trialPayload({ config: "not-registered" }))).status, 400);
    assert.equal((await gateway.get("/healthz")).json<{ trials: number }>().trials, 0);
  }));

test("readyz is 503 when a readiness URL does not answer", async () => {
  const port = await refusedPort();
  await withGateway(
    async (gateway) => {
      const ready = await gateway.get("/readyz");
      assert.equal(ready.status, 503);
      assert.equal(ready.json<{ ready: boolean }>().ready, false);
    },
    {},
    { readiness_urls: [`http://127.0.0.1:${port}/`] },
  );
});

test("long poll: GET ?wait=S answers as soon as the trial ends, and says it honoured the wait", () =>
  withGateway(async (gateway, agent) => {
    const payload = trialPayload();
    await gateway.post("/v1/trials", payload);
    const rolloutId = await rolloutOf(agent, 0);
    const polled = gateway.get(`/v1/trials/${payload.request_id}?wait=30`);
    setTimeout(() => agent.finish(rolloutId, { reward: 0.5 }), 100);
    const answer = await polled;
    assert.equal(answer.headers["x-ng-long-poll"], "1");
    assert.equal(answer.json<{ status: string }>().status, "completed");
    const still = await gateway.get(`/v1/trials/${payload.request_id}`);
    assert.equal(still.headers["x-ng-long-poll"], undefined);
    assert.equal((await gateway.get(`/v1/trials/${payload.request_id}?wait=abc`)).status, 422);
  }));

test("bearer-token auth guards the trial API but not health or callbacks", () =>
  withGateway(
    async (gateway) => {
      const payload = trialPayload();
      assert.equal((await gateway.post("/v1/trials", payload)).status, 401);
      assert.equal((await gateway.post("/v1/trials", payload, { authorization: "Bearer wrong" })).status, 401);
      assert.equal((await gateway.post("/v1/trials", payload, { authorization: "Bearer trial-api-token" })).status, 202);
      assert.equal((await gateway.get(`/v1/trials/${payload.request_id}`)).status, 401);
      assert.equal((await gateway.get("/healthz")).status, 200);
      assert.equal((await gateway.post("/ng-rollout/unknown-0/v1/responses", { input: "x" })).status, 410);
    },
    { NEMO_GYM_GATEWAY_TOKEN: "trial-api-token" },
  ));

test("terminal records expire after the TTL (and their request_id may be used again)", () =>
  withGateway(
    async (gateway, agent) => {
      agent.onRun = () => ({ status: 200, json: { reward: 1 } });
      const payload = trialPayload();
      await gateway.post("/v1/trials", payload);
      assert.equal((await gateway.terminal(payload.request_id)).status, "completed");
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The janitor may have purged it already; either way it is gone once a purge has run.
      await gateway.service.purgeExpired(Date.now());
      assert.equal((await gateway.get(`/v1/trials/${payload.request_id}`)).status, 404);
      assert.equal((await gateway.post("/v1/trials", payload)).status, 202);
    },
    { NEMO_GYM_GATEWAY_TERMINAL_TTL_S: "0.001" },
  ));

test("one_hundred_concurrent_callbacks_keep_tokens_isolated (through the gateway, 100 live trials)", async () => {
  const relax = await startFakeRelax();
  try {
    await withGateway(
      async (gateway, agent) => {
        const payloads = Array.from({ length: 100 }, (_, i) =>
          trialPayload({ base_url: `${relax.url}/agentic_api`, api_key: `token-${i}`, task: { messages: [{ role: "user", content: `task-${i}` }], metadata: {} } }),
        );
        await Promise.all(payloads.map((payload) => gateway.post("/v1/trials", payload)));
        const runs = await agent.waitForRuns(100);
        // Each rollout's run body carries its task, so the token it must use is known from the task text.
        const expectedToken = new Map(runs.map((run) => [run.rolloutId, `Bearer token-${taskText(run.body).slice("task-".length)}`]));
        await Promise.all(
          runs.map(async (run) => {
            const answer = await gateway.post(`/ng-rollout/${run.rolloutId}/v1/responses`, { input: run.rolloutId, model: "agent-model" });
            assert.equal(answer.status, 200);
          }),
        );
        assert.equal(relax.calls.length, 100);
        for (const call of relax.calls) {
          assert.equal(call.authorization, expectedToken.get(String(call.body.input)));
          assert.equal(call.path, "/agentic_api/v1/responses");
          assert.equal(call.body.model, "policy-model");
        }
        for (const run of runs) agent.finish(run.rolloutId, { reward: 1 });
      },
      {},
      { max_concurrency: 100, queue_capacity: 0 },
    );
  } finally {
    await relax.close();
  }
});

function taskText(runBody: Record<string, unknown>): string {
  const input = (runBody.responses_create_params as { input: { content: string }[] }).input;
  return input[0]!.content;
}
