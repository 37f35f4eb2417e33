// The search backend against a real loopback HTTP fake provider: retries (429 with Retry-After, 5xx), typed
// failures, the caches, the rate limit, the API key check and the fixture backend.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import {
  FixtureSearchBackend,
  ProviderSearchBackend,
  SearchFixtureMissError,
  SearchProviderError,
  retryAfterMs,
  searchBackendFromConfig,
  type SearchBackendSettings,
  type SearchQuery,
} from "../../src/client/search-backend.ts";
import { UserError } from "../../src/config/errors.ts";

type Script = (request: IncomingMessage, response: ServerResponse, call: number) => void;

/** A fake provider answering by a script; records each call's arrival time and URL. */
async function fakeProvider(script: Script) {
  const calls: { at: number; url: string }[] = [];
  const server = createServer((request, response) => {
    calls.push({ at: Date.now(), url: request.url ?? "" });
    request.resume();
    request.on("end", () => script(request, response, calls.length));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base, calls };
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
};

function backendFor(base: string, extra: SearchBackendSettings = {}) {
  const backend = new ProviderSearchBackend<{ items: string[] }>({
    provider: "fake_search",
    apiKey: { configKey: "fake_api_key", value: "k-123" },
    buildRequest: (query: SearchQuery, key: string) => ({ url: `${base}/search?key=${key}&q=${encodeURIComponent(String(query))}` }),
    parseResponse: (response) => response.json<{ items: string[] }>(),
    backoffMs: 1,
    ...extra,
  });
  after(() => backend.close());
  return backend;
}

test("a 429 with Retry-After is waited out and retried, then the answer is returned", async () => {
  const { base, calls } = await fakeProvider((_req, res, call) => (call === 1 ? json(res, 429, { error: "slow down" }, { "retry-after": "0" }) : json(res, 200, { items: ["a"] })));
  const backend = backendFor(base);
  assert.deepEqual(await backend.search("cats"), { items: ["a"] });
  assert.equal(calls.length, 2);
  assert.match(calls[0]!.url, /key=k-123&q=cats/);
});

test("5xx on every attempt ends as a SearchProviderError (502) after the bounded retries", async () => {
  const { base, calls } = await fakeProvider((_req, res) => json(res, 503, { error: "down" }));
  const backend = backendFor(base, { maxRetries: 2 });
  const error = await backend.search("dogs").catch((e: unknown) => e);
  assert.ok(error instanceof SearchProviderError);
  assert.equal(error.statusCode, 502);
  assert.equal(error.attempts, 3);
  assert.equal(error.lastStatus, 503);
  assert.match(error.message, /fake_search failed after 3 attempt\(s\): HTTP 503/);
  assert.equal(calls.length, 3);
});

test("a 401 is not retried: one attempt, a typed failure", async () => {
  const { base, calls } = await fakeProvider((_req, res) => json(res, 401, { error: "bad key" }));
  const error = await backendFor(base).search("x").catch((e: unknown) => e);
  assert.ok(error instanceof SearchProviderError);
  assert.equal(error.lastStatus, 401);
  assert.equal(calls.length, 1);
});

test("a refused connection is a SearchProviderError, not a thrown transport error", async () => {
  const { base } = await fakeProvider((_req, res) => json(res, 200, {}));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  void base;
  const error = await backendFor(`http://127.0.0.1:${port}`, { maxRetries: 1 }).search("x").catch((e: unknown) => e);
  assert.ok(error instanceof SearchProviderError, String(error));
  assert.equal(error.attempts, 2);
});

test("a repeated query is answered from the memory cache without calling the provider", async () => {
  const { base, calls } = await fakeProvider((_req, res, call) => json(res, 200, { items: [`call ${call}`] }));
  const backend = backendFor(base);
  const first = await backend.search("same");
  first.items.push("mutated by the caller");
  assert.deepEqual(await backend.search("same"), { items: ["call 1"] });
  assert.equal(calls.length, 1);
});

test("concurrent identical queries share one provider call", async () => {
  const { base, calls } = await fakeProvider((_req, res) => json(res, 200, { items: ["one"] }));
  const backend = backendFor(base);
  const [a, b] = await Promise.all([backend.search("q"), backend.search("q")]);
  assert.deepEqual(a, b);
  assert.equal(calls.length, 1);
});

test("with search_cache_path the cache is SQLite and survives a new backend", async () => {
  const { base, calls } = await fakeProvider((_req, res) => json(res, 200, { items: ["stored"] }));
  const cachePath = join(mkdtempSync(join(tmpdir(), "search-cache-")), "cache.sqlite");
  const first = backendFor(base, { cachePath });
  await first.search("persisted");
  await first.close();
  const second = backendFor(base, { cachePath });
  assert.deepEqual(await second.search("persisted"), { items: ["stored"] });
  assert.equal(calls.length, 1);
});

test("a failed call is not cached: the next identical query calls the provider again", async () => {
  const { base, calls } = await fakeProvider((_req, res, call) => (call === 1 ? json(res, 400, {}) : json(res, 200, { items: ["ok"] })));
  const backend = backendFor(base);
  await assert.rejects(backend.search("z"), SearchProviderError);
  assert.deepEqual(await backend.search("z"), { items: ["ok"] });
  assert.equal(calls.length, 2);
});

test("requests_per_second spaces provider calls", async () => {
  const { base, calls } = await fakeProvider((_req, res) => json(res, 200, { items: [] }));
  const backend = backendFor(base, { requestsPerSecond: 10 });
  await Promise.all(["a", "b", "c"].map((q) => backend.search(q)));
  assert.equal(calls.length, 3);
  // 10/s is one call per 100 ms: the third leaves 200 ms after the first (arrival jitter allowed).
  assert.ok(calls[2]!.at - calls[0]!.at >= 150, `calls ${calls[2]!.at - calls[0]!.at} ms apart`);
});

test("a missing API key is a UserError naming the config key", () => {
  for (const value of [undefined, null, "", "???"]) {
    assert.throws(
      () => new ProviderSearchBackend({ provider: "p", apiKey: { configKey: "google_api_key", value }, buildRequest: () => ({ url: "http://127.0.0.1:1/" }), parseResponse: () => null }),
      (error: unknown) => error instanceof UserError && /google_api_key is not set/.test(error.message),
    );
  }
});

test("Retry-After reads delta-seconds and HTTP dates", () => {
  assert.equal(retryAfterMs("2"), 2000);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfterMs("soon"), undefined);
  assert.equal(retryAfterMs(undefined), undefined);
});

test("the fixture backend answers from JSONL by query, key order not mattering", async () => {
  const dir = mkdtempSync(join(tmpdir(), "search-fixture-"));
  const path = join(dir, "fixture.jsonl");
  writeFileSync(path, `${JSON.stringify({ query: "cats", results: { n: 1 } })}\n${JSON.stringify({ query: { op: "extract", url: "u" }, results: [2] })}\n`);
  const backend = new FixtureSearchBackend(path);
  assert.deepEqual(await backend.search("cats"), { n: 1 });
  assert.deepEqual(await backend.search({ url: "u", op: "extract" }), [2]);
});

test("a query missing from the fixture is a SearchFixtureMissError naming the query and the file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "search-fixture-"));
  const path = join(dir, "fixture.jsonl");
  writeFileSync(path, `${JSON.stringify({ query: "cats", results: {} })}\n`);
  const error = await new FixtureSearchBackend(path).search("dogs").catch((e: unknown) => e);
  assert.ok(error instanceof SearchFixtureMissError);
  assert.equal(error.statusCode, 503);
  assert.ok(error.message.includes(path) && error.message.includes('"dogs"'), error.message);
});

test("a config with search_fixture_path needs no API key; a bad setting is a UserError naming it", () => {
  const dir = mkdtempSync(join(tmpdir(), "search-fixture-"));
  writeFileSync(join(dir, "f.jsonl"), "");
  const backend = searchBackendFromConfig({ search_fixture_path: "f.jsonl" }, dir, () => assert.fail("no provider wanted"));
  assert.ok(backend instanceof FixtureSearchBackend);
  assert.throws(() => searchBackendFromConfig({ search_requests_per_second: 0 }, dir, () => assert.fail()), /search_requests_per_second/);
});
