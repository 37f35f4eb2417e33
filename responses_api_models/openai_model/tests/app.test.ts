// openai_model against a real upstream (fastify on loopback) that records every request it gets and answers
// as each test tells it to.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { http, type InProcessGraph, refusedPort, startServers } from "../../../src/testing/index.ts";
import openaiModel from "../app.ts";

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}
type Handler = (request: FastifyRequest, reply: FastifyReply, attempt: number) => unknown;

const received: Received[] = [];
let handler: Handler;
let inFlight = 0;
let maxInFlight = 0;
let upstream: FastifyInstance;
let closedPort: number;
let graph: InProcessGraph;
const client = http();

const upstreamResponse = (text = "hello", extra: Record<string, unknown> = {}) => ({
  id: "resp_up",
  created_at: 1_700_000_000,
  model: "gpt-test-2025",
  object: "response",
  output: [{ id: "msg_up", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 4 },
  ...extra,
});
const chatCompletion = { id: "chatcmpl_up", object: "chat.completion", created: 1_700_000_000, model: "gpt-test-2025", choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: "hi" } }] };
const defaultHandler: Handler = (request) => (request.url.endsWith("/chat/completions") ? chatCompletion : upstreamResponse());

const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "thinking" }] };
const userMessage = { role: "user", content: "hi" };

before(async () => {
  upstream = Fastify();
  upstream.post("/v1/*", async (request, reply) => {
    received.push({ path: request.url, headers: request.headers, body: request.body });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await handler(request, reply, received.length);
    } finally {
      inFlight--;
    }
  });
  await upstream.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(upstream.server.address() as { port: number }).port}/v1`;
  closedPort = await refusedPort();

  const common = { openai_base_url: base, openai_api_key: "sk-test", openai_model: "gpt-test" };
  graph = await startServers({
    policy: [
      openaiModel,
      { ...common, extra_body: { temperature: 0.5, top_k: 20, metadata: { source: "extra_body" } }, openai_default_headers: { "x-team": "gym" }, drop_input_reasoning_items: true, max_retries: 2 },
    ],
    keep_reasoning: [openaiModel, { ...common, drop_input_reasoning_items: "false" }],
    env_true: [openaiModel, { ...common, drop_input_reasoning_items: "true" }],
    gated: [openaiModel, { ...common, max_concurrent_requests: 2 }],
    unreachable: [openaiModel, { ...common, openai_base_url: `http://127.0.0.1:${closedPort}/v1` }],
    impatient: [openaiModel, { ...common, request_timeout_s: 0.2 }],
  });
});
after(async () => {
  await graph.close();
  await upstream.close();
  await client.close();
});
beforeEach(async () => {
  // A request a previous test gave up on (timeout) may still be running upstream: let it finish first.
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  received.length = 0;
  handler = defaultHandler;
  maxInFlight = 0;
});

const post = (instance: string, path: string, body: unknown) => client.request(`${graph.url(instance)}${path}`, { method: "POST", json: body });
const responses = (instance: string, body: unknown) => post(instance, "/v1/responses", body);

test("/v1/responses is passed through: extra_body under the request, model forced, the upstream answer returned", async () => {
  handler = () => upstreamResponse("from upstream", { extra_upstream_field: { kept: true } });
  const request = { input: [userMessage], model: "whatever-the-caller-says", temperature: 0.9, tools: [], parallel_tool_calls: false };
  const answer = await responses("policy", request);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(received.length, 1);
  assert.equal(received[0]!.path, "/v1/responses");
  assert.deepEqual(received[0]!.body, { top_k: 20, metadata: { source: "extra_body" }, input: [userMessage], model: "gpt-test", temperature: 0.9, tools: [], parallel_tool_calls: false });
  const body = answer.json<any>();
  assert.equal(body.model, "gpt-test-2025");
  assert.equal(body.output[0].content[0].text, "from upstream");
  assert.deepEqual(body.extra_upstream_field, { kept: true }, "unknown upstream fields survive, as openai's Response keeps them");
});

test("/v1/chat/completions is passed through the same way, non-Responses fields included", async () => {
  const request = { messages: [userMessage], model: "x", temperature: 0.1, chat_template_kwargs: { enable_thinking: false } };
  const answer = await post("policy", "/v1/chat/completions", request);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(received[0]!.path, "/v1/chat/completions");
  assert.deepEqual(received[0]!.body, { top_k: 20, metadata: { source: "extra_body" }, messages: [userMessage], model: "gpt-test", temperature: 0.1, chat_template_kwargs: { enable_thinking: false } });
  assert.equal(answer.json<any>().choices[0].message.content, "hi");
});

test("the upstream gets the bearer key and the configured default headers", async () => {
  await responses("policy", { input: "hi" });
  assert.equal(received[0]!.headers.authorization, "Bearer sk-test");
  assert.equal(received[0]!.headers["x-team"], "gym");
  assert.match(String(received[0]!.headers["content-type"]), /^application\/json/);
});

test("drop_input_reasoning_items: true (or the string 'true') removes reasoning input items; 'false' keeps them", async () => {
  const input = [userMessage, reasoning, { id: "msg_a", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "a", annotations: [] }] }];
  for (const instance of ["policy", "env_true", "keep_reasoning"]) assert.equal((await responses(instance, { input })).status, 200);
  const types = received.map((r) => r.body.input.map((item: any) => item.type ?? "message"));
  assert.deepEqual(types, [
    ["message", "message"],
    ["message", "message"],
    ["message", "reasoning", "message"],
  ]);
});

test("a reasoning item is forwarded without the status OpenAI rejects, as NeMo Gym's item model drops it", async () => {
  const answer = await responses("keep_reasoning", { input: [userMessage, { ...reasoning, status: "completed" }] });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(received[0]!.body.input[1], reasoning);
});

test("a call under /ng-rollout/<id>/v1/responses is forwarded to the upstream's /responses", async () => {
  const answer = await post("policy", "/ng-rollout/rollout-42/v1/responses", { input: "hi" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(received[0]!.path, "/v1/responses");
});

test("a 429 is retried after the Retry-After the upstream asked for, then the 200 is returned", async () => {
  handler = (_request, reply, attempt) => (attempt === 1 ? reply.code(429).header("retry-after", "1").send({ error: { message: "slow down" } }) : upstreamResponse("after retry"));
  const started = Date.now();
  const answer = await responses("policy", { input: "hi" });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<any>().output[0].content[0].text, "after retry");
  assert.equal(received.length, 2);
  assert.ok(Date.now() - started >= 950, `retried after ${Date.now() - started} ms, not the 1 s asked for`);
});

test("a persistent 503 becomes a 502 naming the upstream after max_retries + 1 attempts", async () => {
  handler = (_request, reply) => reply.code(503).send("upstream overloaded");
  const started = Date.now();
  const answer = await responses("policy", { input: "hi" });
  assert.equal(answer.status, 502);
  assert.equal(received.length, 3, "max_retries: 2 → three attempts");
  assert.ok(Date.now() - started >= 1450, "backing off 0.5 s, then 1 s, without a Retry-After");
  assert.match(answer.json<any>().detail, /upstream http:\/\/127\.0\.0\.1:\d+\/v1\/responses answered 503: upstream overloaded/);
});

test("a 400 keeps its status, is not retried, and the detail carries the upstream's text", async () => {
  handler = (_request, reply) => reply.code(400).send({ error: { message: "Unsupported parameter: 'top_k'" } });
  const answer = await responses("policy", { input: "hi" });
  assert.equal(answer.status, 400);
  assert.equal(received.length, 1);
  assert.match(answer.json<any>().detail, /answered 400: .*Unsupported parameter: 'top_k'/);
});

test("an upstream 200 that is not a Responses API response, or not JSON at all, is a 502", async () => {
  handler = () => ({ id: "resp_x", object: "response", output: [{ type: "no_such_item" }] });
  const wrongShape = await responses("policy", { input: "hi" });
  assert.equal(wrongShape.status, 502);
  assert.match(wrongShape.json<any>().detail, /not a Responses API response/);

  handler = (_request, reply) => reply.code(200).header("content-type", "text/html").send("<html>gateway login</html>");
  const notJson = await responses("policy", { input: "hi" });
  assert.equal(notJson.status, 502);
  assert.match(notJson.json<any>().detail, /<html>gateway login<\/html>/);

  handler = () => ({ id: "chat", object: "chat.completion" });
  const badChat = await post("policy", "/v1/chat/completions", { messages: [userMessage] });
  assert.equal(badChat.status, 502);
  assert.match(badChat.json<any>().detail, /not a chat completion/);
});

test("an upstream nobody listens on is a 502 naming it, not a crash", async () => {
  const answer = await responses("unreachable", { input: "hi" });
  assert.equal(answer.status, 502);
  assert.match(answer.json<any>().detail, new RegExp(`127\\.0\\.0\\.1:${closedPort}/v1/responses`));
});

test("an upstream slower than request_timeout_s is a 504 naming it", async () => {
  handler = async () => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return upstreamResponse();
  };
  const answer = await responses("impatient", { input: "hi" });
  assert.equal(answer.status, 504);
  assert.match(answer.json<any>().detail, /upstream http:\/\/127\.0\.0\.1:\d+\/v1\/responses gave no complete answer within 0\.2 s/);
  assert.equal(received.length, 1, "a timeout is not retried");
});

test("max_concurrent_requests: 2 never has more than two upstream requests in flight", async () => {
  handler = async () => {
    await new Promise((resolve) => setTimeout(resolve, 80));
    return upstreamResponse();
  };
  const answers = await Promise.all(Array.from({ length: 7 }, () => responses("gated", { input: "hi" })));
  assert.ok(answers.every((a) => a.status === 200));
  assert.equal(received.length, 7);
  assert.equal(maxInFlight, 2);

  maxInFlight = 0;
  await Promise.all(Array.from({ length: 4 }, () => responses("policy", { input: "hi" })));
  assert.equal(maxInFlight, 4, "without the limit the same load runs fully in parallel (the measurement works)");
});

test("the request is still validated: an unknown top-level key is a 422 and never reaches the upstream", async () => {
  const answer = await responses("policy", { input: "hi", seed: 1 });
  assert.equal(answer.status, 422);
  assert.equal(received.length, 0);
});

test("GET /metrics counts each upstream retry by the status that caused it, and each call's latency", async () => {
  /** The value of the series `name` carrying `label` (0 before its first count). */
  const series = async (name: string, label = "") => {
    const text = (await client.request(`${graph.url("policy")}/metrics`)).text;
    const line = text.split("\n").find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(label));
    return line === undefined ? 0 : Number(line.split(" ").at(-1));
  };
  const retriesBefore = await series("gym_model_upstream_retries_total", 'status="503"');
  const callsBefore = await series("gym_model_upstream_duration_seconds_count");
  handler = (_request, reply, attempt) => (attempt === 1 ? reply.code(503).send("busy") : upstreamResponse("after a 503"));
  assert.equal((await responses("policy", { input: "hi" })).status, 200);
  assert.equal(await series("gym_model_upstream_retries_total", 'status="503"'), retriesBefore + 1);
  assert.equal(await series("gym_model_upstream_duration_seconds_count"), callsBefore + 1);
});
