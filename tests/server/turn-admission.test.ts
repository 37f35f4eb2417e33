// Fair admission under CPU saturation (src/server/turn-admission.ts): requests are admitted a bounded number per
// event-loop turn in arrival order, and a server busy with old connections still accepts new ones promptly —
// libuv accepts one connection per turn, so without short turns a connection opened under load waited for
// thousands of other requests (measured below in requests served, not in wall time).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, Pool } from "undici";
import { TurnAdmission } from "../../src/server/turn-admission.ts";
import { createBaseApp } from "../../src/server/index.ts";
import { randomSessionSigning } from "../../src/server/session-cookie.ts";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("admission: an idle server admits at once; a burst is admitted first in, first out, a bounded number per turn", async () => {
  const admission = new TurnAdmission({ targetTurnMs: 1_000, maxPerTurn: 8 });
  assert.equal(admission.enter(), undefined, "the first request runs at once");

  const order: number[] = [];
  const perTurn: number[] = [];
  let turn = 0;
  const waits: Promise<void>[] = [];
  for (let i = 0; i < 100; i++) {
    const wait = admission.enter();
    if (wait === undefined) {
      order.push(i);
      continue;
    }
    waits.push(
      wait.then(() => {
        order.push(i);
        perTurn[turn] = (perTurn[turn] ?? 0) + 1;
      }),
    );
  }
  assert.ok(admission.queued >= 99, `the burst waits beyond the turn's budget (${admission.queued} queued)`);
  const counting = (async () => {
    while (admission.queued > 0) {
      await nextTurn();
      turn++;
    }
  })();
  await Promise.all([...waits, counting]);
  assert.deepEqual(order, [...Array(100).keys()], "admitted in arrival order");
  assert.ok(Math.max(...perTurn.filter(Boolean)) <= 8, `never more than maxPerTurn in one turn: ${perTurn.join(",")}`);
  assert.equal(admission.queued, 0);
});

test("admission: turns that run long admit one request per turn, and every request is admitted", async () => {
  const admission = new TurnAdmission({ targetTurnMs: 1, maxPerTurn: 64 });
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  let admitted = 0;
  const waits = Array.from({ length: 20 }, () => {
    const wait = admission.enter();
    if (wait === undefined) {
      admitted++;
      busy(3);
      return Promise.resolve();
    }
    return wait.then(() => {
      admitted++;
      busy(3); // each request's work alone outlasts the target turn
    });
  });
  let turns = 0;
  while (admission.queued > 0) {
    await nextTurn();
    turns++;
  }
  await Promise.all(waits);
  assert.equal(admitted, 20);
  assert.ok(turns >= 15, `long turns admit about one request each (${turns} turns for 20)`);
});

test("a saturated server accepts new connections and serves them in about arrival order", async () => {
  const app = createBaseApp({ sessionSigning: randomSessionSigning(), sessionCookieName: "X___x" });
  let served = 0;
  app.post("/work", async () => {
    const end = performance.now() + 2;
    while (performance.now() < end); // a CPU-bound handler: 2 ms per request
    return { served: ++served };
  });
  await app.listen({ host: "127.0.0.1", port: 0, backlog: 4096 });
  const address = app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${address.port}`;
  const body = JSON.stringify({ x: 1 });
  const post = async (dispatcher: Pool | Client) => {
    const response = await dispatcher.request({ origin, path: "/work", method: "POST", headers: { "content-type": "application/json" }, body });
    return ((await response.body.json()) as { served: number }).served;
  };

  // 64 keep-alive connections keep the server saturated.
  const background = new Pool(origin, { connections: 64 });
  let stop = false;
  const load = Array.from({ length: 64 }, async () => {
    while (!stop) await post(background);
  });
  try {
    while (served < 200) await nextTurn();
    // 32 connections opened now, one request each: how many other requests the server served before each.
    const newcomers = Array.from({ length: 32 }, () => new Client(origin));
    const lags = await Promise.all(
      newcomers.map(async (client) => {
        const sentAt = served;
        return (await post(client)) - sentAt;
      }),
    );
    await Promise.all(newcomers.map((client) => client.close()));
    // Ahead of each: the 64 waiting requests, the other newcomers, and a turn per connection accepted before it.
    // Accepting one connection per saturated turn of ~64 requests would put the last newcomer ~2,000 requests back.
    assert.ok(Math.max(...lags) < 300, `requests served before a newcomer's: ${lags.sort((a, b) => a - b).join(",")}`);
  } finally {
    stop = true;
    await Promise.all(load);
    await background.close();
    await app.close();
  }
});
