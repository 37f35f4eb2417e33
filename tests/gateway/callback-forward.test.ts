// Forwarding a model callback to Relax (spec §2.3; reference tests 1, 8–19), against real HTTP servers on
// 127.0.0.1 standing in for Relax. Backoff schedules run on a fake clock; HTTP is always real.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import pino from "pino";
import {
  CallbackCancelledError,
  CallbackForwardError,
  createCallbackDispatcher,
  forwardCallback,
  type AttemptInfo,
  type CallbackClock,
  type ForwardOptions,
} from "../../src/gateway/callback/forward.ts";
import type { CallbackTarget, JsonObject } from "../../src/gateway/types.ts";
import { refusedPort } from "../../src/testing/ports.ts";
import { callbackTarget as target } from "./fake-gym.ts";

// ---- a scripted stand-in for Relax ----

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  closed: Promise<void>;
}

type Answer = (seen: Seen, res: ServerResponse, req: IncomingMessage) => void;

const servers: Server[] = [];
const dispatcher = createCallbackDispatcher();
after(async () => {
  await dispatcher.destroy();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function relax(answer: Answer): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
      const record = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), closed };
      seen.push(record);
      answer(record, res, req);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

// ---- fixtures ----


function fakeClock() {
  const clock = {
    t: 0,
    waits: [] as number[],
    now: () => clock.t,
    async sleep(seconds: number) {
      clock.waits.push(seconds);
      clock.t += seconds;
    },
  };
  return clock;
}

function memoryLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, text: () => lines.join("\n"), records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

function forward(overrides: Partial<ForwardOptions> & Pick<ForwardOptions, "target">) {
  const attempts: AttemptInfo[] = [];
  const promise = forwardCallback({
    rolloutId: "rollout-abc-0",
    resource: "responses",
    body: { input: [] },
    callbackTimeoutS: 600,
    dispatcher,
    signal: new AbortController().signal,
    logger: memoryLogger().logger,
    onAttempt: (attempt) => attempts.push(attempt),
    ...overrides,
  });
  return { promise, attempts };
}

const forwardError = (pattern: RegExp, status = 502) => (error: unknown) =>
  error instanceof CallbackForwardError && error.status === status && pattern.test(error.detail);

const chatCompletion = { id: "chat", object: "chat.completion", created: 1, model: "policy-model", choices: [{ index: 0, message: { role: "assistant", content: "ok" } }] };

// ---- tests ----

test("callback_provider_configures_explicit_proxy_without_environment_lookup", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, chatCompletion));
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const proxy = createServer();
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const target = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
    }
  });
  servers.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  // Proxy variables pointing nowhere: a client that read them could not reach anything.
  const dead = `http://127.0.0.1:${await refusedPort()}`;
  const saved = { ...process.env };
  Object.assign(process.env, { HTTP_PROXY: dead, HTTPS_PROXY: dead, http_proxy: dead, https_proxy: dead, NO_PROXY: "", no_proxy: "" });
  const proxied = createCallbackDispatcher({ proxyUrl });
  try {
    const direct = await forward({ target: target(upstream.url), resource: "chat/completions" }).promise;
    assert.equal(direct.status, 200);
    assert.deepEqual(tunnels, []);

    const viaProxy = await forward({ target: target(upstream.url), resource: "chat/completions", dispatcher: proxied }).promise;
    assert.equal(viaProxy.status, 200);
    assert.deepEqual(tunnels, [new URL(upstream.url).host]);
    assert.equal(upstream.seen.length, 2);
  } finally {
    process.env = saved;
    await proxied.destroy();
    for (const socket of sockets) socket.destroy();
  }
});

test("two_callback_capabilities_forward_distinct_endpoints_and_tokens", async () => {
  const one = await relax((_seen, res) => json(res, 200, chatCompletion));
  const two = await relax((_seen, res) => json(res, 200, chatCompletion));
  await Promise.all([
    forward({ target: target(`${one.url}/agentic_api`), resource: "chat/completions", body: { messages: [], model: "ignored" } }).promise,
    forward({ target: target(`${two.url}/agentic_api`, { api_key: "secret-two" }), resource: "chat/completions", body: { messages: [], model: "ignored" } })
      .promise,
  ]);
  assert.deepEqual(
    [...one.seen, ...two.seen].map((seen) => [seen.path, seen.headers.authorization]),
    [
      ["/agentic_api/v1/chat/completions", "Bearer secret-one"],
      ["/agentic_api/v1/chat/completions", "Bearer secret-two"],
    ],
  );
  for (const seen of [...one.seen, ...two.seen]) assert.equal(JSON.parse(seen.body).model, "policy-model");
});

test("callback_supports_custom_api_key_header_and_standard_v1_base_url", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, chatCompletion));
  const custom = target(`${upstream.url}/v1`, {
    api_key_header: "api-key",
    api_key_prefix: "",
    headers: { "x-user": "user@example.com", "x-app-id": "app" },
  });
  await forward({ target: custom, resource: "chat/completions", body: { messages: [] } }).promise;
  const [seen] = upstream.seen;
  assert.equal(seen.path, "/v1/chat/completions");
  assert.equal(seen.headers["api-key"], "secret-one");
  assert.equal(seen.headers["x-user"], "user@example.com");
  assert.equal(seen.headers["x-app-id"], "app");
  assert.equal(seen.headers.authorization, undefined);
});

test("callback_timeout_is_capped_by_gateway_setting", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, chatCompletion));
  const capped = forward({ target: target(upstream.url, { remaining_s: 60 }), callbackTimeoutS: 12, clock: fakeClock() });
  await capped.promise;
  assert.deepEqual(capped.attempts, [{ attempt: 1, atS: 0, readTimeoutS: 12, connectTimeoutS: 12 }]);
  // The trial's own deadline caps it too, and the connect timeout never exceeds 30 s.
  const short = forward({ target: target(upstream.url, { remaining_s: 5 }), callbackTimeoutS: 12, clock: fakeClock() });
  await short.promise;
  assert.deepEqual(short.attempts, [{ attempt: 1, atS: 0, readTimeoutS: 5, connectTimeoutS: 5 }]);
  const long = forward({ target: target(upstream.url, { remaining_s: 900 }), callbackTimeoutS: 600, clock: fakeClock() });
  await long.promise;
  assert.deepEqual(long.attempts, [{ attempt: 1, atS: 0, readTimeoutS: 600, connectTimeoutS: 30 }]);
});

test("callback_retries_keep_tool_history_and_trial_alive", async () => {
  const statuses = [500, 502, 503, 504, 200];
  const upstream = await relax((seen, res) => {
    const status = statuses.shift()!;
    if (status === 500) return json(res, 500, { error: { code: "backend_failed", message: "generation aborted", api_key: "private-key" } });
    // Proxy errors can be HTML or plain text: retried before any JSON decoding.
    if (status !== 200) return void res.writeHead(status, { "content-type": "text/plain" }).end("temporarily unavailable");
    json(res, 200, { id: "resp-resumed", output: [] });
  });
  const clock = fakeClock();
  const log = memoryLogger();
  const history = [
    { role: "user", content: "Create an event, then report the result." },
    { type: "function_call", call_id: "call-1", name: "create_event", arguments: "{}" },
    { type: "function_call_output", call_id: "call-1", output: '{"event_id":"event-1"}' },
  ];
  const payload = { input: history, model: "ignored", tools: [], temperature: 0.7 };
  const original = structuredClone(payload);
  const signal = new AbortController().signal;

  const run = forward({ target: target(upstream.url), body: payload, callbackTimeoutS: 30, clock, logger: log.logger, signal });
  const result = await run.promise;

  assert.equal(result.status, 200);
  assert.equal((result.body as JsonObject).id, "resp-resumed");
  assert.deepEqual(clock.waits, [1, 2, 4, 8]);
  assert.deepEqual(
    run.attempts.map((attempt) => attempt.readTimeoutS),
    [30, 29, 27, 23, 15],
  );
  assert.equal(upstream.seen.length, 5);
  for (const seen of upstream.seen) {
    assert.equal(seen.body, upstream.seen[0].body);
    assert.deepEqual(seen.headers, upstream.seen[0].headers);
  }
  assert.deepEqual(JSON.parse(upstream.seen[0].body), { ...original, model: "policy-model" });
  assert.equal(upstream.seen[0].headers.authorization, "Bearer secret-one");
  assert.deepEqual(payload, original);
  assert.equal(signal.aborted, false);
  const logged = log.text();
  assert.match(logged, /\\"code\\":\\"backend_failed\\"/);
  assert.match(logged, /generation aborted/);
  assert.match(logged, /temporarily unavailable/);
  assert.doesNotMatch(logged, /private-key/);
  assert.doesNotMatch(logged, /secret-one/);
});

test("callback_waits_through_sixty_second_router_outage", async () => {
  const clock = fakeClock();
  const upstream = await relax((_seen, res) => (clock.t < 60 ? json(res, 503, { error: { code: "no_available_workers" } }) : json(res, 200, { output: [] })));
  const run = forward({ target: target(upstream.url, { remaining_s: 120 }), callbackTimeoutS: 90, clock });
  const result = await run.promise;
  assert.equal(result.status, 200);
  assert.deepEqual(
    run.attempts.map((attempt) => attempt.atS),
    [0, 1, 3, 7, 15, 23, 31, 39, 47, 55, 63],
  );
});

const rejections: Array<[number, string]> = [
  ...[400, 401, 403, 404, 409, 422, 429, 499, 501].map((status): [number, string] => [status, "rejected"]),
  [500, "Internal error while rendering agentic response."],
];
for (const [status, message] of rejections) {
  test(`callback_does_not_retry_other_http_errors (${status}${status === 500 ? " rendering" : ""})`, async () => {
    const error = { error: { message, code: "invalid_request", param: "input", api_key: "private-key" } };
    const upstream = await relax((_seen, res) => json(res, status, error));
    const clock = fakeClock();
    const log = memoryLogger();
    const result = await forward({ target: target(upstream.url), clock, logger: log.logger }).promise;

    assert.equal(result.status, status);
    assert.deepEqual(result.body, error);
    assert.equal(upstream.seen.length, 1);
    assert.deepEqual(clock.waits, []);
    const rejected = log.records().find((record) => record.msg === "model callback rejected upstream");
    assert.ok(rejected, log.text());
    assert.equal(rejected.rolloutId, "rollout-abc-0");
    assert.equal(rejected.status, status);
    const summary = String(rejected.error);
    assert.ok(summary.includes(message));
    assert.ok(summary.includes('"code":"invalid_request"'));
    assert.ok(summary.includes('"param":"input"'));
    assert.doesNotMatch(log.text(), /private-key/);
  });
}

for (const [callbackTimeoutS, deadlineS] of [
  [5, 60],
  [60, 5],
]) {
  test(`callback_retries_share_one_deadline (cap ${callbackTimeoutS} s, trial ${deadlineS} s)`, async () => {
    const clock = fakeClock();
    const upstream = await relax((_seen, res) => {
      clock.t += 0.5; // the request itself consumes budget
      res.writeHead(503, { "content-type": "text/plain" }).end("unavailable");
    });
    const run = forward({ target: target(upstream.url, { remaining_s: deadlineS }), callbackTimeoutS, clock });
    await assert.rejects(run.promise, forwardError(/^Upstream model callback deadline exceeded$/));
    const near = (actual: number[], expected: number[]) => assert.ok(actual.length === expected.length && actual.every((value, i) => Math.abs(value - expected[i]) < 1e-9), `${actual}`);
    near(
      run.attempts.map((attempt) => attempt.readTimeoutS),
      [5, 3.5, 1],
    );
    near(clock.waits, [1, 2, 0.5]);
    near([clock.t], [5]);
  });
}

test("callback_does_not_replay_ambiguous_transport_failures (connect error)", async () => {
  const clock = fakeClock();
  const run = forward({ target: target(`http://127.0.0.1:${await refusedPort()}`), clock });
  await assert.rejects(run.promise, forwardError(/^Upstream model callback transport failed$/));
  assert.equal(run.attempts.length, 1);
  assert.deepEqual(clock.waits, []);
});

test("callback_does_not_replay_ambiguous_transport_failures (connection lost while reading)", async () => {
  const upstream = await relax((_seen, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"partial":');
    setImmediate(() => res.socket?.destroy());
  });
  const clock = fakeClock();
  const run = forward({ target: target(upstream.url), clock });
  await assert.rejects(run.promise, forwardError(/^Upstream model callback transport failed$/));
  assert.equal(upstream.seen.length, 1);
  assert.deepEqual(clock.waits, []);
});

test("callback_total_deadline_cancels_a_blocked_response", async () => {
  const upstream = await relax(() => {}); // never answers
  await assert.rejects(forward({ target: target(upstream.url), callbackTimeoutS: 0.2 }).promise, forwardError(/deadline exceeded/));
  await upstream.seen[0].closed; // the hung request was cancelled, not left open
});

test("abort_cancels_callback_backoff_without_retry_or_trial_restart", async () => {
  const upstream = await relax((_seen, res) => res.writeHead(503).end("unavailable"));
  let sleeping!: () => void;
  const enteredSleep = new Promise<void>((resolve) => (sleeping = resolve));
  let sleepCancelled = false;
  const blockingClock: CallbackClock = {
    now: () => 0,
    sleep: (_seconds, signal) =>
      new Promise((_resolve, reject) => {
        sleeping();
        signal.addEventListener("abort", () => ((sleepCancelled = true), reject(signal.reason)), { once: true });
      }),
  };
  const trial = new AbortController();
  const run = forward({ target: target(upstream.url), clock: blockingClock, signal: trial.signal });
  await enteredSleep;
  trial.abort();
  await assert.rejects(run.promise, CallbackCancelledError);
  assert.ok(sleepCancelled);
  assert.equal(upstream.seen.length, 1);
  assert.equal(run.attempts.length, 1);
});

test("one_hundred_concurrent_callbacks_keep_tokens_isolated", async () => {
  const upstream = await relax((seen, res) => json(res, 200, { ...chatCompletion, id: seen.headers.authorization }));
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, index) =>
      forward({ target: target(upstream.url, { api_key: `secret-${index}` }), resource: "chat/completions", body: { messages: [] } }).promise,
    ),
  );
  results.forEach((result, index) => assert.equal((result.body as JsonObject).id, `Bearer secret-${index}`));
  assert.deepEqual(new Set(upstream.seen.map((seen) => seen.headers.authorization)), new Set(Array.from({ length: 100 }, (_, index) => `Bearer secret-${index}`)));
});

test("abort_cancels_an_inflight_relax_callback", async () => {
  let entered!: () => void;
  const upstreamEntered = new Promise<void>((resolve) => (entered = resolve));
  const upstream = await relax(() => entered()); // holds the request open
  const trial = new AbortController();
  const run = forward({ target: target(upstream.url), resource: "chat/completions", signal: trial.signal });
  await upstreamEntered;
  trial.abort();
  await assert.rejects(run.promise, CallbackCancelledError);
  await upstream.seen[0].closed;
  assert.equal(run.attempts.length, 1);
});

test("generation.sampling_params win over the agent's values, and model is forced", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, chatCompletion));
  const body = { messages: [], temperature: 0.7, top_p: 1, model: "agent-model" };
  const generation = { sampling_params: { temperature: 0.3, max_tokens: 64 }, responses_create_params: { ignored: true } };
  await forward({ target: target(upstream.url, { generation }), resource: "chat/completions", body }).promise;
  assert.deepEqual(JSON.parse(upstream.seen[0].body), { messages: [], temperature: 0.3, top_p: 1, max_tokens: 64, model: "policy-model" });
  assert.equal(body.model, "agent-model");
});

test("a streamed request answered with text/event-stream is buffered and returned as SSE", async () => {
  const sse = 'data: {"id":"1","choices":[]}\n\ndata: [DONE]\n\n';
  const upstream = await relax((_seen, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse.slice(0, 10));
    setImmediate(() => res.end(sse.slice(10)));
  });
  const result = await forward({ target: target(upstream.url), resource: "chat/completions", body: { messages: [], stream: true } }).promise;
  assert.deepEqual(result, { status: 200, contentType: "text/event-stream", body: sse });
});

test("an upstream body that is not a JSON object is a 502", async () => {
  const texts = ["<html>oops</html>", "[1,2]"];
  const upstream = await relax((_seen, res) => res.writeHead(200, { "content-type": "application/json" }).end(texts.shift()));
  await assert.rejects(forward({ target: target(upstream.url) }).promise, forwardError(/non-JSON/));
  await assert.rejects(forward({ target: target(upstream.url) }).promise, forwardError(/must be a JSON object/));
  // Without stream:true, SSE is not accepted either.
  const sse = await relax((_seen, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end("data: {}\n\n"));
  await assert.rejects(forward({ target: target(sse.url) }).promise, forwardError(/non-JSON/));
});

test("a callback body that is not a JSON object is a 422, before anything is sent", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, {}));
  for (const body of [[], "text", null, 3]) {
    await assert.rejects(forward({ target: target(upstream.url), body }).promise, forwardError(/JSON object/, 422));
  }
  assert.equal(upstream.seen.length, 0);
});

test("a trial with no time left gets deadline exceeded without a request", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, {}));
  await assert.rejects(forward({ target: target(upstream.url, { remaining_s: 0 }) }).promise, forwardError(/deadline exceeded/));
  assert.equal(upstream.seen.length, 0);
});

test("the verbose log shows payloads with secrets redacted", async () => {
  const upstream = await relax((_seen, res) => json(res, 200, { id: "r", output: [], echo: "Bearer secret-one" }));
  const log = memoryLogger();
  await forward({ target: target(upstream.url), body: { input: [], metadata: { session_id: "secret-one", note: "kept" } }, logger: log.logger, verbose: true }).promise;
  assert.match(log.text(), /kept/);
  assert.doesNotMatch(log.text(), /secret-one/);
});
