import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { MemorySessionStore, resourcesServer, tool } from "../../src/server/index.ts";
import { http, startServers } from "../../src/testing/servers.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("idle sessions are dropped after the TTL and handed to onEvict; touched ones stay", async () => {
  // Idle time runs on the test's own clock, so a loaded machine's late timers cannot make "busy" look idle.
  let nowMs = 0;
  const evicted: string[] = [];
  const store = new MemorySessionStore<number>({ idleTtlMs: 80, sweepIntervalMs: 10, now: () => nowMs, onEvict: (id) => void evicted.push(id) });
  await store.set("idle", 1);
  await store.set("busy", 2);
  for (let i = 0; i < 6; i++) {
    nowMs += 25;
    await store.get("busy");
  }
  // 150 ms on the clock: "idle" is past its TTL, "busy" was touched just now; the next sweep drops only "idle".
  for (let waitedMs = 0; evicted.length === 0 && waitedMs < 5000; waitedMs += 10) await sleep(10);
  assert.equal(await store.get("idle"), undefined);
  assert.equal(await store.get("busy"), 2);
  assert.deepEqual(evicted, ["idle"]);
  await store.close();
  assert.deepEqual(evicted.sort(), ["busy", "idle"], "closing disposes what is left");
});

test("a resources server's session_idle_ttl_s bounds how long an abandoned rollout's state is kept", async () => {
  const disposed: number[] = [];
  const counter = resourcesServer({
    name: "TtlCounter",
    state: () => ({ count: 0 }),
    disposeState: (state) => void disposed.push(state.count),
    tools: { bump: tool({ input: z.object({}), run: (state: { count: number }) => ({ count: ++state.count }) }) },
    verify: { run: () => 0 },
  });
  const graph = await startServers({ ttl: [counter, { session_idle_ttl_s: 0.1 }] });
  const client = http();
  try {
    const first = await client.request(`${graph.url("ttl")}/bump`, { method: "POST", json: {} });
    await client.request(`${graph.url("ttl")}/bump`, { method: "POST", json: {}, cookies: first.cookies });
    await sleep(400);
    const later = await client.request(`${graph.url("ttl")}/bump`, { method: "POST", json: {}, cookies: first.cookies });
    assert.deepEqual(later.json(), { count: 1 }, "the abandoned state was dropped; the session starts over");
    assert.deepEqual(disposed, [2]);
  } finally {
    await graph.close();
    await client.close();
  }
});
