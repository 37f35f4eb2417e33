// An agent's /run calls its own /v1/responses in-process: the answer must be the one the HTTP route gives, case by
// case (success and its cookies, the prefixed route, a 422, an inner server's error, an exception in the loop, an
// infrastructure failure), and /run must no longer send that request over HTTP.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiAgent, responsesApiModel, resourcesServer, tool } from "../../src/server/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { http, type InProcessGraph, startServers } from "../../src/testing/index.ts";
import type { HttpResponse } from "../../src/client/index.ts";
import simpleAgent from "../../responses_api_agents/simple_agent/app.ts";

const model = responsesApiModel({
  name: "ScriptModel",
  config: z.looseObject({}),
  async responses({ rawParams }) {
    const text = String((rawParams.input as { content?: unknown }[])[0]?.content);
    if (text === "refuse") throw new HttpError(400, "the model refuses this prompt");
    if (text === "crash") throw new Error("the model fell over");
    return {
      id: "resp_fixed", created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "script", object: "response",
      output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `echo ${text}`, annotations: [] }] }],
      parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: [], top_p: null, usage: null,
    } as any;
  },
});

const environment = resourcesServer({
  name: "PlainResourcesServer",
  tools: { noop: tool({ input: z.object({}), run: () => ({}) }) },
  verify: { run: () => ({ reward: 1 }) },
});

// An agent whose loop itself fails, to compare the error handler's answers.
const brokenAgent = responsesApiAgent({
  name: "BrokenAgent",
  config: z.looseObject({}),
  async responses() {
    throw new TypeError("the loop has a bug");
  },
  async run() {
    return { reward: 0 };
  },
});

let graph: InProcessGraph;
const client = http();
const agentRefs = { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } };

before(async () => {
  graph = await startServers({
    env: [environment],
    policy_model: [model],
    agent: [simpleAgent, agentRefs],
    dead_model_agent: [simpleAgent, { ...agentRefs, model_server: { type: "responses_api_models", name: "gone_model" } }],
    gone_model: [model],
    broken_agent: [brokenAgent, {}],
  }, { http_max_retries: 0 });
  // A model server that is not there: the agent's call to it is a transport failure.
  await graph.servers.gone_model!.close();
});
after(async () => {
  await graph.close();
  await client.close();
});

/** The same call over HTTP and in-process. */
async function bothWays(agent: string, path: string, json: unknown, cookies: Record<string, string> = {}): Promise<[HttpResponse, HttpResponse]> {
  const overHttp = await client.request(`${graph.url(agent)}${path}`, { method: "POST", json, cookies });
  const self = graph.servers[agent]!.context.self!;
  const inProcess = await self.post(path, { json, cookies, signal: new AbortController().signal })!;
  return [overHttp, inProcess];
}

/** What a caller reads of an answer; the agent's and the model's session cookies are new on every call, so only their presence counts. */
const seen = (answer: HttpResponse, agentCookie: string) => ({
  status: answer.status,
  ok: answer.ok,
  text: answer.text,
  failureClass: answer.headers["x-ng-failure-class"],
  innerStatus: answer.headers["x-ng-inner-status"],
  cookies: Object.fromEntries(Object.entries(answer.cookies).map(([name, value]) => [name, name === agentCookie || name === "ScriptModel___policy_model" ? "<session>" : value])),
});

const cases: { name: string; agent: string; path: string; json: unknown; cookies?: Record<string, string>; status: number }[] = [
  { name: "a conversation, with the caller's cookies passed on", agent: "agent", path: "/v1/responses", json: { input: "hello" }, cookies: { PlainResourcesServer___env: "abc", other: "x" }, status: 200 },
  { name: "the prefixed route", agent: "agent", path: "/ng-rollout/7-2/v1/responses", json: { input: [{ role: "user", content: "hi" }] }, status: 200 },
  { name: "a body pydantic refuses (422)", agent: "agent", path: "/v1/responses", json: { input: 5, temperature: "hot" }, status: 422 },
  { name: "no body at all (422 from the params model)", agent: "agent", path: "/v1/responses", json: undefined, status: 422 },
  { name: "the model's 4xx (an inner server's error)", agent: "agent", path: "/v1/responses", json: { input: "refuse" }, status: 500 },
  { name: "the model's 500", agent: "agent", path: "/v1/responses", json: { input: "crash" }, status: 500 },
  { name: "a model that cannot be reached (a typed infrastructure failure)", agent: "dead_model_agent", path: "/v1/responses", json: { input: "hello" }, status: 500 },
  { name: "a bug in the agent's loop (the exception's repr)", agent: "broken_agent", path: "/v1/responses", json: { input: "hello" }, status: 500 },
];

for (const c of cases) {
  test(`in-process = HTTP: ${c.name}`, async () => {
    const agentCookie = graph.servers[c.agent]!.app.sessionCookies.cookieName;
    const [overHttp, inProcess] = await bothWays(c.agent, c.path, c.json, c.cookies);
    assert.equal(overHttp.status, c.status, overHttp.text);
    assert.deepEqual(seen(inProcess, agentCookie), seen(overHttp, agentCookie));
    assert.ok(inProcess.cookies[agentCookie], "the agent's own session cookie is re-set, as on every HTTP answer");
    if (c.status === 200) assert.deepEqual(inProcess.json(), overHttp.json());
  });
}

test("a path that is not the agent's /v1/responses is not run in-process", () => {
  const self = graph.servers.agent!.context.self!;
  const request = { json: {}, cookies: {}, signal: new AbortController().signal };
  assert.equal(self.post("/run", request), undefined);
  assert.equal(self.post(`/ng-rollout/${"a".repeat(1001)}/v1/responses`, request), undefined);
});

test("the caller giving up ends the in-process call with its reason", async () => {
  const self = graph.servers.agent!.context.self!;
  const caller = new AbortController();
  caller.abort(new Error("the collector hung up"));
  await assert.rejects(self.post("/v1/responses", { json: { input: "hello" }, cookies: {}, signal: caller.signal })!, /the collector hung up/);
});

test("/run makes its self-call in-process: one HTTP request reaches the agent per rollout", async () => {
  const server = graph.servers.agent!.app.server;
  const paths: string[] = [];
  const count = (request: { url?: string }) => paths.push(String(request.url));
  server.on("request", count);
  try {
    const answer = await client.request(`${graph.url("agent")}/run`, { method: "POST", json: { responses_create_params: { input: "hello" } } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json<{ reward: number }>().reward, 1);
    assert.deepEqual(paths, ["/run"]);
  } finally {
    server.off("request", count);
  }
});
