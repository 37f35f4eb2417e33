// gymnasium_agent's loop, rule by rule, over real HTTP: a queue-driven model and an environment whose steps the row
// scripts; then whole rollouts with scripted_model against the ported environments.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { extractText, gymnasiumServer, resourcesServer, responsesApiModel } from "../../../src/server/index.ts";
import { http, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import gymnasiumAgent, { accumulateUsage } from "../app.ts";

type Item = Record<string, any>;
type Turn = { output: Item[]; usage?: unknown };
const defaultTurn = (): Turn => ({ output: [message("more")] });
const modelTurns: Turn[] = [];
const modelRequests: { input: Item[]; rolloutId: string | undefined; body: Item }[] = [];
const envCalls: { path: string; body: Item; sessionId: string; cookie: string | undefined }[] = [];
let modelFails = false;
let closeFails = false;
/** Resolved when a step of a row marked `hang_step` is entered, and when its request is aborted. */
let stepEntered: () => void = () => {};
let stepAborted: () => void = () => {};

const message = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
/** A message as the model server's parsing returns it (NeMo Gym's too): each text part with `logprobs: null`. */
const asParsed = (item: Item) => ({ ...item, content: item.content.map((part: Item) => ({ ...part, logprobs: null })) });
const call = (name: string, id: string) => ({ type: "function_call", name, arguments: "{}", call_id: id, id: `fc_${id}`, status: "completed" });
const usage = (input: number, output: number, cached: number, reasoning: number) => ({ input_tokens: input, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + output });

const model = responsesApiModel({
  name: "QueueModel",
  config: z.looseObject({}),
  async responses({ params, rawParams, rolloutId }) {
    modelRequests.push({ input: structuredClone(rawParams.input) as Item[], rolloutId, body: structuredClone(rawParams) as Item });
    if (modelFails) throw new Error("the model is down");
    const turn = modelTurns.shift() ?? defaultTurn();
    return {
      id: `resp_${modelRequests.length}`, created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "queue",
      object: "response", output: turn.output, parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: turn.usage ?? null,
    } as any;
  },
});

const StepScript = z.looseObject({ observation: z.string().nullish(), reward: z.number().optional(), terminated: z.boolean().optional(), truncated: z.boolean().optional(), info: z.record(z.string(), z.unknown()).optional() });
// Each step answers the row's next scripted step; a row without `steps` left ends nothing.
const environment = gymnasiumServer({
  name: "ScriptedEnv",
  metadata: z.object({
    reset: z.looseObject({ observation: z.string().nullish(), info: z.record(z.string(), z.unknown()).optional() }).default({}),
    steps: z.array(StepScript).default([]),
    hang_step: z.boolean().default(false),
    step_fails: z.boolean().default(false),
    extra_field: z.string().optional(),
    _ng_step_request_id: z.string().optional(),
  }),
  reset: ({ reset }, { sessionId }) => {
    envCalls.push({ path: "/reset", body: {}, sessionId, cookie: undefined });
    return { state: { step: 0 }, observation: reset.observation, info: reset.info };
  },
  step: async (episode, action, { steps, hang_step, step_fails, extra_field, _ng_step_request_id }, { signal, sessionId }) => {
    envCalls.push({ path: "/step", body: { text: extractText(action), extra_field, _ng_step_request_id }, sessionId, cookie: undefined });
    if (step_fails) throw new Error("step broke");
    if (hang_step) {
      stepEntered();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      stepAborted();
      return {};
    }
    return steps[episode.step++] ?? { info: { text: extractText(action) } };
  },
  routes: (app) => {
    app.post("/close", async (request, reply) => {
      envCalls.push({ path: "/close", body: request.body as Item, sessionId: request.sessionId, cookie: request.cookies.outer });
      if (closeFails) return reply.code(500).send({ detail: "close unavailable" });
      return { ok: true };
    });
  },
});

let graph: InProcessGraph;
const client = http();
const agentFields = (max_steps?: number) => ({ resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" }, ...(max_steps ? { max_steps } : {}) });

before(async () => {
  graph = await startServers({ env: [environment], policy_model: [model], agent: [gymnasiumAgent, agentFields(3)], default_agent: [gymnasiumAgent, agentFields()] });
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  modelTurns.length = 0;
  modelRequests.length = 0;
  envCalls.length = 0;
  modelFails = false;
  closeFails = false;
});

const prompt = { input: [{ role: "user", content: "play" }] };
const run = (row: Item, agent = "agent", options: { cookies?: Record<string, string>; signal?: AbortSignal } = {}) =>
  client.request(`${graph.url(agent)}/run`, { method: "POST", json: row, ...options });
const ended = (reward: number, info: Item = {}) => ({ observation: null, reward, terminated: true, truncated: false, info });
const going = (observation: string | null, reward = 0, info: Item = {}) => ({ observation, reward, terminated: false, truncated: false, info });

test("a step that terminates ends the episode: one reset, one model call, one step; its reward and info answer", async () => {
  const answer = await run({ responses_create_params: prompt, steps: [ended(1, { score: 3 })] });
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json<Item>();
  assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "terminated", "truncated", "info"]);
  assert.deepEqual([body.reward, body.terminated, body.truncated, body.info], [1, true, false, { score: 3 }]);
  assert.equal(modelRequests.length, 1);
  assert.match(answer.text, /"reward":1\.0/);
});

test("the model's whole response is the action: /step gets the row's fields and the response", async () => {
  modelTurns.push({ output: [message("hit me")] });
  await run({ responses_create_params: prompt, extra_field: "kept", steps: [ended(0)] });
  assert.deepEqual(envCalls.find((c) => c.path === "/step")!.body, { text: "hit me", extra_field: "kept", _ng_step_request_id: undefined });
});

test("rewards of every step are summed; an observation follows the model's full output item as a user message", async () => {
  modelTurns.push({ output: [message("turn-1")] }, { output: [message("turn-2")] });
  const answer = await run({ responses_create_params: prompt, steps: [going("obs-1", 0.5), ended(0.5)] });
  const body = answer.json<Item>();
  assert.equal(body.reward, 1);
  assert.deepEqual(modelRequests[1]!.input, [{ role: "user", content: "play" }, asParsed(message("turn-1")), { content: "obs-1", role: "user" }]);
  assert.deepEqual(body.response.output.map((item: Item) => [item.type, item.role]), [["message", "assistant"], ["message", "user"], ["message", "assistant"]]);
});

test("the reset observation is appended to the prompt; a string input becomes one user message", async () => {
  const answer = await run({ responses_create_params: { input: "deal" }, reset: { observation: "Your hand: 12" }, steps: [ended(0)] });
  assert.deepEqual(modelRequests[0]!.input, [{ content: "deal", role: "user" }, { content: "Your hand: 12", role: "user" }]);
  const input = answer.json<Item>().responses_create_params.input;
  assert.deepEqual(input, [{ content: "deal", role: "user", type: "message" }, { content: "Your hand: 12", role: "user", type: "message" }]);
});

test("info.tool_outputs become function_call_output items, before the observation", async () => {
  modelTurns.push({ output: [call("look", "c1"), call("take", "c2")] }, { output: [message("done")] });
  const tool_outputs = [{ call_id: "c1", output: '{"room": "hall"}' }, { call_id: "c2", output: '"ok"' }];
  const answer = await run({ responses_create_params: prompt, steps: [going("next?", 0, { tool_outputs }), ended(1)] });
  assert.deepEqual(modelRequests[1]!.input.slice(3), [
    { call_id: "c1", output: '{"room": "hall"}', type: "function_call_output" },
    { call_id: "c2", output: '"ok"', type: "function_call_output" },
    { content: "next?", role: "user" },
  ]);
  assert.deepEqual(answer.json<Item>().response.output[2], { call_id: "c1", output: '{"room": "hall"}', type: "function_call_output", id: null, status: null });
});

test("a text turn that neither ends nor observes adds nothing but the model's own output", async () => {
  modelTurns.push({ output: [message("a")] }, { output: [message("b")] });
  await run({ responses_create_params: prompt, steps: [going(null), ended(0)] });
  assert.deepEqual(modelRequests[1]!.input.slice(1), [asParsed(message("a"))]);
});

test("max_steps model calls without an end: the episode is truncated, not terminated", async () => {
  const answer = await run({ responses_create_params: prompt, steps: [going("o1", 0.25), going("o2", 0.25), going("o3", 0.25), going("o4")] });
  const body = answer.json<Item>();
  assert.equal(modelRequests.length, 3);
  assert.deepEqual([body.reward, body.terminated, body.truncated], [0.75, false, true]);
});

test("max_steps defaults to 10 and must be at least 1", async () => {
  await run({ responses_create_params: prompt }, "default_agent");
  assert.equal(modelRequests.length, 10);
  await assert.rejects(startServers({ bad_agent: [gymnasiumAgent, { ...agentFields(), max_steps: 0 }] }), /max_steps/);
});

test("a truncating step stops the loop at once: its tool outputs and observation are not added", async () => {
  modelTurns.push({ output: [message("a")] });
  const answer = await run({ responses_create_params: prompt, steps: [{ observation: "ignored", reward: 0.5, truncated: true, info: { tool_outputs: [{ call_id: "c", output: "x" }] } }] });
  const body = answer.json<Item>();
  assert.equal(modelRequests.length, 1);
  assert.deepEqual([body.reward, body.terminated, body.truncated], [0.5, false, true]);
  assert.equal(body.response.output.length, 1);
});

test("usage is summed over the turns, cached and reasoning tokens included", async () => {
  modelTurns.push({ output: [message("a")], usage: usage(5, 7, 2, 3) }, { output: [message("b")], usage: usage(11, 13, 5, 7) });
  const answer = await run({ responses_create_params: prompt, steps: [going("o"), ended(0)] });
  assert.deepEqual(answer.json<Item>().response.usage, usage(16, 20, 7, 10));
  assert.equal(accumulateUsage(null, null), null);
});

test("the environment's session cookie from /reset is sent on every /step; the caller's cookies go along", async () => {
  const cookies = { outer: "routing-cookie" };
  modelTurns.push({ output: [message("a")] }, { output: [message("b")] });
  await run({ responses_create_params: prompt, reset: { info: { supports_explicit_close: true } }, steps: [going("o"), ended(1)] }, "agent", { cookies });
  assert.deepEqual(envCalls.map((c) => c.path), ["/reset", "/step", "/step", "/close"]);
  assert.equal(new Set(envCalls.map((c) => c.sessionId)).size, 1);
  assert.equal(envCalls.at(-1)!.cookie, "routing-cookie");
});

test("an environment that supports explicit close is closed once after the episode; one that does not, never", async () => {
  await run({ responses_create_params: prompt, reset: { info: { supports_explicit_close: true } }, steps: [ended(1)] });
  assert.equal(envCalls.filter((c) => c.path === "/close").length, 1);
  envCalls.length = 0;
  await run({ responses_create_params: prompt, steps: [ended(1)] });
  assert.deepEqual(envCalls.map((c) => c.path), ["/reset", "/step"]);
});

test("a completed rollout whose close fails keeps its reward and says so in info.cleanup_warning", async () => {
  closeFails = true;
  const answer = await run({ responses_create_params: prompt, reset: { info: { supports_explicit_close: true } }, steps: [ended(1.25, { step_idx: 1 })] });
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json<Item>();
  assert.equal(body.reward, 1.25);
  assert.equal(body.info.step_idx, 1);
  assert.equal(body.info.cleanup_warning.operation, "close");
  assert.equal(typeof body.info.cleanup_warning.error_type, "string");
});

test("a model failure after reset fails the rollout (never a reward) and still closes the environment", async () => {
  modelFails = true;
  const answer = await run({ responses_create_params: prompt, reset: { info: { supports_explicit_close: true } }, steps: [ended(1)] });
  assert.equal(answer.status, 500);
  assert.equal(envCalls.filter((c) => c.path === "/close").length, 1);
});

test("a step the environment fails fails the rollout with a 500 naming the inner failure", async () => {
  const answer = await run({ responses_create_params: prompt, step_fails: true });
  assert.equal(answer.status, 500);
  assert.match(answer.json<string>(), /calling an inner server/);
});

test("a malformed reset answer fails the rollout as an invalid inner answer, after closing the episode it opened", async () => {
  const closed: string[] = [];
  // Not a gymnasiumServer (the library never answers a malformed reset): a hand-written one.
  const broken = resourcesServer({
    name: "BrokenResetEnv",
    tools: {},
    verify: { run: () => 0 },
    routes: (app) => {
      app.post("/reset", async () => ({ observation: { not: "text" }, info: { supports_explicit_close: true } }));
      app.post("/close", async (request) => (closed.push(request.sessionId), { ok: true }));
    },
  });
  const graphWithBroken = await startServers({ env: [broken], policy_model: [model], agent: [gymnasiumAgent, agentFields(3)] });
  try {
    const answer = await client.request(`${graphWithBroken.url("agent")}/run`, { method: "POST", json: { responses_create_params: prompt } });
    assert.equal(answer.status, 500);
    assert.match(answer.headers["x-ng-failure-class"] as string, /invalid_inner_answer/);
  } finally {
    await graphWithBroken.close();
  }
  assert.equal(closed.length, 1);
  assert.equal(modelRequests.length, 0);
});

test("with supports_step_idempotency every /step carries a fresh _ng_step_request_id; without, none", async () => {
  await run({ responses_create_params: prompt, reset: { info: { supports_step_idempotency: true } }, steps: [going("o"), ended(1)] });
  const seen = envCalls.filter((c) => c.path === "/step").map((c) => c.body._ng_step_request_id);
  assert.equal(seen.length, 2);
  assert.ok(seen.every((id) => typeof id === "string" && /^[0-9a-f]{32}$/.test(id)));
  assert.notEqual(seen[0], seen[1]);
  envCalls.length = 0;
  await run({ responses_create_params: prompt, steps: [ended(0)] });
  assert.equal(envCalls.find((c) => c.path === "/step")!.body._ng_step_request_id, undefined);
});

test("a rollout whose caller hangs up stops: no model call after it, and the environment is still closed", async () => {
  const entered = new Promise<void>((resolve) => (stepEntered = resolve));
  const aborted = new Promise<void>((resolve) => (stepAborted = resolve));
  const hangUp = new AbortController();
  const pending = run({ responses_create_params: prompt, reset: { info: { supports_explicit_close: true } }, hang_step: true }, "agent", { signal: hangUp.signal });
  await entered;
  hangUp.abort();
  await assert.rejects(pending);
  await aborted;
  // A whole rollout after it: had the hung one gone on, its calls would show among these.
  const callsOfHungRollout = modelRequests.length;
  await run({ responses_create_params: { input: "after" }, steps: [ended(0)] });
  assert.equal(callsOfHungRollout, 1);
  assert.equal(modelRequests.length, 2);
  assert.equal(envCalls.filter((c) => c.path === "/close").length, 1);
});

test("with observability_enabled the model calls carry the row's <task>-<rollout> id; without, none", async () => {
  const observed = await startServers({ env: [environment], policy_model: [model], agent: [gymnasiumAgent, agentFields(3)] }, { observability_enabled: true });
  try {
    await client.request(`${observed.url("agent")}/run`, { method: "POST", json: { responses_create_params: prompt, steps: [going("o"), ended(1)], _ng_task_index: 4, _ng_rollout_index: 2 } });
  } finally {
    await observed.close();
  }
  assert.deepEqual(modelRequests.map((r) => r.rolloutId), ["4-2", "4-2"]);
  modelRequests.length = 0;
  await run({ responses_create_params: prompt, steps: [ended(1)], _ng_task_index: 4, _ng_rollout_index: 2 });
  assert.deepEqual(modelRequests.map((r) => r.rolloutId), [undefined]);
});

test("/v1/responses proxies one model call; /aggregate_metrics is the environment's", async () => {
  modelTurns.push({ output: [message("hi")] });
  const answer = await client.request(`${graph.url("agent")}/v1/responses`, { method: "POST", json: { input: "hello", temperature: 0.5 } });
  assert.equal(answer.json<Item>().output[0].content[0].text, "hi");
  assert.deepEqual(modelRequests[0]!.body, { input: "hello", temperature: 0.5 });
  const metrics = await client.request(`${graph.url("agent")}/aggregate_metrics`, { method: "POST", json: { verify_responses: [{ reward: 1, _ng_task_index: 0, _ng_rollout_index: 0 }] } });
  assert.equal(metrics.json<{ key_metrics: Record<string, number> }>().key_metrics["mean/reward"], 1);
});

test("whole rollouts with scripted_model: example_multi_turn_gymnasium answers its follow-ups and scores the last turn", async () => {
  const multiTurn = await serverDefinition("resources_servers/example_multi_turn_gymnasium");
  const scripted = await serverDefinition("responses_api_models/scripted_model");
  const e2e = await startServers({
    env: [multiTurn],
    policy_model: [scripted, { mode: "heuristic" }],
    agent: [gymnasiumAgent, { ...agentFields(5) }],
  });
  try {
    const row = { responses_create_params: { input: [{ role: "user", content: "What is 12 plus 30?" }] }, follow_ups: ["Check it once more: is the sum still 42?"], expected_answer: "42" };
    const answer = await client.request(`${e2e.url("agent")}/run`, { method: "POST", json: row });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.deepEqual([body.reward, body.terminated, body.truncated], [1, true, false]);
    assert.deepEqual(body.response.output.map((item: Item) => item.role), ["assistant", "user", "assistant"]);
    assert.equal(body.response.output[1].content, "Check it once more: is the sum still 42?");
    assert.match(body.response.model, /^scripted-/);
    // The same rollout, re-scored by the environment's /verify, gets the same reward.
    const verified = await e2e.client.post("env", "/verify", { json: { ...row, response: body.response } });
    assert.equal(verified.json<Item>().reward, 1);
  } finally {
    await e2e.close();
  }
});

test("whole rollouts with scripted_model: blackjack ends in a bust, a win, a draw or a loss, with its reward", async () => {
  const blackjack = await serverDefinition("resources_servers/blackjack");
  const scripted = await serverDefinition("responses_api_models/scripted_model");
  const e2e = await startServers({ env: [blackjack], policy_model: [scripted, { mode: "heuristic" }], agent: [gymnasiumAgent, { ...agentFields(5) }] });
  try {
    const answer = await client.request(`${e2e.url("agent")}/run`, { method: "POST", json: { responses_create_params: { input: [{ role: "user", content: "Deal." }] } } });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    // The heuristic writes no action tag, so it stands: one step, scored against the dealer.
    assert.equal(body.terminated, true);
    const expected: Record<string, number> = { win: 1, draw: 0, loss: -1 };
    assert.equal(body.reward, expected[body.info.result]);
    assert.match(body.responses_create_params.input[1].content, /^Your hand: \[.+\] = \d+\nDealer shows: /);
  } finally {
    await e2e.close();
  }
});
