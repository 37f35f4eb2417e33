// `session_store: redis://…`: two servers of one instance (replicas, same signing secret) share every session
// through the real Redis on 127.0.0.1:6379, over real HTTP. Each test uses its own instance name, so its own keys.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { http, startServers, type InProcessGraph } from "../../src/testing/index.ts";
import { IDEMPOTENCY_KEY_HEADER } from "../../src/protocol/failures.ts";
import { refusedPort } from "../../src/testing/ports.ts";
import workplace from "../../resources_servers/workplace_assistant/app.ts";
import exampleCounter from "../../resources_servers/example_session_state_mgmt/app.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { cookieHeader } from "../../src/client/index.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const redis = new Redis(REDIS_URL);
const client = http();
const graphs: InProcessGraph[] = [];
const instances: string[] = [];

after(async () => {
  await Promise.all(graphs.map((graph) => graph.close()));
  await client.close();
  for (const instance of instances) {
    const keys = await redis.keys(`ng:sessions:*:${instance}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

let toolRuns = 0;
const counter = resourcesServer({
  name: "SharedCounterResourcesServer",
  seed: z.object({ initial_count: z.number().int() }),
  state: (seed): { count: number; log: number[] } => ({ count: seed?.initial_count ?? 0, log: [] }),
  stateCodec: "json",
  tools: {
    increment_counter: tool({
      input: z.object({ count: z.number().int(), delay_ms: z.number().default(0) }),
      run: async (state: { count: number; log: number[] }, { count, delay_ms }) => {
        toolRuns++;
        const before = state.count;
        // A read-modify-write across an await: two calls interleaved here would lose one of the additions.
        await new Promise((resolve) => setTimeout(resolve, delay_ms));
        state.count = before + count;
        state.log.push(count);
        return { count: state.count };
      },
    }),
    get_counter_value: tool({ input: z.object({}), run: (state: { count: number }) => ({ count: state.count }) }),
  },
  verify: { input: z.object({ expected_count: z.number().int() }), run: (state, { expected_count }) => (state?.count === expected_count ? 1 : 0) },
});

const handles = resourcesServer({
  name: "HandleResourcesServer",
  state: () => ({ opened: new Map<string, number>() }),
  tools: {},
  verify: { run: () => 0 },
});

/** Two replicas of one fresh instance sharing Redis and one signing secret. */
async function replicas(fields: Record<string, unknown> = {}, definition = counter): Promise<{ urls: string[]; cookieName: string }> {
  const instance = `shared_${randomBytes(4).toString("hex")}`;
  instances.push(instance);
  const topLevel = { session_secret: "replicas-share-this" };
  const started = await Promise.all([0, 1].map(() => startServers({ [instance]: [definition, { session_store: REDIS_URL, ...fields }] }, topLevel)));
  graphs.push(...started);
  return { urls: started.map((graph) => graph.url(instance)), cookieName: `${definition.className}___${instance}` };
}

async function post(url: string, json: unknown, cookies?: Record<string, string>, headers?: Record<string, string>) {
  const answer = await client.request(url, { method: "POST", json, cookies, headers });
  return { status: answer.status, text: answer.text, json: () => answer.json<any>(), cookies: answer.cookies };
}

test("consecutive calls of a rollout alternate between replicas and see one state", async () => {
  const { urls: [a, b] } = await replicas();
  const seeded = await post(`${a}/seed_session`, { initial_count: 5 });
  const cookies = seeded.cookies;
  for (const [i, url] of [a, b, a, b].entries()) assert.equal((await post(`${url}/increment_counter`, { count: 1 }, cookies)).json().count, 6 + i);
  assert.equal((await post(`${b}/verify`, { responses_create_params: { input: [] }, response: { id: "r", created_at: 0, model: "m", object: "response", output: [], parallel_tool_calls: false, tool_choice: "auto", tools: [] }, expected_count: 9 }, cookies)).json().reward, 1);
});

test("concurrent calls of one session on both replicas run one after the other: no addition lost", async () => {
  const { urls } = await replicas();
  const cookies = (await post(`${urls[0]}/seed_session`, { initial_count: 0 })).cookies;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`${urls[i % 2]}/increment_counter`, { count: 1, delay_ms: 5 }, cookies)));
  assert.deepEqual(answers.map((answer) => answer.status), Array(20).fill(200));
  // Serialised: each call saw the previous one's count, so the answers are 1..20 in some order.
  assert.deepEqual(answers.map((answer) => answer.json().count).sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal((await post(`${urls[1]}/get_counter_value`, {}, cookies)).json().count, 20);
});

test("a key replayed on the other replica gets the first answer byte for byte, and the tool ran once", async () => {
  const { urls: [a, b] } = await replicas();
  const cookies = (await post(`${a}/seed_session`, { initial_count: 10 })).cookies;
  toolRuns = 0;
  const headers = { [IDEMPOTENCY_KEY_HEADER]: "loop-1:1.0:call_a" };
  const first = await post(`${a}/increment_counter`, { count: 1 }, cookies, headers);
  const replay = await post(`${b}/increment_counter`, { count: 1 }, cookies, headers);
  assert.equal(first.text, '{"count":11}');
  assert.equal(replay.text, first.text);
  assert.equal(toolRuns, 1);
  // Concurrent first tries of a new key on both replicas: one runs, the other waits for the lock and replays.
  const twins = await Promise.all([a, b].map((url) => post(`${url}/increment_counter`, { count: 5, delay_ms: 20 }, cookies, { [IDEMPOTENCY_KEY_HEADER]: "loop-1:2.0:call_b" })));
  assert.equal(twins[0]!.text, twins[1]!.text);
  assert.equal(toolRuns, 2);
  assert.equal((await post(`${a}/get_counter_value`, {}, cookies)).json().count, 16);
});

test("a session's state expires after the idle TTL, refreshed by every access", async () => {
  const { urls: [a, b] } = await replicas({ session_idle_ttl_s: 0.4 });
  const cookies = (await post(`${a}/seed_session`, { initial_count: 7 })).cookies;
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await post(`${i % 2 ? a : b}/get_counter_value`, {}, cookies)).json().count, 7, "kept alive by access");
  }
  await new Promise((resolve) => setTimeout(resolve, 600));
  // Expired: a tool call on it starts a new counter at 0, as on a session never seeded.
  assert.equal((await post(`${b}/get_counter_value`, {}, cookies)).json().count, 0);
});

test("workplace_assistant's workbench travels between replicas: a mail sent on one is found on the other", async () => {
  const { urls: [a, b] } = await replicas({}, workplace as unknown as typeof counter);
  const cookies = (await post(`${a}/seed_session`, {})).cookies;
  const sent = await post(`${a}/email_send_email`, { recipient: "someone@example.com", subject: "Replicas", body: "shared state" }, cookies);
  assert.equal(sent.status, 200, sent.text);
  const found = await post(`${b}/email_search_emails`, { query: "Replicas shared state" }, cookies);
  assert.match(found.text, /someone@example\.com/);
  const fresh = (await post(`${b}/seed_session`, {})).cookies;
  assert.equal((await post(`${a}/email_search_emails`, { query: "Replicas shared state" }, fresh)).json().output, "No emails found.");
});

test("a session store that is no memory or redis URL fails the start in one line naming the key", async () => {
  await assert.rejects(startServers({ bad_store: [counter, { session_store: "http://127.0.0.1:6379" }] }), (error: Error) => {
    assert.match(error.message, /bad_store.session_store: session_store must be 'memory' or a redis:\/\/ or rediss:\/\/ URL, got the scheme 'http'/);
    return true;
  });
});

test("asking for Redis on state that cannot be serialised fails the start naming the server and why", async () => {
  await assert.rejects(startServers({ handles: [handles, { session_store: REDIS_URL }] }), (error: Error) => {
    assert.match(error.message, /session_store redis cannot be used: HandleResourcesServer keeps per-session state it declares no way to serialise \(no stateCodec\)/);
    return true;
  });
  // memory (the default) is fine.
  graphs.push(await startServers({ handles: [handles, { session_store: "memory" }] }));
});

test("an unreachable Redis fails the start in one line naming the URL", async () => {
  const port = await refusedPort();
  await assert.rejects(startServers({ unreachable: [counter, { session_store: `redis://127.0.0.1:${port}` }] }), (error: Error) => {
    assert.match(error.message, new RegExp(`^SharedCounterResourcesServer 'unreachable': session_store session store redis://127.0.0.1:${port}: cannot reach Redis`));
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
});

/** A TCP relay to Redis that can be cut, to make an outage in the middle of a run. */
async function cuttableRedis(): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((socket) => {
    if (!open) return socket.destroy();
    const upstream = connect(6379, "127.0.0.1");
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => (open = true),
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test("Redis lost mid-call answers 503 (never a made-up state), and the key runs again once Redis is back", async () => {
  const relay = await cuttableRedis();
  try {
    const { urls: [a] } = await replicas({ session_store: relay.url, session_lock_lease_s: 0.5 });
    const cookies = (await post(`${a}/seed_session`, { initial_count: 1 })).cookies;
    const headers = { [IDEMPOTENCY_KEY_HEADER]: "loop-9:1.0:call_x" };
    // The outage starts while the tool runs: its state cannot be written, so its answer is not a 200.
    const pending = post(`${a}/increment_counter`, { count: 1, delay_ms: 100 }, cookies, headers);
    await new Promise((resolve) => setTimeout(resolve, 30));
    relay.cut();
    const during = await pending;
    assert.equal(during.status, 503, during.text);
    assert.match(during.json().detail, /session store redis:\/\/127\.0\.0\.1:\d+/);
    assert.equal((await post(`${a}/get_counter_value`, {}, cookies)).status, 503);
    relay.restore();
    // Reconnected within a second; the failed call's lock (not releasable during the outage) is gone by its lease.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const retried = await post(`${a}/increment_counter`, { count: 1 }, cookies, headers);
    assert.equal(retried.text, '{"count":2}', "the failed try left the state as it was, and its 503 was not stored");
  } finally {
    await relay.close();
  }
});

test("the gateway's cleanup of a rollout seeded on one replica, asked of the other, drops its state and proves it", async () => {
  const { urls: [a, b] } = await replicas();
  const cookies = (await post(`${a}/seed_session`, { initial_count: 3, _ng_task_index: 4, _ng_rollout_index: 1 })).cookies;
  assert.equal((await post(`${b}/increment_counter`, { count: 1 }, cookies)).json().count, 4);
  assert.deepEqual((await client.request(`${b}/cleanup/4-1`)).json(), { clean: false });
  await post(`${b}/cleanup/4-1`, {});
  assert.deepEqual((await client.request(`${a}/cleanup/4-1`)).json(), { clean: true });
});

test("a resources server whose sessions live in the process (a gymnasium one) refuses session_store redis in one line", async () => {
  const blackjack = (await import("../../resources_servers/blackjack/app.ts")).default;
  await assert.rejects(startServers({ cards: [blackjack, { session_store: REDIS_URL }] }), (error: Error) => {
    assert.match(error.message, /^\S+ 'cards': session_store redis cannot be used: \S+ keeps its sessions' live environments in the process; use session_store: memory$/);
    return true;
  });
  await assert.rejects(startServers({ cards: [blackjack, { session_store: "redis:/" }] }), /'cards': config key `session_store` names no host/);
  graphs.push(await startServers({ cards: [blackjack, { session_store: "memory" }] }));
});

test("a state declared json that holds a class instance is refused with a 500 naming it, never stored changed", async () => {
  const dated = resourcesServer({
    name: "DatedResourcesServer",
    state: (): { at: unknown } => ({ at: "start" }),
    stateCodec: "json",
    tools: { stamp: tool({ input: z.object({}), run: (state: { at: unknown }) => ((state.at = new Map([["a", 1]])), { ok: true }) }) },
    verify: { run: () => 0 },
  });
  const { urls: [a] } = await replicas({}, dated as unknown as typeof counter);
  const cookies = (await post(`${a}/seed_session`, {})).cookies;
  const stamped = await post(`${a}/stamp`, {}, cookies);
  assert.equal(stamped.status, 500);
  assert.match(stamped.json().detail, /DatedResourcesServer session state: a Map instance at "at" does not survive JSON/);
});

test("a tool called over MCP on one replica changes the state the other replica's tools and verify see", async () => {
  const { urls: [a, b] } = await replicas({ expose_tools_over_mcp: true }, exampleCounter as unknown as typeof counter);
  const cookies = (await post(`${a}/seed_session`, { initial_count: 2 })).cookies;
  const mcp = new Client({ name: "gym-test", version: "0.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${a}/mcp`), { requestInit: { headers: { cookie: cookieHeader(cookies)! } } }));
  try {
    await mcp.callTool({ name: "increment_counter", arguments: { count: 5 } });
  } finally {
    await mcp.close();
  }
  assert.equal((await post(`${b}/get_counter_value`, {}, cookies)).text, '{"count":7}');
});
