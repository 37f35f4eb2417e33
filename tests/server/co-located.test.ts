// Co-located servers (one process, `co_located`) call each other in-process: every hot route must answer exactly
// what it answers over HTTP — status, body bytes, content type, headers the collector reads, cookies — case by case
// (a success, the rollout prefix, a 422, a 4xx of the route's own, an exception, an event stream, a replayed
// idempotency key either way), the caller's abort and deadline must end the call as over HTTP, a whole /run must
// give the rollout a graph of separate servers gives, and none of those calls may touch a socket.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { resourcesServer, responsesApiModel, tool } from "../../src/server/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { DeadlineExceededError, type HttpResponse } from "../../src/client/index.ts";
import { http, serverDefinition, startServers, type InProcessGraph, type TestServers } from "../../src/testing/index.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

const model = responsesApiModel({
  name: "ScriptModel",
  config: z.looseObject({}),
  async responses({ rawParams, rolloutId }) {
    const text = String((rawParams.input as { content?: unknown }[])[0]?.content ?? rawParams.input);
    if (text === "refuse") throw new HttpError(400, "the model refuses this prompt");
    if (text === "crash") throw new Error("the model fell over");
    return {
      id: "resp_fixed", created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: { rollout: String(rolloutId) }, model: "script", object: "response",
      output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `echo ${text}`, annotations: [] }] }],
      parallel_tool_calls: true, temperature: 1, tool_choice: "auto", tools: [], top_p: null, usage: null,
    } as any;
  },
});

/** Tool runs seen by the server, and the abort reasons its tools heard. */
const seen = { adds: 0, aborted: [] as string[] };

const environment = resourcesServer({
  name: "CounterServer",
  seed: z.object({ start: z.number().default(0) }),
  state: (seed) => ({ count: seed?.start ?? 0 }),
  stateCodec: "json",
  tools: {
    add: tool({
      input: z.object({ by: z.number() }),
      run: (state: { count: number; history?: number[] }, { by }) => {
        seen.adds++;
        state.count += by;
        state.history?.push(state.count);
        return { count: state.count, ratio: 2 };
      },
    }),
    formatted: tool({ input: z.object({}), formatOutput: (count: number) => JSON.stringify(`count ${count}`), run: (state: { count: number }) => state.count }),
    fail: tool({ input: z.object({}), run: () => { throw new Error("the tool fell over"); } }),
    // Looks at its signal only after the caller may have gone (the signal is made when first read).
    late: tool({
      input: z.object({ ms: z.number() }),
      run: async (_state, { ms }, context) => {
        await sleep(ms);
        if (context.signal.aborted) seen.aborted.push(`late: ${(context.signal.reason as Error)?.message}`);
        return { slept: ms };
      },
    }),
    // Answers with what it was sent, and with an object the state keeps changing after the answer.
    echo: tool({ input: z.looseObject({}), run: (_state, body) => body }),
    history: tool({ input: z.object({}), run: (state: { count: number; history?: number[] }) => (state.history ??= [state.count]) }),
    refuse: tool({ input: z.object({}), run: () => { throw new HttpError(409, "not now"); } }),
    slow: tool({
      input: z.object({ ms: z.number() }),
      run: async (_state, { ms }, context) => {
        try {
          await sleep(ms, undefined, { signal: context.signal });
        } catch {
          seen.aborted.push(String((context.signal.reason as Error)?.message));
        }
        return { slept: ms };
      },
    }),
  },
  verify: {
    input: z.object({ expected: z.number() }),
    run: (state, request) => ({ reward: state?.count === request.expected ? 1 : 0, set_overlap: 1 }),
  },
  floatFields: ["set_overlap"],
});

const agentRefs = { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } };
const servers = (): TestServers => ({ env: [environment], policy_model: [model], agent: [simpleAgent, agentRefs] });

let colocated: InProcessGraph;
let separate: InProcessGraph;
const client = http();
/** Requests that reached each co-located server's HTTP listener. */
const overTheWire: Record<string, string[]> = {};

before(async () => {
  colocated = await startServers(servers(), { http_max_retries: 0 }, { coLocated: true });
  separate = await startServers(servers(), { http_max_retries: 0 });
  for (const [name, server] of Object.entries(colocated.servers)) {
    overTheWire[name] = [];
    server.app.server.on("request", (request: { url?: string }) => overTheWire[name]!.push(String(request.url)));
  }
});
after(async () => {
  await colocated.close();
  await separate.close();
  await client.close();
});

const ENV_COOKIE = "CounterServer___env";
/** A model response as /verify receives it. */
const RESPONSE = { id: "r", created_at: 1, model: "script", object: "response", output: [], parallel_tool_calls: true, tool_choice: "auto", tools: [] };

/** The same POST over HTTP and in-process (the co-located graph's client), to the same server. */
async function bothWays(server: string, path: string, json: unknown, options: { cookies?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<[HttpResponse, HttpResponse]> {
  const overHttp = await client.request(`${colocated.url(server)}${path}`, { method: "POST", json, ...options });
  const before = overTheWire[server]!.length;
  const inProcess = await colocated.client.post(server, path, { json, ...options });
  assert.equal(overTheWire[server]!.length, before, `${server} ${path} was answered in-process, not over its socket`);
  return [overHttp, inProcess];
}

/** What a caller reads of an answer; the session cookies are new per call without one, so only their presence counts. */
const reading = (answer: HttpResponse) => ({
  status: answer.status,
  ok: answer.ok,
  text: answer.text,
  contentType: answer.headers["content-type"],
  cacheControl: answer.headers["cache-control"],
  failureClass: answer.headers["x-ng-failure-class"],
  innerStatus: answer.headers["x-ng-inner-status"],
  cookies: Object.keys(answer.cookies).sort(),
});

const routeCases: { name: string; server: string; path: string; json: unknown; status: number }[] = [
  { name: "a model answer", server: "policy_model", path: "/v1/responses", json: { input: "hello" }, status: 200 },
  { name: "the model behind the rollout prefix", server: "policy_model", path: "/ng-rollout/7-2/v1/responses", json: { input: "hello" }, status: 200 },
  { name: "a model request pydantic refuses (422)", server: "policy_model", path: "/v1/responses", json: { input: 5, temperature: "hot" }, status: 422 },
  { name: "no body for the model (422 missing)", server: "policy_model", path: "/v1/responses", json: undefined, status: 422 },
  { name: "the model's own 400", server: "policy_model", path: "/v1/responses", json: { input: "refuse" }, status: 400 },
  { name: "the model's exception (500)", server: "policy_model", path: "/v1/responses", json: { input: "crash" }, status: 500 },
  { name: "a streamed model answer (SSE)", server: "policy_model", path: "/v1/responses", json: { input: "hello", stream: true }, status: 200 },
  { name: "chat completions", server: "policy_model", path: "/v1/chat/completions", json: { messages: [{ role: "user", content: "hello" }] }, status: 200 },
  { name: "seed_session", server: "env", path: "/seed_session", json: { responses_create_params: { input: "x" }, start: 3 }, status: 200 },
  { name: "seed_session with a row that is no object (422)", server: "env", path: "/seed_session", json: [1, 2], status: 422 },
  { name: "a tool's answer", server: "env", path: "/add", json: { by: 2 }, status: 200 },
  { name: "a tool's formatted answer", server: "env", path: "/formatted", json: {}, status: 200 },
  { name: "a tool's 422", server: "env", path: "/add", json: { by: "two" }, status: 422 },
  // What JSON drops or rewrites on the way (undefined, -0, NaN, a hole), copied in-process instead of written and read.
  { name: "a body JSON rewrites", server: "env", path: "/echo", json: { minus: -0, gone: undefined, list: [undefined, NaN, 1.5, , -0], nested: { deep: [[{}]] }, "10": "ten", "2": "two" }, status: 200 },
  { name: "a body with a toJSON (a Date)", server: "env", path: "/echo", json: { when: new Date(0), plain: 1 }, status: 200 },
  { name: "a tool's own 409", server: "env", path: "/refuse", json: {}, status: 409 },
  { name: "a tool's exception (500, its repr)", server: "env", path: "/fail", json: {}, status: 500 },
  { name: "verify, its Python floats", server: "env", path: "/verify", json: { responses_create_params: { input: "x" }, response: RESPONSE, expected: 0 }, status: 200 },
  { name: "verify's 422 (a field it declares is missing)", server: "env", path: "/verify", json: { responses_create_params: { input: "x" }, response: RESPONSE }, status: 422 },
  { name: "the agent's /v1/responses, the inner model's 400 (x-ng-inner-status)", server: "agent", path: "/v1/responses", json: { input: "refuse" }, status: 500 },
  { name: "the agent's prefixed /v1/responses", server: "agent", path: "/ng-rollout/3-1/v1/responses", json: { input: "hello" }, status: 200 },
];

for (const c of routeCases) {
  test(`in-process = HTTP: ${c.name}`, async () => {
    const [overHttp, inProcess] = await bothWays(c.server, c.path, c.json);
    assert.equal(overHttp.status, c.status, overHttp.text);
    assert.deepEqual(reading(inProcess), reading(overHttp));
  });
}

test("verify writes its float fields as Python floats in-process too", async () => {
  const [, inProcess] = await bothWays("env", "/verify", { responses_create_params: { input: "x" }, response: RESPONSE, expected: 0 });
  assert.match(inProcess.text, /"set_overlap":1\.0/);
  assert.match(inProcess.text, /"reward":[01]\.0/);
});

test("a session's state is the same whichever way its calls come", async () => {
  const run = async (post: (path: string, json: unknown, cookies: Record<string, string>) => Promise<HttpResponse>) => {
    const seeded = await post("/seed_session", { responses_create_params: { input: "x" }, start: 10 }, {});
    const cookies = { [ENV_COOKIE]: seeded.cookies[ENV_COOKIE]! };
    const added = await post("/add", { by: 5 }, cookies);
    const verified = await post("/verify", { responses_create_params: { input: "x" }, response: RESPONSE, expected: 15 }, cookies);
    return [added.text, verified.json<{ reward: number }>().reward];
  };
  const overHttp = await run((path, json, cookies) => client.request(`${colocated.url("env")}${path}`, { method: "POST", json, cookies }));
  const inProcess = await run((path, json, cookies) => colocated.client.post("env", path, { json, cookies }));
  assert.deepEqual(inProcess, overHttp);
  assert.deepEqual(inProcess, ['{"count":15,"ratio":2}', 1]);
});

test("an answer is the value as it stood when answered, whenever it is read, and each reader gets its own copy", async () => {
  const seeded = await colocated.client.post("env", "/seed_session", { json: { responses_create_params: { input: "x" }, start: 4 } });
  const cookies = { [ENV_COOKIE]: seeded.cookies[ENV_COOKIE]! };
  const history = await colocated.client.post("env", "/history", { json: {}, cookies });
  await colocated.client.post("env", "/add", { json: { by: 1 }, cookies });
  const later = await colocated.client.post("env", "/history", { json: {}, cookies });
  assert.deepEqual(later.json(), [4, 5]);
  // The first answer's text and JSON, first read after the state changed, are still the first answer's.
  assert.equal(history.text, "[4]");
  const mine = history.json<number[]>();
  assert.deepEqual(mine, [4]);
  mine.push(99);
  assert.deepEqual(history.json(), [4], "a second reader does not see the first reader's change");
  assert.equal(history.text, "[4]");
});

test("a path without an in-process route goes over HTTP and gets HTTP's answer", async () => {
  const before = overTheWire.env!.length;
  const answer = await colocated.client.post("env", "/no_such_tool", { json: {} });
  assert.equal(answer.status, 404);
  assert.deepEqual(overTheWire.env!.slice(before), ["/no_such_tool"]);
  const tools = await colocated.client.get("env", "/tools");
  assert.equal(tools.status, 200, "GETs go over HTTP");
});

test("an idempotency key replays across the two ways, byte for byte, without running the tool twice", async () => {
  for (const [first, second] of [["in-process", "HTTP"], ["HTTP", "in-process"]] as const) {
    const seeded = await colocated.client.post("env", "/seed_session", { json: { responses_create_params: { input: "x" } } });
    const cookies = { [ENV_COOKIE]: seeded.cookies[ENV_COOKIE]! };
    const call = (way: string) =>
      way === "HTTP"
        ? client.request(`${colocated.url("env")}/add`, { method: "POST", json: { by: 1 }, cookies, idempotencyKey: `key-${first}` })
        : colocated.client.post("env", "/add", { json: { by: 1 }, cookies, idempotencyKey: `key-${first}` });
    const adds = seen.adds;
    const one = await call(first);
    const two = await call(second);
    assert.equal(seen.adds, adds + 1, `${first} then ${second}: the tool ran once`);
    assert.deepEqual(reading(two), reading(one));
    assert.equal(one.text, '{"count":1,"ratio":2}');
  }
});

test("the caller giving up ends the in-process call with its reason, and the tool hears it", async () => {
  const caller = new AbortController();
  const call = colocated.client.post("env", "/slow", { json: { ms: 5_000 }, signal: caller.signal });
  setTimeout(() => caller.abort(new Error("the collector hung up")), 50);
  await assert.rejects(call, /the collector hung up/);
  for (let i = 0; i < 50 && seen.aborted.length === 0; i++) await sleep(10);
  assert.deepEqual(seen.aborted.splice(0), ["The client disconnected"]);
});

test("a tool that first reads its signal after the caller gave up finds it aborted, with the reason", async () => {
  const caller = new AbortController();
  const call = colocated.client.post("env", "/late", { json: { ms: 200 }, signal: caller.signal });
  setTimeout(() => caller.abort(new Error("gone early")), 20);
  await assert.rejects(call, /gone early/);
  for (let i = 0; i < 100 && seen.aborted.length === 0; i++) await sleep(10);
  assert.deepEqual(seen.aborted.splice(0), ["late: The client disconnected"]);
});

test("the call's deadline ends an in-process call as over HTTP", async () => {
  await assert.rejects(colocated.client.post("env", "/slow", { json: { ms: 5_000 }, deadlineMs: 100 }), (error) => error instanceof DeadlineExceededError && error.deadlineMs === 100);
  for (let i = 0; i < 50 && seen.aborted.length === 0; i++) await sleep(10);
  assert.equal(seen.aborted.splice(0).length, 1, "the tool heard the deadline");
});

test("/run in a co-located graph: the rollout a graph of separate servers gives, and only /run on a socket", async () => {
  const row = { responses_create_params: { input: [{ role: "user", content: "hello" }] }, expected: 0, _ng_task_index: 4, _ng_rollout_index: 1 };
  const marks = Object.fromEntries(Object.entries(overTheWire).map(([name, paths]) => [name, paths.length]));
  const together = await client.request(`${colocated.url("agent")}/run`, { method: "POST", json: row });
  const apart = await client.request(`${separate.url("agent")}/run`, { method: "POST", json: row });
  assert.equal(together.status, 200, together.text);
  assert.equal(together.text, apart.text);
  assert.equal(together.json<{ reward: number }>().reward, 1);
  assert.deepEqual(Object.fromEntries(Object.entries(overTheWire).map(([name, paths]) => [name, paths.slice(marks[name])])), { env: [], policy_model: [], agent: ["/run"] });
});

test("/run's failures read the same co-located: an inner server's 4xx keeps its x-ng-inner-status", async () => {
  const row = { responses_create_params: { input: [{ role: "user", content: "refuse" }] }, expected: 0 };
  const together = await client.request(`${colocated.url("agent")}/run`, { method: "POST", json: row });
  const apart = await client.request(`${separate.url("agent")}/run`, { method: "POST", json: row });
  assert.equal(together.status, 500);
  assert.deepEqual(reading(together), reading(apart));
  assert.equal(together.headers["x-ng-inner-status"], "500", "the agent's own /v1/responses answered 500 (wrapping the model's 400)");
});

test("/metrics counts in-process answers under their routes", async () => {
  await colocated.client.post("env", "/add", { json: { by: 1 } });
  const text = (await client.request(`${colocated.url("env")}/metrics`)).text;
  const count = Number(/gym_http_request_duration_seconds_count\{[^}]*route="\/add"[^}]*status="200"[^}]*\} (\d+)/.exec(text)?.[1] ?? /gym_http_request_duration_seconds_count\{[^}]*status="200"[^}]*route="\/add"[^}]*\} (\d+)/.exec(text)?.[1]);
  assert.ok(count >= 3, `in-process /add answers are counted (${count})`);
});

test("a whole co-located graph of real servers: scripted_model and example_single_tool_call", async () => {
  const graph = await startServers(
    {
      env: [await serverDefinition("resources_servers/example_single_tool_call")],
      policy_model: [await serverDefinition("responses_api_models/scripted_model"), { mode: "heuristic", return_token_id_information: false }],
      agent: [simpleAgent, agentRefs],
    },
    {},
    { coLocated: true },
  );
  try {
    const row = {
      responses_create_params: {
        input: [{ role: "user", content: "What's the weather like in Paris today?" }],
        tools: [{ type: "function", name: "get_weather", description: "Get the weather.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }, strict: true }],
      },
    };
    const answer = await client.request(`${graph.url("agent")}/run`, { method: "POST", json: row });
    assert.equal(answer.status, 200, answer.text);
    const output = answer.json<{ response: { output: { type: string }[] } }>().response.output;
    assert.ok(output.some((item) => item.type === "function_call"), "the tool was called, in-process");
  } finally {
    await graph.close();
  }
});
