// Sessions cannot be forged: every server signs its cookie with the graph's secret (random per graph unless
// configured), so a cookie minted the NeMo Gym way (the public cookie name as key) names no session here, and two
// clients that choose one session id do not share state. NeMo Gym's signing stays available as an explicit mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import counter from "../../resources_servers/example_session_state_mgmt/app.ts";
import { configuredSessionSigning, sessionCookieCodec, sessionCookieCodecFor } from "../../src/server/index.ts";
import { http, startServers } from "../../src/testing/servers.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";

const COOKIE = "StatefulCounterResourcesServer___counter";
const seedBody = { responses_create_params: { input: "count" }, initial_count: 3, expected_count: 3 };

async function withGraph<T>(topLevel: Record<string, unknown>, use: (graph: InProcessGraph, post: (path: string, json: unknown, cookie?: string) => ReturnType<ReturnType<typeof http>["request"]>) => Promise<T>): Promise<T> {
  const graph = await startServers({ counter: [counter] }, topLevel);
  const client = http();
  try {
    return await use(graph, (path, json, cookie) => client.request(`${graph.url("counter")}${path}`, { method: "POST", json, cookies: cookie === undefined ? undefined : { [COOKIE]: cookie } }));
  } finally {
    await client.close();
    await graph.close();
  }
}

test("a cookie minted with the cookie name as key (NeMo Gym's forgeable way) names no session; two clients choosing one id share nothing", async () => {
  await withGraph({}, async (graph, post) => {
    assert.equal(graph.sessionSigning.kind, "secret");
    const forged = sessionCookieCodec(COOKIE, COOKIE).encode("chosen-by-the-client");
    const seeded = await post("/seed_session", seedBody, forged);
    assert.equal(seeded.status, 200);
    const minted = graph.servers.counter!.app.sessionCookies.decode(seeded.cookies[COOKIE]);
    assert.ok(minted, "the server set a cookie it signed");
    assert.notEqual(minted, "chosen-by-the-client", "the server minted its own id");
    assert.match(minted, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, "a random UUID");
    // A second client presenting the same forged cookie gets a fresh, unseeded session, not the first one's state.
    assert.deepEqual((await post("/get_counter_value", {}, forged)).json(), { count: 0 });
    assert.deepEqual((await post("/get_counter_value", {}, seeded.cookies[COOKIE])).json(), { count: 3 }, "the server's own cookie keeps the session");
  });
});

test("every graph gets its own random secret: a cookie from one graph is no session on another", async () => {
  await withGraph({}, async (first, postFirst) => {
    await withGraph({}, async (second, postSecond) => {
      assert.notDeepEqual(first.sessionSigning, second.sessionSigning);
      const cookie = (await postFirst("/seed_session", seedBody)).cookies[COOKIE]!;
      assert.deepEqual((await postSecond("/get_counter_value", {}, cookie)).json(), { count: 0 });
      assert.deepEqual((await postFirst("/get_counter_value", {}, cookie)).json(), { count: 3 });
    });
  });
});

test("a configured session_secret is used, so replicas behind a balancer honour each other's cookies", async () => {
  const topLevel = { session_secret: "shared-by-the-replicas" };
  await withGraph(topLevel, async (replicaA, postA) => {
    await withGraph(topLevel, async (_replicaB, postB) => {
      assert.deepEqual(replicaA.sessionSigning, { kind: "secret", secret: "shared-by-the-replicas" });
      const cookie = (await postA("/seed_session", seedBody)).cookies[COOKIE]!;
      const id = sessionCookieCodec(COOKIE, "shared-by-the-replicas").decode(cookie);
      assert.ok(id, "signed with the configured secret");
      // B has no state for the session (state is per process) but honours the id: its answer re-sets the same one.
      const onB = await postB("/get_counter_value", {}, cookie);
      assert.equal(sessionCookieCodec(COOKIE, "shared-by-the-replicas").decode(onB.cookies[COOKIE]), id);
    });
  });
});

test("the secret comes from session_secret, else NEMO_GYM_SESSION_SECRET; session_signing: nemo_gym is NeMo Gym's cookie-name signing", () => {
  assert.deepEqual(configuredSessionSigning({ session_secret: "from-config" }, { NEMO_GYM_SESSION_SECRET: "from-env" }), { kind: "secret", secret: "from-config" });
  assert.deepEqual(configuredSessionSigning({}, { NEMO_GYM_SESSION_SECRET: "from-env" }), { kind: "secret", secret: "from-env" });
  assert.deepEqual(configuredSessionSigning({ session_secret: "" }, {}), undefined, "an empty secret is no secret");
  assert.equal(configuredSessionSigning({}, {}), undefined);
  assert.deepEqual(configuredSessionSigning({ session_signing: "nemo_gym", session_secret: "x" }, {}), { kind: "cookie-name" });
  assert.throws(() => configuredSessionSigning({ session_signing: "none" }, {}), /session_signing must be 'graph_secret' \(the default\) or 'nemo_gym', got "none"/);
  assert.throws(() => configuredSessionSigning({ session_secret: 7 }, {}), /session_secret must be a string/);
});

test("in NeMo Gym compatibility mode a cookie a Python NeMo Gym server minted is honoured, byte for byte the same", async () => {
  await withGraph({ session_signing: "nemo_gym" }, async (graph, post) => {
    assert.deepEqual(graph.sessionSigning, { kind: "cookie-name" });
    const python = sessionCookieCodec(COOKIE, COOKIE);
    const cookie = python.encode("3f2b9a4e-1c7d-4e8a-9b6f-0a1b2c3d4e5f");
    const seeded = await post("/seed_session", seedBody, cookie);
    assert.equal(python.decode(seeded.cookies[COOKIE]), "3f2b9a4e-1c7d-4e8a-9b6f-0a1b2c3d4e5f");
    assert.equal(sessionCookieCodecFor(COOKIE, graph.sessionSigning).encode("abc", 1785000000), python.encode("abc", 1785000000));
  });
});
