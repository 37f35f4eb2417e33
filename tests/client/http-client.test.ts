// The outbound client's guarantees, against real sockets: bounded retries for transport failures only,
// a deadline on the whole call, explicit cookies in and out, and instance-name addressing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getEventListeners } from "node:events";
import { DeadlineExceededError, HttpClient, ServerClient, TransportError } from "../../src/client/index.ts";
import { refusedPort } from "../../src/testing/ports.ts";

let server: Server;
let base: string;
let hits = 0;
let lastCookieHeader: string | undefined;
/** /reset resets the connection this many more times (after reading the request: the server "ran" it). */
let resetsLeft = 0;
let resetKeys: (string | undefined)[] = [];

before(async () => {
  server = createServer((req, res) => {
    hits++;
    lastCookieHeader = req.headers.cookie;
    if (req.url === "/reset") {
      resetKeys.push(req.headers["x-ng-idempotency-key"] as string | undefined);
      req.resume();
      return void req.on("end", () => (resetsLeft-- > 0 ? req.socket.resetAndDestroy() : res.end(JSON.stringify({ ok: true }))));
    }
    if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2000);
    if (req.url === "/fail") {
      res.statusCode = 500;
      return void res.end('"boom"');
    }
    res.setHeader("set-cookie", ["A___x=first; path=/; httponly", "B___y=second; Max-Age=10"]);
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));


test("a refused connection is retried a bounded number of times, then fails with the attempts counted", async () => {
  const client = new HttpClient({ maxRetries: 2, retryBackoffMs: 10 });
  const port = await refusedPort();
  const started = Date.now();
  await assert.rejects(client.request(`http://127.0.0.1:${port}/x`), (error: unknown) => error instanceof TransportError && error.attempts === 3 && error.code === "ECONNREFUSED");
  assert.ok(Date.now() - started < 2000);
  await client.close();
});

test("a POST reset after the server read it is not replayed (it may have run); with an idempotency key it is, under the same key", async () => {
  const client = new HttpClient({ maxRetries: 2, retryBackoffMs: 10 });
  resetsLeft = 1;
  resetKeys = [];
  await assert.rejects(client.request(`${base}/reset`, { method: "POST", json: { n: 1 } }), (error: unknown) => {
    assert.ok(error instanceof TransportError);
    assert.equal(error.attempts, 1);
    assert.match(error.message, /not retried: the server may have run this POST/);
    return true;
  });
  assert.equal(resetKeys.length, 1, "the POST reached the server once");

  resetsLeft = 1;
  resetKeys = [];
  const keyed = await client.request(`${base}/reset`, { method: "POST", json: { n: 1 }, idempotencyKey: "rollout-7:call_1" });
  assert.equal(keyed.status, 200);
  assert.deepEqual(resetKeys, ["rollout-7:call_1", "rollout-7:call_1"]);

  resetsLeft = 1;
  resetKeys = [];
  const vouched = await client.request(`${base}/reset`, { method: "POST", json: { n: 1 }, idempotent: true });
  assert.equal(vouched.status, 200);
  assert.equal(resetKeys.length, 2, "a POST the caller vouches for is replayed");

  resetsLeft = 1;
  resetKeys = [];
  assert.equal((await client.request(`${base}/reset`)).status, 200);
  assert.equal(resetKeys.length, 2, "a GET is replayed");
  await client.close();
});

test("a POST whose connection was refused (nothing sent) is retried", async () => {
  const client = new HttpClient({ maxRetries: 1, retryBackoffMs: 10 });
  const port = await refusedPort();
  await assert.rejects(client.request(`http://127.0.0.1:${port}/x`, { method: "POST", json: {} }), (error: unknown) => error instanceof TransportError && error.attempts === 2);
  await client.close();
});

test("an HTTP error status is returned, never retried", async () => {
  const client = new HttpClient({ maxRetries: 3, retryBackoffMs: 10 });
  hits = 0;
  const answer = await client.request(`${base}/fail`, { method: "POST", json: {} });
  assert.equal(answer.status, 500);
  assert.equal(answer.ok, false);
  assert.equal(hits, 1);
  await client.close();
});

test("the deadline bounds the whole call", async () => {
  const client = new HttpClient({ deadlineMs: 60_000 });
  const started = Date.now();
  await assert.rejects(client.request(`${base}/slow`, { deadlineMs: 200 }), DeadlineExceededError);
  assert.ok(Date.now() - started < 1500);
  await client.close();
});

test("the caller's abort ends the call with the caller's reason, not retried and not a deadline", async () => {
  const client = new HttpClient({ deadlineMs: 60_000 });
  const caller = new AbortController();
  const before = hits;
  setTimeout(() => caller.abort(new Error("the rollout was cancelled")), 100);
  const started = Date.now();
  await assert.rejects(client.request(`${base}/slow`, { signal: caller.signal }), (error: Error) => !(error instanceof DeadlineExceededError) && /cancelled/.test(error.message));
  assert.ok(Date.now() - started < 1500);
  assert.equal(hits - before, 1);
  // Aborted before it starts: nothing is sent.
  await assert.rejects(client.request(`${base}/ok`, { signal: caller.signal }), /cancelled/);
  assert.equal(hits - before, 1);
  await client.close();
});

test("calls sharing one caller's signal put one listener on it, and a finished call no longer follows it", async () => {
  const client = new HttpClient({ deadlineMs: 60_000, maxRetries: 0 });
  const caller = new AbortController();
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    // A run-wide signal shared by every call in flight.
    await Promise.all(Array.from({ length: 200 }, () => client.request(`${base}/ok`, { signal: caller.signal })));
    await client.request(`${base}/fail`, { signal: caller.signal });
    await assert.rejects(client.request(`${base}/slow`, { signal: caller.signal, deadlineMs: 100 }), DeadlineExceededError);
    await assert.rejects(client.request(`http://127.0.0.1:${await refusedPort()}/`, { signal: caller.signal }), TransportError);
    assert.ok(getEventListeners(caller.signal, "abort").length <= 1);
    // One call still in flight ends with the caller's abort; the finished ones are not touched by it.
    const before = hits;
    const pending = client.request(`${base}/slow`, { signal: caller.signal });
    setTimeout(() => caller.abort(new Error("the run was stopped")), 100);
    await assert.rejects(pending, /the run was stopped/);
    assert.equal(hits - before, 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning"), []);
  } finally {
    process.off("warning", onWarning);
    await client.close();
  }
});

test("cookies go out as given and come back as only those the response set (no jar)", async () => {
  const client = new HttpClient();
  const answer = await client.request(`${base}/ok`, { method: "POST", json: { a: 1 }, cookies: { C___z: "v1", D___w: "v2" } });
  assert.equal(lastCookieHeader, "C___z=v1; D___w=v2");
  assert.deepEqual(answer.cookies, { A___x: "first", B___y: "second" });
  await client.request(`${base}/ok`);
  assert.equal(lastCookieHeader, undefined, "nothing is remembered between calls");
  await client.close();
});

test("servers are addressed by instance name through the global config; an unknown name is a clear error", async () => {
  const port = Number(new URL(base).port);
  const client = new ServerClient({ globalConfig: { my_env: { resources_servers: { impl: { host: "127.0.0.1", port } } } } });
  assert.equal(await client.baseUrl("my_env"), base);
  assert.equal((await client.post("my_env", "/ok", { json: {} })).status, 200);
  await assert.rejects(client.post("nope", "/ok"), /nope/);
  await client.close();
});

test("two thousand concurrent calls to one origin all complete over the shared pool", async () => {
  const client = new HttpClient();
  const answers = await Promise.all(Array.from({ length: 2000 }, () => client.request(`${base}/ok`)));
  assert.ok(answers.every((a) => a.status === 200));
  await client.close();
});

test("an answer looked at with peekJson is parsed once: the next json() takes that parse, later ones parse again", async () => {
  const client = new HttpClient();
  const answer = await client.request(`${base}/any`, { method: "POST", json: {} });
  const peeked = answer.peekJson!();
  assert.deepEqual(peeked, { ok: true });
  assert.equal(answer.peekJson!(), peeked, "a second look sees the same parse");
  const first = answer.json<{ ok: boolean }>();
  assert.equal(first, peeked, "the first reader takes the looked-at parse");
  first.ok = false;
  const second = answer.json<{ ok: boolean }>();
  assert.notEqual(second, first);
  assert.deepEqual(second, { ok: true }, "a later reader gets its own value, not the first reader's changes");
  assert.notEqual(answer.peekJson!(), second);
  await client.close();
});
