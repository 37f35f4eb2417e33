// tool_simulation_agent applies simple_agent's rule (src/client/inner-answer.ts): the model's and the environment's
// own answers are used; anything else (a garbage or cut body, a 503, a reset, a verify without a reward) ends the
// /run as a typed failure, never a reward.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel, resourcesServer } from "../../../src/server/index.ts";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultDecider, type FaultProxy } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import toolSimulationAgent from "../app.ts";

const model = responsesApiModel({
  name: "OneTurnModel",
  config: z.looseObject({}),
  async responses({ params }) {
    const output = [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi", annotations: [] }] }];
    return { id: "resp_1", created_at: 1, model: "one", object: "response", output, parallel_tool_calls: params.parallel_tool_calls, tool_choice: "auto", tools: params.tools } as any;
  },
});
const environment = resourcesServer({ name: "ConstantResourcesServer", tools: {}, verify: { run: () => 1 } });

let graph: InProcessGraph;
let envProxy: FaultProxy;
let modelProxy: FaultProxy;
const client = http();

before(async () => {
  graph = await startServers(
    {
      env: [environment],
      policy_model: [model],
      agent: [toolSimulationAgent, { resources_server: { type: "resources_servers", name: "env_proxy" }, model_server: { type: "responses_api_models", name: "model_proxy" } }],
    },
    { http_request_deadline_s: 1.5, http_max_retries: 1 },
  );
  envProxy = await proxyInstance(graph, "env", "env_proxy");
  modelProxy = await proxyInstance(graph, "policy_model", "model_proxy");
});
after(async () => {
  await envProxy.close();
  await modelProxy.close();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  envProxy.decide = () => undefined;
  modelProxy.decide = () => undefined;
});

const run = () => client.request(`${graph.url("agent")}/run`, { method: "POST", json: { responses_create_params: { input: "hello" } } });
const always = (fault: ReturnType<FaultDecider>): FaultDecider => () => fault;

test("without faults the /run scores", async () => {
  const answer = await run();
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<any>().reward, 1);
});

test("model and verify answers that are not the servers' own are typed failures", async () => {
  const cases: [string, () => void, string][] = [
    ["model garbage 500", () => (modelProxy.decide = always("garbage_500")), "invalid_inner_answer"],
    ["model garbage 200", () => (modelProxy.decide = always("garbage_200")), "invalid_inner_answer"],
    ["model reset", () => (modelProxy.decide = always("reset_before")), "transport"],
    ["model hang", () => (modelProxy.decide = always("hang")), "timeout"],
    ["verify 503", () => (envProxy.decide = always("unavailable")), "environment_unavailable"],
    ["verify truncated", () => (envProxy.decide = always("truncate")), "transport"],
    ["verify JSON without a reward", () => (envProxy.decide = always({ status: 200, body: '{"reward":null}' })), "invalid_inner_answer"],
  ];
  for (const [label, inject, failureClass] of cases) {
    envProxy.decide = () => undefined;
    modelProxy.decide = () => undefined;
    inject();
    const answer = await run();
    assert.equal(answer.status, 500, `${label}: ${answer.text}`);
    assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, `${label}: ${answer.text}`);
  }
});
