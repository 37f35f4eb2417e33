// What simple_agent lets the model read, rule by rule, over real HTTP with a fault proxy in front of the resources
// server and another in front of the model: the environment's own answers (its 422, its code's 500) are tool output;
// anything else (502/503/504, resets, a garbage or cut body, a hang) ends the /run as a typed failure, a reset tool
// call is replayed under its idempotency key and runs once, and a seed answer without the session cookie is a failure.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel, resourcesServer, tool } from "../../../src/server/index.ts";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultDecider, type FaultProxy, type ProxiedRequest } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER, IDEMPOTENCY_KEY_HEADER } from "../../../src/protocol/failures.ts";
import simpleAgent from "../app.ts";

type Item = Record<string, any>;
const modelInputs: Item[][] = [];
let toolRuns = 0;

/** "add N": call add(N) once, then answer with what it returned; "bad": call add with a string; "boom": call explode. */
const model = responsesApiModel({
  name: "RuleModel",
  config: z.looseObject({}),
  async responses({ params, rawParams }) {
    const input = rawParams.input as Item[];
    modelInputs.push(structuredClone(input));
    const prompt = String(input[0]?.content);
    const last = input.at(-1);
    const output =
      last?.type === "function_call_output"
        ? [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `tool said ${last.output}`, annotations: [] }] }]
        : [prompt === "boom" ? call("explode", {}) : prompt === "bad" ? call("add", { amount: "many" }) : call("add", { amount: Number(/add (\d+)/.exec(prompt)![1]) })];
    return {
      id: "resp_1", created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "rule", object: "response",
      output, parallel_tool_calls: params.parallel_tool_calls, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: null,
    } as any;
  },
});
const call = (name: string, args: unknown) => ({ type: "function_call", name, arguments: JSON.stringify(args), call_id: `call_${name}`, id: `fc_${name}`, status: "completed" });

const environment = resourcesServer({
  name: "CountingResourcesServer",
  seed: z.object({ start: z.number().default(0) }),
  state: (seed) => ({ value: seed?.start ?? 0 }),
  tools: {
    add: tool({
      input: z.object({ amount: z.number().int() }),
      run: (state: { value: number }, { amount }) => {
        toolRuns++;
        state.value += amount;
        return { value: state.value };
      },
    }),
    explode: tool({
      input: z.object({}),
      run: () => {
        throw new Error("the environment's own bug");
      },
    }),
  },
  verify: { input: z.object({ expected: z.number() }), run: (state, { expected }) => ({ reward: state?.value === expected ? 1 : 0, final_value: state?.value ?? null }) },
});

let graph: InProcessGraph;
let envProxy: FaultProxy;
let modelProxy: FaultProxy;
const client = http();

before(async () => {
  graph = await startServers(
    {
      env: [environment],
      policy_model: [model],
      agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env_proxy" }, model_server: { type: "responses_api_models", name: "model_proxy" } }],
    },
    // Short enough that a hung call fails fast; one transport retry (200 ms later) for a replay-safe call.
    { http_request_deadline_s: 1.5, http_max_retries: 1 },
  );
  // The agent addresses the proxies by instance name, as it would any server of the graph.
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
  modelInputs.length = 0;
  toolRuns = 0;
  envProxy.decide = () => undefined;
  modelProxy.decide = () => undefined;
});

const row = (prompt: string, expected = 0) => ({ responses_create_params: { input: prompt }, start: 0, expected });
const run = (body: unknown) => client.request(`${graph.url("agent")}/run`, { method: "POST", json: body });
const isTool = (name: string) => (request: ProxiedRequest) => request.path === `/${name}`;
/** The fault on requests `matches` picks, every time. */
const always = (matches: (request: ProxiedRequest) => boolean, fault: ReturnType<FaultDecider>): FaultDecider => (request) => (matches(request) ? fault : undefined);
/** The fault on the first request `matches` picks, then nothing. */
function once(matches: (request: ProxiedRequest) => boolean, fault: ReturnType<FaultDecider>): FaultDecider {
  let done = false;
  return (request) => {
    if (done || !matches(request)) return undefined;
    done = true;
    return fault;
  };
}
const toolOutputs = () => modelInputs.flat().filter((item) => item.type === "function_call_output").map((item) => item.output as string);

async function expectTypedFailure(body: unknown, failureClass: string) {
  const answer = await run(body);
  assert.equal(answer.status, 500, answer.text);
  assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, answer.text);
  assert.equal(typeof answer.json(), "string", "the body stays NeMo Gym's 500: a JSON string");
  return answer;
}

test("without faults, a /run through both proxies completes and scores", async () => {
  const answer = await run(row("add 3", 3));
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<any>().reward, 1);
  assert.deepEqual(toolOutputs(), ['{"value":3}']);
});

test("the environment's 422 and its code's 500 reach the model as the tool output, as in NeMo Gym", async () => {
  const bad = await run(row("bad"));
  assert.equal(bad.status, 200, bad.text);
  const [validation] = toolOutputs();
  assert.equal(JSON.parse(validation!).detail[0].loc.join("."), "body.amount");
  modelInputs.length = 0;
  const boom = await run(row("boom"));
  assert.equal(boom.status, 200, boom.text);
  assert.match(JSON.parse(toolOutputs()[0]!), /the environment's own bug/);
});

test("a tool answer that is not the environment's own ends the attempt as a typed failure; the model never reads it", async () => {
  const cases: [string, ReturnType<FaultDecider>, string][] = [
    ["502", { status: 502, body: "<html>Bad Gateway</html>" }, "environment_unavailable"],
    ["503", "unavailable", "environment_unavailable"],
    ["504 with a JSON detail", { status: 504, body: '{"detail":"gateway timeout"}' }, "environment_unavailable"],
    ["500 with an HTML body", "garbage_500", "invalid_inner_answer"],
    ["a garbage 200", "garbage_200", "invalid_inner_answer"],
    ["a 400 whose body is not FastAPI's", { status: 400, body: '{"error":"proxy says no"}' }, "invalid_inner_answer"],
    ["a truncated body, every time", "truncate", "transport"],
    ["a reset before forwarding, every time", "reset_before", "transport"],
  ];
  for (const [label, fault, failureClass] of cases) {
    modelInputs.length = 0;
    envProxy.decide = always(isTool("add"), fault);
    await expectTypedFailure(row("add 2", 2), failureClass).catch((error) => assert.fail(`${label}: ${error.message}`));
    assert.deepEqual(toolOutputs(), [], `${label}: no tool output was fed to the model`);
  }
});

test("a hung tool call ends the attempt as a timeout within the deadline", async () => {
  envProxy.decide = always(isTool("add"), "hang");
  const started = Date.now();
  await expectTypedFailure(row("add 2", 2), "timeout");
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
});

test("a tool call reset after the environment ran it is replayed under its idempotency key: it runs once, the reward is right", async () => {
  const keys: string[] = [];
  const reset = once(isTool("add"), "reset_after");
  envProxy.decide = (request) => {
    if (isTool("add")(request)) keys.push(String(request.headers[IDEMPOTENCY_KEY_HEADER]));
    return reset(request);
  };
  const answer = await run(row("add 5", 5));
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<any>().reward, 1, "the counter was incremented once");
  assert.equal(answer.json<any>().final_value, 5);
  assert.equal(toolRuns, 1);
  assert.equal(keys.length, 2, "the call was sent twice");
  assert.equal(keys[0], keys[1], "with the same key");
  assert.match(keys[0]!, /^[0-9a-f-]{36}:1\.0:call_add$/);
});

test("model-hop faults end the attempt as typed failures; a reset model POST (no key) is not replayed", async () => {
  modelProxy.decide = always(() => true, "garbage_500");
  await expectTypedFailure(row("add 1", 1), "invalid_inner_answer");
  const before = modelProxy.counts.reset_before ?? 0;
  modelProxy.decide = always(() => true, "reset_before");
  await expectTypedFailure(row("add 1", 1), "transport");
  assert.equal((modelProxy.counts.reset_before ?? 0) - before, 1, "the model POST was sent once");
  modelProxy.decide = always(() => true, "garbage_200");
  await expectTypedFailure(row("add 1", 1), "invalid_inner_answer");
});

test("a seed answer without the session cookie, or not JSON, is a typed failure; so is a verify without a numeric reward", async () => {
  envProxy.decide = always((request) => request.path === "/seed_session", { status: 200, body: "{}" });
  await expectTypedFailure(row("add 1", 1), "invalid_inner_answer");
  assert.equal(toolRuns, 0, "the loop never ran unseeded");
  envProxy.decide = always((request) => request.path === "/seed_session", "garbage_200");
  await expectTypedFailure(row("add 1", 1), "invalid_inner_answer");
  envProxy.decide = always((request) => request.path === "/verify", { status: 200, body: '{"reward":"1"}' });
  await expectTypedFailure(row("add 1", 1), "invalid_inner_answer");
});

test("the environment's own error on seed or verify stays NeMo Gym's inner-server 500 (with its status), not an infrastructure failure", async () => {
  const answer = await run({ responses_create_params: { input: "add 1" }, start: "not a number", expected: 1 });
  assert.equal(answer.status, 500, answer.text);
  assert.equal(answer.headers[FAILURE_CLASS_HEADER], undefined);
  assert.equal(answer.headers["x-ng-inner-status"], "422");
});
