// The callback bridge over real HTTP (spec §2.1, §2.3 steps 1, 8–11): agent → fastify on 127.0.0.1 → a scripted
// Relax on 127.0.0.1. Covers 410/400/422, pass-through, the Responses fix-ups and the Messages SSE framing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";
import { Agent, request as undiciRequest } from "undici";
import { registerCallbackBridge, type CallbackCapabilities, type CallbackLease } from "../../src/gateway/callback/routes.ts";
import type { CallbackClock } from "../../src/gateway/callback/forward.ts";
import { callbackTarget } from "./fake-gym.ts";
import type { CallbackTarget } from "../../src/gateway/types.ts";
import { refusedPort } from "../../src/testing/ports.ts";

// ---- Relax stand-in: each test scripts the next answer ----

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  closed: Promise<void>;
}
type Answer = (seen: Seen, res: ServerResponse) => void;

let relaxServer: Server;
let relaxUrl: string;
let answer: Answer = (_seen, res) => res.writeHead(500).end();
const seen: Seen[] = [];

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

// ---- capabilities the trial service would hand out ----

class Capabilities implements CallbackCapabilities {
  readonly trials = new Map<string, { target: CallbackTarget; cancel: AbortController }>();
  acquired = 0;
  released = 0;

  add(rolloutId: string, overrides: Partial<CallbackTarget> = {}): AbortController {
    const cancel = new AbortController();
    const target = callbackTarget(`${relaxUrl}/agentic_api`, overrides);
    this.trials.set(rolloutId, { target, cancel });
    return cancel;
  }

  async acquire(rolloutId: string): Promise<CallbackLease | null> {
    const trial = this.trials.get(rolloutId);
    if (!trial || trial.cancel.signal.aborted) return null;
    this.acquired++;
    return { target: trial.target, signal: trial.cancel.signal, release: () => void this.released++ };
  }
}

// Backoff sleeps block until the test releases them (or the trial is cancelled).
const pendingSleeps: Array<() => void> = [];
let onSleep: () => void = () => {};
const clock: CallbackClock = {
  now: () => 0,
  sleep: (_seconds, signal) =>
    new Promise((resolve, reject) => {
      pendingSleeps.push(resolve);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      onSleep();
    }),
};

// The agents' side: its own client, destroyed first so no idle socket keeps the gateway from closing.
const agentClient = new Agent();
const request = (url: string, options: Omit<Parameters<typeof undiciRequest>[1] & object, "dispatcher">) => undiciRequest(url, { ...options, dispatcher: agentClient });

const capabilities = new Capabilities();
let app: FastifyInstance;
let gatewayUrl: string;

before(async () => {
  relaxServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
      const record = { path: req.url ?? "", headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")), closed };
      seen.push(record);
      answer(record, res);
    });
  });
  await new Promise<void>((resolve) => relaxServer.listen(0, "127.0.0.1", resolve));
  relaxUrl = `http://127.0.0.1:${(relaxServer.address() as AddressInfo).port}`;

  app = Fastify();
  const logger = pino({ level: "silent" });
  registerCallbackBridge(app, capabilities, { settings: { callbackTimeoutS: 600, callbackProxy: null, verbose: false }, logger, clock, pingIntervalMs: 20 });
  app.post("/elsewhere", async (req) => ({ got: req.body }));
  gatewayUrl = await app.listen({ host: "127.0.0.1", port: 0 });
});

after(async () => {
  await agentClient.destroy();
  await app.close();
  relaxServer.closeAllConnections();
  await new Promise((resolve) => relaxServer.close(resolve));
});

async function post(path: string, body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await request(`${gatewayUrl}${path}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

// ---- tests ----

test("an unknown or revoked rollout id gets 410 and Relax is not called", async () => {
  const before = seen.length;
  const unknown = await post("/ng-rollout/nope-0/v1/chat/completions", { messages: [] });
  assert.equal(unknown.status, 410);
  assert.deepEqual(unknown.json(), { detail: "callback capability is unavailable" });
  assert.match(String(unknown.headers["content-type"]), /^application\/json/);
  capabilities.add("revoked-0").abort();
  assert.equal((await post("/ng-rollout/revoked-0/v1/responses", { input: [] })).status, 410);
  assert.equal(seen.length, before);
});

test("invalid JSON is a 400 and a body that is not an object is a 422", async () => {
  capabilities.add("body-0");
  const released = capabilities.released;
  const invalid = await post("/ng-rollout/body-0/v1/responses", "{not json");
  assert.equal(invalid.status, 400);
  assert.deepEqual(invalid.json(), { detail: "request body must be valid JSON" });
  assert.equal((await post("/ng-rollout/body-0/v1/responses", "", {})).status, 400);
  for (const body of ["[]", '"text"', "null", "3"]) {
    const rejected = await post("/ng-rollout/body-0/v1/responses", body);
    assert.equal(rejected.status, 422, body);
    assert.deepEqual(rejected.json(), { detail: "Callback body must be a JSON object" });
  }
  // No capability was taken for a bad body.
  assert.equal(capabilities.released, released);
});

test("Python's JSON is read (NaN, Infinity) and nesting past the limit is a 413 naming where, before any capability is taken", async () => {
  capabilities.add("python-json-0");
  answer = (_seen, res) => json(res, 200, { id: "chat", choices: [] });
  const accepted = await post("/ng-rollout/python-json-0/v1/chat/completions", '{"messages": [], "temperature": NaN, "top_p": Infinity}');
  assert.equal(accepted.status, 200, accepted.text);
  const released = capabilities.released;
  const deep = await post("/ng-rollout/python-json-0/v1/chat/completions", `{"messages": [], "metadata": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`);
  assert.equal(deep.status, 413, deep.text);
  assert.match(deep.text, /nests deeper than 1000 levels at body\.metadata/);
  assert.equal(capabilities.released, released);
});

test("the bridge's body parsing stays inside its own routes", async () => {
  const other = await post("/elsewhere", { a: 1 });
  assert.equal(other.status, 200);
  assert.deepEqual(other.json(), { got: { a: 1 } });
  assert.equal((await post("/elsewhere", "{not json")).status, 400);
});

test("a JSON body sent with another content-type is still accepted, as by the reference", async () => {
  capabilities.add("lenient-0");
  answer = (_seen, res) => json(res, 200, { id: "chat", choices: [] });
  const response = await post("/ng-rollout/lenient-0/v1/chat/completions", { messages: [] }, { "content-type": "text/plain" });
  assert.equal(response.status, 200);
});

test("upstream status and JSON body are passed through, and the lease is released every time", async () => {
  capabilities.add("pass-0");
  const acquired = capabilities.acquired;
  const released = capabilities.released;
  const error = { error: { message: "rejected", code: "invalid_request" } };
  answer = (_seen, res) => json(res, 429, error);
  const response = await post("/ng-rollout/pass-0/v1/chat/completions", { messages: [], model: "agent" });
  assert.equal(response.status, 429);
  assert.deepEqual(response.json(), error);
  assert.match(String(response.headers["content-type"]), /^application\/json/);
  const last = seen.at(-1)!;
  assert.equal(last.path, "/agentic_api/v1/chat/completions");
  assert.equal(last.headers.authorization, "Bearer secret-one");
  assert.equal(last.body.model, "policy-model");
  assert.equal(capabilities.acquired - acquired, 1);
  assert.equal(capabilities.released - released, 1);
});

test("a transport failure is a 502 with the Gateway's detail", async () => {
  capabilities.add("down-0", { base_url: `http://127.0.0.1:${await refusedPort()}` });
  const released = capabilities.released;
  const response = await post("/ng-rollout/down-0/v1/responses", { input: [] });
  assert.equal(response.status, 502);
  assert.deepEqual(response.json(), { detail: "Upstream model callback transport failed" });
  assert.equal(capabilities.released - released, 1);
});

test("Responses fix-ups: reasoning summaries, tool defaults from the request, usage details", async () => {
  capabilities.add("fixups-0");
  answer = (_seen, res) =>
    json(res, 200, {
      id: "resp",
      output: [
        { type: "reasoning", id: "rs", summary: [], content: [{ type: "reasoning_text", text: "think" }, { type: "other", text: "x" }, { type: "reasoning_text", text: "more" }] },
        { type: "reasoning", id: "rs2", summary: [{ type: "summary_text", text: "kept" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "hi" }] },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    });
  const tools = [{ type: "function", name: "f", parameters: { type: "object" } }];
  const body = (await post("/ng-rollout/fixups-0/v1/responses", { input: [], tools, tool_choice: "required" })).json();
  const output = body.output as Array<Record<string, unknown>>;
  assert.deepEqual(output[0].summary, [
    { type: "summary_text", text: "think" },
    { type: "summary_text", text: "more" },
  ]);
  assert.deepEqual(output[1].summary, [{ type: "summary_text", text: "kept" }]);
  assert.equal(body.parallel_tool_calls, true);
  assert.equal(body.tool_choice, "required");
  assert.deepEqual(body.tools, tools);
  assert.deepEqual(body.usage, { input_tokens: 3, output_tokens: 2, total_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });

  // Values Relax did send are kept; without request values the defaults are auto and [].
  answer = (_seen, res) => json(res, 200, { id: "resp", output: [], parallel_tool_calls: false, usage: { output_tokens_details: { reasoning_tokens: 7 } } });
  const second = (await post("/ng-rollout/fixups-0/v1/responses", { input: [], parallel_tool_calls: true })).json();
  assert.equal(second.parallel_tool_calls, false);
  assert.equal(second.tool_choice, "auto");
  assert.deepEqual(second.tools, []);
  assert.deepEqual(second.usage, { output_tokens_details: { reasoning_tokens: 7 }, input_tokens_details: { cached_tokens: 0 } });

  // Error bodies and other resources are left alone.
  answer = (_seen, res) => json(res, 400, { error: { message: "bad" } });
  assert.deepEqual((await post("/ng-rollout/fixups-0/v1/responses", { input: [] })).json(), { error: { message: "bad" } });
  answer = (_seen, res) => json(res, 200, { id: "chat", choices: [] });
  assert.deepEqual((await post("/ng-rollout/fixups-0/v1/chat/completions", { messages: [] })).json(), { id: "chat", choices: [] });
});

test("a streamed chat completion comes back as buffered SSE", async () => {
  capabilities.add("sse-0");
  const sse = 'data: {"id":"c","choices":[]}\n\ndata: [DONE]\n\n';
  answer = (_seen, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(sse);
  const response = await post("/ng-rollout/sse-0/v1/chat/completions", { messages: [], stream: true });
  assert.equal(response.status, 200);
  assert.match(String(response.headers["content-type"]), /^text\/event-stream/);
  assert.equal(response.headers["cache-control"], "no-cache");
  assert.equal(response.text, sse);
});

/** Opens a streamed Messages call and returns the SSE text as it arrives. */
async function openMessagesStream(rolloutId: string) {
  const response = await request(`${gatewayUrl}/ng-rollout/${rolloutId}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "claude", messages: [], stream: true }),
  });
  let text = "";
  const waiters: Array<() => void> = [];
  response.body.setEncoding("utf8");
  response.body.on("data", (chunk: string) => {
    text += chunk;
    waiters.splice(0).forEach((wake) => wake());
  });
  const ended = new Promise<void>((resolve) => response.body.on("end", () => resolve()));
  const until = async (condition: (text: string) => boolean) => {
    while (!condition(text)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { response, text: () => text, until, ended };
}

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';

test("streamed Messages: pings at once and while Relax works, then Relax's SSE verbatim", async () => {
  capabilities.add("messages-0");
  let release!: () => void;
  const upstreamSse = 'event: message_start\ndata: {"type":"message_start"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
  answer = (_seen, res) => {
    release = () => res.writeHead(200, { "content-type": "text/event-stream" }).end(upstreamSse);
  };
  const stream = await openMessagesStream("messages-0");
  assert.equal(stream.response.statusCode, 200);
  assert.match(String(stream.response.headers["content-type"]), /^text\/event-stream/);
  assert.equal(stream.response.headers["cache-control"], "no-cache");
  assert.equal(stream.response.headers["x-accel-buffering"], "no");

  await stream.until((text) => text.split(PING).length - 1 >= 3); // the first ping, then periodic ones
  release();
  await stream.ended;
  const text = stream.text();
  assert.ok(text.startsWith(PING));
  assert.ok(text.endsWith(upstreamSse));
  assert.equal(text.slice(0, -upstreamSse.length).replaceAll(PING, ""), "");
  assert.equal(seen.at(-1)!.path, "/agentic_api/v1/messages");
});

test("streamed Messages: failures become one Messages-shaped error event", async () => {
  const errorEvent = (message: string) => `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message } })}\n\n`;
  const events = async (rolloutId: string) => {
    const stream = await openMessagesStream(rolloutId);
    await stream.ended;
    assert.equal(stream.response.statusCode, 200);
    return stream.text().replaceAll(PING, "");
  };

  capabilities.add("messages-down-0", { base_url: `http://127.0.0.1:${await refusedPort()}` });
  assert.equal(await events("messages-down-0"), errorEvent("Upstream model callback transport failed"));

  capabilities.add("messages-err-0");
  const anthropicError = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  answer = (_seen, res) => json(res, 529, anthropicError);
  assert.equal(await events("messages-err-0"), `event: error\ndata: ${JSON.stringify(anthropicError)}\n\n`);

  answer = (_seen, res) => json(res, 400, { detail: "nope" });
  assert.equal(await events("messages-err-0"), errorEvent("Upstream model callback failed"));

  answer = (_seen, res) => json(res, 200, { id: "msg", content: [] });
  assert.equal(await events("messages-err-0"), errorEvent("Upstream model callback returned a non-SSE response"));
});

test("streamed Messages for an unknown rollout id is a plain 410", async () => {
  const response = await post("/ng-rollout/missing-0/v1/messages", { messages: [], stream: true });
  assert.equal(response.status, 410);
  assert.deepEqual(response.json(), { detail: "callback capability is unavailable" });
});

test("Messages without stream is forwarded as JSON", async () => {
  capabilities.add("messages-json-0");
  answer = (_seen, res) => json(res, 200, { id: "msg", type: "message", content: [] });
  const response = await post("/ng-rollout/messages-json-0/v1/messages", { messages: [] });
  assert.equal(response.status, 200);
  assert.deepEqual(response.json(), { id: "msg", type: "message", content: [] });
});

test("abort_cancels_callback_backoff_without_retry_or_trial_restart (over HTTP: 410 now and later)", async () => {
  const cancel = capabilities.add("backoff-0");
  answer = (_seen, res) => res.writeHead(503).end("unavailable");
  const before = seen.length;
  const released = capabilities.released;
  const sleeping = new Promise<void>((resolve) => (onSleep = resolve));
  const pending = post("/ng-rollout/backoff-0/v1/responses", { input: [] });
  await sleeping;
  cancel.abort();
  const cancelled = await pending;
  assert.equal(cancelled.status, 410);
  assert.deepEqual(cancelled.json(), { detail: "callback capability is unavailable" });
  assert.equal((await post("/ng-rollout/backoff-0/v1/responses", { input: [] })).status, 410);
  assert.equal(seen.length - before, 1);
  assert.equal(capabilities.released - released, 1);
  pendingSleeps.length = 0;
});

test("an agent that hangs up cancels its upstream call", async () => {
  capabilities.add("hangup-0");
  let entered!: () => void;
  const upstreamEntered = new Promise<void>((resolve) => (entered = resolve));
  answer = () => entered();
  const released = capabilities.released;
  const agent = new AbortController();
  const pending = request(`${gatewayUrl}/ng-rollout/hangup-0/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [] }),
    signal: agent.signal,
  }).catch((error: unknown) => error);
  await upstreamEntered;
  agent.abort();
  await pending;
  await seen.at(-1)!.closed;
  while (capabilities.released === released) await new Promise((resolve) => setImmediate(resolve));
});
