// The resources-server cleanup endpoint over real HTTP (§5 "Workplace cleanup patch", generalised), and the
// gateway's run adapter proving cleanup against it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { MemorySessionStore, resourcesServer, tool } from "../../src/server/index.ts";
import { registerRolloutCleanup, rolloutIdOfRow } from "../../src/server/rollout-cleanup.ts";
import { createLogger } from "../../src/server/logger.ts";
import { HttpRunAdapter, cleanupRun } from "../../src/gateway/run-adapter.ts";
import type { EnvironmentRegistration } from "../../src/gateway/types.ts";
import { http, startServers } from "../../src/testing/servers.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";

const disposed: string[] = [];

const inbox = resourcesServer({
  name: "InboxResourcesServer",
  seed: z.object({ owner: z.string().default("nobody") }),
  state: (seed) => ({ owner: seed?.owner ?? "unseeded", sent: [] as string[] }),
  disposeState: (state) => void disposed.push(state.owner),
  tools: {
    send_email: tool({
      input: z.object({ to: z.string() }),
      run: (state: { owner: string; sent: string[] }, { to }) => {
        state.sent.push(to);
        return { sent: state.sent.length };
      },
    }),
  },
  verify: { run: () => 1 },
  routes: (app, _context, sessions) => void registerRolloutCleanup(app, sessions),
});

const stateless = resourcesServer({
  name: "MathResourcesServer",
  tools: {},
  verify: { run: () => 1 },
  routes: (app, _context, sessions) => void registerRolloutCleanup(app, sessions),
});

let graph: InProcessGraph;
const client = http();
const post = (path: string, json?: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("inbox")}${path}`, { method: "POST", json, cookies });
const probe = async (rolloutId: string, server = "inbox") => (await client.request(`${graph.url(server)}/cleanup/${rolloutId}`)).json<{ clean: boolean }>();

before(async () => {
  graph = await startServers({ inbox: [inbox], math: [stateless] });
});
after(async () => {
  await graph.close();
  await client.close();
});

/** What an agent does for a gateway trial: seed with the /run row (which carries the indices), then use the tools. */
async function seedRollout(taskIndex: string | number, rolloutIndex: string | number, owner: string) {
  const seeded = await post("/seed_session", { owner, _ng_task_index: taskIndex, _ng_rollout_index: rolloutIndex, responses_create_params: { input: "hi" } });
  assert.equal(seeded.status, 200);
  const used = await post("/send_email", { to: "ada@example.com" }, seeded.cookies);
  assert.deepEqual(used.json(), { sent: 1 });
  return seeded.cookies;
}

test("a seeded rollout holds state until POST /cleanup drops it; the probe then reports clean", async () => {
  await seedRollout("0f1e2d3c4b5a69788796a5b4c3d2e1f0", "0", "first");
  assert.deepEqual(await probe("0f1e2d3c4b5a69788796a5b4c3d2e1f0-0"), { clean: false });

  const cleanup = await post("/cleanup/0f1e2d3c4b5a69788796a5b4c3d2e1f0-0");
  assert.equal(cleanup.status, 200);
  assert.deepEqual(cleanup.json(), { accepted: true });

  assert.deepEqual(await probe("0f1e2d3c4b5a69788796a5b4c3d2e1f0-0"), { clean: true });
  assert.ok(disposed.includes("first"), "the environment's disposeState ran");
});

test("cleanup touches only its own rollout", async () => {
  await seedRollout("aaaa", "0", "kept");
  await seedRollout("bbbb", "0", "dropped");
  await post("/cleanup/bbbb-0");
  assert.deepEqual(await probe("aaaa-0"), { clean: false });
  assert.deepEqual(await probe("bbbb-0"), { clean: true });
});

test("state written back by a late tool call is reported, not hidden, and a second POST drops it", async () => {
  const cookies = await seedRollout("late", "0", "late");
  await post("/cleanup/late-0");
  await post("/send_email", { to: "late@example.com" }, cookies);
  assert.deepEqual(await probe("late-0"), { clean: false });
  await post("/cleanup/late-0");
  assert.deepEqual(await probe("late-0"), { clean: true });
});

test("an unknown rollout is accepted and probes clean; a server without state is always clean", async () => {
  assert.deepEqual((await post("/cleanup/never-0")).json(), { accepted: true });
  assert.deepEqual(await probe("never-0"), { clean: true });
  await client.request(`${graph.url("math")}/seed_session`, { method: "POST", json: { _ng_task_index: "m", _ng_rollout_index: "0" } });
  assert.deepEqual(await probe("m-0", "math"), { clean: true });
});

test("rollout ids are built from string (gateway) or integer (NeMo Gym) indices, and only when both are present", () => {
  assert.equal(rolloutIdOfRow({ _ng_task_index: "abc", _ng_rollout_index: "0" }), "abc-0");
  assert.equal(rolloutIdOfRow({ _ng_task_index: 3, _ng_rollout_index: 1 }), "3-1");
  assert.equal(rolloutIdOfRow({ _ng_task_index: 3 }), undefined);
  assert.equal(rolloutIdOfRow({ _ng_task_index: "", _ng_rollout_index: "0" }), undefined);
  assert.equal(rolloutIdOfRow({ _ng_task_index: 1.5, _ng_rollout_index: 0 }), undefined);
  assert.equal(rolloutIdOfRow(null), undefined);
  assert.equal(rolloutIdOfRow({ _ng_rollout_id: "given-7", _ng_task_index: 3, _ng_rollout_index: 1 }), "given-7", "an explicit id wins, as in the agent");
});

test("the gateway's cleanup sequence is confirmed against a resources server with the endpoint", async () => {
  await seedRollout("c0ffee", "0", "gateway");
  const url = graph.url("inbox");
  const registration: EnvironmentRegistration = {
    config: "inbox-v1",
    environment: "inbox",
    agent_name: null,
    agent_url: url,
    readiness_urls: [url],
    abort_url: `${url}/cleanup/{rollout_id}`,
    force_cleanup_url: `${url}/cleanup/{rollout_id}`,
    cleanup_probe_url: `${url}/cleanup/{rollout_id}`,
    interrupt_policy: "protected",
    max_concurrency: 1,
    queue_capacity: 1,
    max_deadline_s: 60,
  };
  const adapter = new HttpRunAdapter(registration, { http: client, cleanupGraceS: 2, logger: createLogger("rollout-cleanup-test", "silent") });

  const handle = adapter.handleFor("c0ffee-0");
  assert.deepEqual(await handle.probeCleanup(), { confirmed: false, code: "cleanup_unverified" }, "state is held before cleanup");
  assert.deepEqual(await cleanupRun(handle), { confirmed: true });
  assert.ok(disposed.includes("gateway"));
});

test("registering twice on one app returns the same index instead of clashing routes", async () => {
  const { default: Fastify } = await import("fastify");
  const app = Fastify();
  const sessions = new MemorySessionStore<number>({ idleTtlMs: Infinity });
  assert.equal(registerRolloutCleanup(app, sessions), registerRolloutCleanup(app, sessions));
  await app.ready();
  await app.close();
});
