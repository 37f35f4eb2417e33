// The thin client against a real HTTP server playing the gateway (spec §3; reference test_client.py, tests 23–35),
// plus the two additions: a gateway token on every request, and long-polled status requests.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTrialRequest } from "../../src/gateway/client/build-request.ts";
import type { ClientConfig } from "../../src/gateway/client/client-config.ts";
import { ClientInputError, GatewayRequestError, TrialCancelled, TrialFailed } from "../../src/gateway/client/errors.ts";
import { GatewayClient } from "../../src/gateway/client/gateway-client.ts";
import { runThinClient } from "../../src/gateway/client/main.ts";
import { runTrial } from "../../src/gateway/client/run-trial.ts";
import { readSessionInput } from "../../src/gateway/client/session-input.ts";
import { PROTOCOL_VERSION, type JsonObject, type TrialRequest, type TrialStatus } from "../../src/gateway/types.ts";

// ---- a gateway that records what it is sent ----

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
  /** Resolves true if the client dropped the connection before the reply was finished. */
  cancelled: Promise<boolean>;
}

type Handler = (seen: Seen, res: ServerResponse) => void | Promise<void>;

interface FakeGateway {
  url: string;
  seen: Seen[];
  paths(): string[];
  /** Resolves with the first request matching `predicate` (already seen or still to come). */
  waitFor(predicate: (seen: Seen) => boolean): Promise<Seen>;
  close(): Promise<void>;
}

const gateways: FakeGateway[] = [];
after(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
});

async function fakeGateway(handler: Handler): Promise<FakeGateway> {
  const seen: Seen[] = [];
  const waiters: { predicate: (s: Seen) => boolean; resolve: (s: Seen) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://gateway");
      const cancelled = new Promise<boolean>((resolve) => res.on("close", () => resolve(!res.writableFinished)));
      const entry: Seen = { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString(), cancelled };
      seen.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(entry)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
      }
      void handler(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const gateway: FakeGateway = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    paths: () => seen.map((s) => s.path),
    waitFor: (predicate) => {
      const found = seen.find(predicate);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  gateways.push(gateway);
  return gateway;
}

function reply(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { ...(body === undefined || typeof body === "string" ? {} : { "content-type": "application/json" }), ...headers });
  res.end(text);
}

function snapshot(requestId: string, status: TrialStatus, overrides: JsonObject = {}): JsonObject {
  return { protocol_version: PROTOCOL_VERSION, request_id: requestId, status, reward: null, metrics: {}, artifact_ref: null, error: null, ...overrides };
}

// ---- the client under test ----

function environ(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    RELAX_SESSION_ID: "session-secret",
    RELAX_SESSION_IO_DIR: "/tmp/relax-agentic-command-one",
    RELAX_BASE_URL: "http://relax.example/agentic_api/",
    RELAX_GROUP_ID: "3",
    RELAX_ROLLOUT_MODE: "train",
    NEMO_GYM_ENVIRONMENT: "multi_step",
    NEMO_GYM_CONFIG: "multi-step-v1",
    NEMO_GYM_DEADLINE_S: "120",
    NEMO_GYM_LEASE_S: "30",
    ...overrides,
  };
}

function config(gatewayUrl: string, overrides: Partial<ClientConfig> = {}): ClientConfig {
  return {
    gatewayUrl,
    startupTimeoutS: 5,
    requestTimeoutS: 5,
    pollIntervalS: 0.01,
    pollWaitS: 0,
    abortTimeoutS: 1,
    retryBackoffS: 0,
    maxRetries: 0,
    gatewayToken: null,
    ...overrides,
  };
}

const emptyRequest = (env: Record<string, string> = {}): TrialRequest => buildTrialRequest({ messages: [], metadata: {} }, environ(env));

async function withClient<T>(gateway: FakeGateway, overrides: Partial<ClientConfig>, body: (client: GatewayClient) => Promise<T>): Promise<T> {
  const client = new GatewayClient(config(gateway.url, overrides));
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

const never = new AbortController().signal;

// ---- tests ----

test("build_request_preserves_session_input_and_uses_request_scoped_callback", () => {
  const sessionInput = { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "call-1" }] }], metadata: { task_id: "one" } };
  const request = buildTrialRequest(sessionInput, environ());
  assert.deepEqual(request.environment.task, sessionInput);
  assert.deepEqual(request.model_endpoint, {
    base_url: "http://relax.example/agentic_api",
    api_key: "session-secret",
    model: "model",
    api_key_header: "Authorization",
    api_key_prefix: "Bearer ",
    headers: {},
  });
  assert.equal(request.session.group_id, "3");
  assert.equal(request.deadline_s, 120);
  assert.equal(request.lease_s, 30);
  assert.deepEqual(request.generation, { responses_create_params: {}, sampling_params: {} });
  assert.deepEqual(request.metadata, { integration: "relax" });
  assert.equal(request.environment.name, "multi_step");
  assert.equal(request.environment.config, "multi-step-v1");
});

test("build_request_uses_distinct_id_for_relaunched_managed_session", () => {
  const sessionInput = { messages: [{ role: "user", content: "solve" }], metadata: { task_id: "one" } };
  const first = buildTrialRequest(sessionInput, environ({ RELAX_SESSION_IO_DIR: "/tmp/relax-agentic-command-one" }));
  const relaunched = buildTrialRequest(sessionInput, environ({ RELAX_SESSION_IO_DIR: "/tmp/relax-agentic-command-two" }));
  assert.notEqual(first.request_id, relaunched.request_id);
  assert.equal(first.request_id, buildTrialRequest(sessionInput, environ()).request_id);
});

test("row metadata routes the trial before NEMO_GYM_ENVIRONMENT, and an untagged row needs it", () => {
  const tagged = buildTrialRequest({ messages: [], metadata: { environment: "workplace_assistant", config: "workplace-assistant-v1" } }, environ());
  assert.deepEqual([tagged.environment.name, tagged.environment.config], ["workplace_assistant", "workplace-assistant-v1"]);
  const envOnly = environ();
  delete envOnly.NEMO_GYM_CONFIG;
  assert.equal(buildTrialRequest({ messages: [], metadata: {} }, envOnly).environment.config, "multi_step");
  delete envOnly.NEMO_GYM_ENVIRONMENT;
  assert.throws(() => buildTrialRequest({ messages: [], metadata: {} }, envOnly), /NEMO_GYM_ENVIRONMENT must be set to a non-empty value/);
});

test("environment variables override the request defaults and bad values name their variable", () => {
  const request = buildTrialRequest(
    { messages: [], metadata: {} },
    environ({
      NEMO_GYM_ATTEMPT: "2",
      NEMO_GYM_MODEL: "policy",
      NEMO_GYM_INTERRUPT_POLICY: "interruptible",
      NEMO_GYM_SAMPLING_PARAMS: '{"temperature":0.5}',
      NEMO_GYM_RESPONSES_CREATE_PARAMS: '{"max_output_tokens":64}',
    }),
  );
  assert.equal(request.session.attempt, 2);
  assert.equal(request.model_endpoint.model, "policy");
  assert.equal(request.interrupt_policy, "interruptible");
  assert.deepEqual(request.generation, { responses_create_params: { max_output_tokens: 64 }, sampling_params: { temperature: 0.5 } });
  assert.equal(buildTrialRequest({ messages: [], metadata: {} }, environ({ OPENAI_MODEL: "openai-name" })).model_endpoint.model, "openai-name");
  for (const [name, value] of [
    ["NEMO_GYM_ATTEMPT", "0"],
    ["NEMO_GYM_ATTEMPT", "1.5"],
    ["NEMO_GYM_LEASE_S", "-1"],
    ["NEMO_GYM_DEADLINE_S", "soon"],
    ["NEMO_GYM_SAMPLING_PARAMS", "[1]"],
    ["NEMO_GYM_SAMPLING_PARAMS", "{bad"],
  ]) {
    assert.throws(() => buildTrialRequest({ messages: [], metadata: {} }, environ({ [name]: value })), (error: unknown) => error instanceof ClientInputError && error.message.startsWith(name), `${name}=${value}`);
  }
});

test("read_session_input_defaults_metadata_without_changing_messages", async () => {
  const dir = mkdtempSync(join(tmpdir(), "relax-input-"));
  const path = join(dir, "input.json");
  const messages = [{ role: "user", content: [{ type: "text", text: "hello" }] }];
  writeFileSync(path, JSON.stringify({ messages }));
  assert.deepEqual(await readSessionInput(path), { messages, metadata: {} });
  rmSync(dir, { recursive: true });
});

for (const payload of [[], {}, { messages: "not-a-list" }, { messages: [], metadata: [] }]) {
  test(`read_session_input_rejects_invalid_shape[${JSON.stringify(payload)}]`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "relax-input-"));
    const path = join(dir, "input.json");
    writeFileSync(path, JSON.stringify(payload));
    await assert.rejects(readSessionInput(path), ClientInputError);
    rmSync(dir, { recursive: true });
  });
}

test("completed_create_uses_single_versioned_endpoint", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((_, res) => reply(res, 202, snapshot(request.request_id, "completed", { reward: 1.0 })));
  const result = await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 0.01 }));
  assert.equal(result.status, "completed");
  assert.equal(gateway.seen.length, 1);
  assert.equal(gateway.seen[0]!.method, "POST");
  assert.equal(gateway.seen[0]!.path, "/v1/trials");
  assert.equal(JSON.parse(gateway.seen[0]!.body).protocol_version, PROTOCOL_VERSION);
});

test("client_exits_with_failure_without_exporting_unscored_deadline", async () => {
  const gateway = await fakeGateway((seen, res) => {
    const requestId = JSON.parse(seen.body).request_id as string;
    reply(res, 202, snapshot(requestId, "truncated", { error: { code: "deadline_exceeded", message: "token=session-secret" } }));
  });
  const dir = mkdtempSync(join(tmpdir(), "relax-session-"));
  const inputPath = join(dir, "input.json");
  const outputPath = join(dir, "output.json");
  writeFileSync(inputPath, JSON.stringify({ messages: [], metadata: {} }));
  const lines: string[] = [];

  const exitCode = await runThinClient(environ({ NEMO_GYM_URL: gateway.url, RELAX_INPUT_JSON: inputPath, RELAX_OUTPUT_JSON: outputPath }), {
    handleSignals: false,
    log: (line) => lines.push(line),
  });

  assert.equal(exitCode, 1);
  const printed = lines.join("\n");
  assert.match(printed, /NeMo Gym thin client failed: NeMo Gym trial has no reward/);
  assert.match(printed, /deadline_exceeded/);
  assert.doesNotMatch(printed, /session-secret/);
  assert.equal(existsSync(outputPath), false);
  rmSync(dir, { recursive: true });
});

test("running_trial_is_polled_to_completion", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => reply(res, seen.method === "POST" ? 202 : 200, snapshot(request.request_id, seen.method === "POST" ? "running" : "completed")));
  const result = await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 0.01 }));
  assert.equal(result.status, "completed");
  assert.deepEqual(gateway.paths(), ["/v1/trials", `/v1/trials/${request.request_id}`]);
});

test("renew_and_abort_do_not_send_json_bodies_and_abort_is_not_retried", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => reply(res, seen.path.endsWith("/abort") ? 500 : 204));
  await withClient(gateway, { maxRetries: 5 }, async (client) => {
    await client.renew(request.request_id);
    await assert.rejects(client.abort(request.request_id), GatewayRequestError);
  });
  assert.deepEqual(gateway.paths(), [`/v1/trials/${request.request_id}/renew`, `/v1/trials/${request.request_id}/abort`]);
  for (const seen of gateway.seen) {
    assert.equal(seen.body, "");
    assert.equal(seen.headers["content-type"], undefined);
  }
});

test("stop_event_aborts_running_trial", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => (seen.path.endsWith("/abort") ? reply(res, 204) : reply(res, 202, snapshot(request.request_id, "running"))));
  const stop = new AbortController();
  void gateway.waitFor((seen) => seen.path === "/v1/trials").then(() => stop.abort());
  await withClient(gateway, {}, async (client) => {
    await assert.rejects(runTrial({ client, request, stop: stop.signal, pollIntervalS: 10 }), TrialCancelled);
  });
  assert.equal(gateway.paths().at(-1), `/v1/trials/${request.request_id}/abort`);
});

test("stop_event_cancels_inflight_status_request_before_abort", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => {
    if (seen.method === "POST" && seen.path === "/v1/trials") return reply(res, 202, snapshot(request.request_id, "running"));
    if (seen.method === "GET") return; // a long-poll that never answers
    if (seen.path.endsWith("/abort")) return reply(res, 202, snapshot(request.request_id, "running"));
    reply(res, 500, `unexpected ${seen.method} ${seen.path}`);
  });
  const stop = new AbortController();
  await withClient(gateway, { pollWaitS: 20 }, async (client) => {
    const run = runTrial({ client, request, stop: stop.signal, pollIntervalS: 0.01, pollWaitS: 20 });
    const status = await gateway.waitFor((seen) => seen.method === "GET");
    stop.abort();
    await assert.rejects(run, TrialCancelled);
    assert.equal(await status.cancelled, true);
    assert.equal(status.query.get("wait"), "10"); // min(NEMO_GYM_POLL_WAIT_S 20, lease 30 / 3)
  });
  assert.equal(gateway.paths().at(-1), `/v1/trials/${request.request_id}/abort`);
});

test("stop during an in-flight create cancels it and still requests an abort", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/abort")) reply(res, 404, { detail: "trial not found" });
  });
  const stop = new AbortController();
  await withClient(gateway, {}, async (client) => {
    const run = runTrial({ client, request, stop: stop.signal, pollIntervalS: 0.01 });
    const create = await gateway.waitFor((seen) => seen.path === "/v1/trials");
    stop.abort();
    await assert.rejects(run, TrialCancelled);
    assert.equal(await create.cancelled, true);
  });
  assert.deepEqual(gateway.paths(), ["/v1/trials", `/v1/trials/${request.request_id}/abort`]);
});

test("gateway_error_does_not_include_response_body_or_token", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((_, res) => reply(res, 500, `leaked token: ${request.model_endpoint.api_key}`));
  const error = await withClient(gateway, {}, (client) => client.create(request).then(() => assert.fail("create succeeded"), (e: unknown) => e));
  assert.ok(error instanceof GatewayRequestError);
  assert.doesNotMatch(error.message, /session-secret/);
  assert.doesNotMatch(error.message, /leaked token/);
  assert.match(error.message, /create.*HTTP 500/);
});

test("idempotent_create_retries_transport_error_with_same_request_id", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => {
    if (gateway.seen.length === 1) return void res.socket?.destroy();
    reply(res, 202, snapshot(request.request_id, "completed"));
  });
  const result = await withClient(gateway, { maxRetries: 1 }, (client) => client.create(request));
  assert.equal(result.status, "completed");
  const bodies = gateway.seen.map((seen) => seen.body);
  assert.equal(bodies.length, 2);
  assert.equal(bodies[0], bodies[1]);
  assert.deepEqual(bodies.map((body) => JSON.parse(body).request_id), [request.request_id, request.request_id]);
});

test("non_json_gateway_response_is_rejected", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((_, res) => reply(res, 200, "not-json"));
  await withClient(gateway, {}, async (client) => {
    await assert.rejects(client.create(request), (error: unknown) => error instanceof GatewayRequestError && /non-JSON/.test(error.message));
  });
});

test("408, 429 and 5xx are retried up to NEMO_GYM_MAX_RETRIES; other 4xx fail at once", async () => {
  const request = emptyRequest();
  for (const status of [408, 429, 500, 503]) {
    const gateway = await fakeGateway((_, res) => reply(res, status, { detail: "busy" }));
    await withClient(gateway, { maxRetries: 2, retryBackoffS: 0.001 }, async (client) => {
      await assert.rejects(client.get(request.request_id), (error: unknown) => error instanceof GatewayRequestError && error.status === status && /after retries/.test(error.message));
    });
    assert.equal(gateway.seen.length, 3, `HTTP ${status}`);
  }
  for (const status of [400, 404, 409, 422]) {
    const gateway = await fakeGateway((_, res) => reply(res, status, { detail: "no" }));
    await withClient(gateway, { maxRetries: 2, retryBackoffS: 0.001 }, async (client) => {
      await assert.rejects(client.get(request.request_id), (error: unknown) => error instanceof GatewayRequestError && error.status === status);
    });
    assert.equal(gateway.seen.length, 1, `HTTP ${status}`);
  }
});

test("a retryable status followed by success returns the snapshot", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((_, res) => (gateway.seen.length < 3 ? reply(res, 503) : reply(res, 200, snapshot(request.request_id, "running"))));
  const poll = await withClient(gateway, { maxRetries: 2, retryBackoffS: 0.001 }, (client) => client.get(request.request_id));
  assert.equal(poll.snapshot.status, "running");
  assert.equal(gateway.seen.length, 3);
});

test("the heartbeat renews the lease while the trial runs", async () => {
  const request = emptyRequest({ NEMO_GYM_LEASE_S: "0.3" });
  const renews = () => gateway.seen.filter((seen) => seen.path.endsWith("/renew")).length;
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/renew")) return reply(res, 204);
    reply(res, 202, snapshot(request.request_id, seen.method === "GET" && renews() >= 2 ? "completed" : "running", { reward: 1 }));
  });
  const result = await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 0.02 }));
  assert.equal(result.status, "completed");
  for (const renew of gateway.seen.filter((seen) => seen.path.endsWith("/renew"))) {
    assert.equal(renew.method, "POST");
    assert.equal(renew.body, "");
  }
});

test("a heartbeat that fails after its retries aborts the trial and surfaces the renew error", async () => {
  const request = emptyRequest({ NEMO_GYM_LEASE_S: "0.3" });
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/renew")) return reply(res, 404, { detail: "trial not found" });
    if (seen.path.endsWith("/abort")) return reply(res, 404, { detail: "trial not found" });
    reply(res, 202, snapshot(request.request_id, "running"));
  });
  await withClient(gateway, {}, async (client) => {
    await assert.rejects(runTrial({ client, request, stop: never, pollIntervalS: 0.02 }), (error: unknown) => error instanceof GatewayRequestError && error.operation === "renew" && error.status === 404);
  });
  assert.equal(gateway.paths().at(-1), `/v1/trials/${request.request_id}/abort`);
});

test("an aborted trial is a cancellation and a failed trial names its error code", async () => {
  const request = emptyRequest();
  for (const [status, expected] of [
    ["aborted", (e: unknown) => e instanceof TrialCancelled && /Remote trial was aborted/.test(e.message)],
    ["failed", (e: unknown) => e instanceof TrialFailed && /'cleanup_unverified'/.test(e.message)],
  ] as const) {
    const gateway = await fakeGateway((seen, res) =>
      reply(res, 200, snapshot(request.request_id, seen.method === "POST" ? "running" : status, { error: { code: status === "failed" ? "cleanup_unverified" : "aborted", type: "CleanupError" } })),
    );
    await withClient(gateway, {}, async (client) => {
      await assert.rejects(runTrial({ client, request, stop: never, pollIntervalS: 0.01 }), expected);
    });
  }
});

test("NEMO_GYM_GATEWAY_TOKEN is sent as a bearer token on every trial-API request", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/renew") || seen.path.endsWith("/abort")) return reply(res, 204);
    reply(res, 200, snapshot(request.request_id, seen.method === "POST" ? "running" : "completed", { reward: 1 }));
  });
  await withClient(gateway, { gatewayToken: "gw-token" }, async (client) => {
    await runTrial({ client, request, stop: never, pollIntervalS: 0.01 });
    await client.renew(request.request_id);
    await client.abort(request.request_id);
  });
  assert.deepEqual(
    gateway.seen.map((seen) => seen.headers.authorization),
    gateway.seen.map(() => "Bearer gw-token"),
  );
  assert.ok(gateway.seen.length >= 4);
});

test("without a gateway token no Authorization header is sent", async () => {
  const request = emptyRequest();
  const gateway = await fakeGateway((_, res) => reply(res, 200, snapshot(request.request_id, "completed", { reward: 1 })));
  await withClient(gateway, {}, (client) => client.create(request));
  assert.equal(gateway.seen[0]!.headers.authorization, undefined);
});

test("a gateway that honours long-poll is polled again at once", { timeout: 10_000 }, async () => {
  const request = emptyRequest({ NEMO_GYM_LEASE_S: "60" });
  const gets = () => gateway.seen.filter((seen) => seen.method === "GET").length;
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/renew")) return reply(res, 204);
    if (seen.method === "POST") return reply(res, 202, snapshot(request.request_id, "running"));
    const status = gets() >= 3 ? "completed" : "running";
    reply(res, 200, snapshot(request.request_id, status, { reward: 1 }), { "x-ng-long-poll": "1" });
  });
  // A pause between polls would outlast the test's timeout: only an immediate re-poll completes in time.
  const result = await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 600, pollWaitS: 5 }));
  assert.equal(result.status, "completed");
  const waits = gateway.seen.filter((seen) => seen.method === "GET").map((seen) => seen.query.get("wait"));
  assert.deepEqual(waits, ["5", "5", "5"]);
});

test("the long-poll wait is capped at a third of the lease and left out when turned off", async () => {
  const request = emptyRequest({ NEMO_GYM_LEASE_S: "0.3" });
  const gateway = await fakeGateway((seen, res) => {
    if (seen.path.endsWith("/renew")) return reply(res, 204);
    reply(res, 200, snapshot(request.request_id, seen.method === "POST" ? "running" : "completed", { reward: 1 }));
  });
  await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 0.01, pollWaitS: 20 }));
  await withClient(gateway, {}, (client) => runTrial({ client, request, stop: never, pollIntervalS: 0.01, pollWaitS: 0 }));
  const [longPoll, plain] = gateway.seen.filter((seen) => seen.method === "GET");
  assert.equal(longPoll!.query.get("wait"), "0.1");
  assert.equal(plain!.query.has("wait"), false);
});
