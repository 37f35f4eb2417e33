// simple_agent's loop, rule by rule, over real HTTP against a queue-driven model and a recording environment.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel, resourcesServer, tool } from "../../../src/server/index.ts";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import simpleAgent from "../app.ts";

type Item = Record<string, unknown>;
type Turn = { output: Item[]; usage?: unknown; incomplete_details?: unknown };
const modelTurns: Turn[] = [];
const modelRequests: { body: Record<string, any>; sessionId: string; rolloutId: string | undefined }[] = [];
const toolCalls: { name: string; args: unknown; cookie: string | undefined }[] = [];

const model = responsesApiModel({
  name: "QueueModel",
  config: z.looseObject({}),
  async responses({ params, rawParams, sessionId, rolloutId }) {
    modelRequests.push({ body: structuredClone(rawParams) as Record<string, any>, sessionId, rolloutId });
    const turn = modelTurns.shift() ?? ruleTurn(rawParams.input as Item[]);
    return {
      id: `resp_${modelRequests.length}`, created_at: 1, error: null, incomplete_details: turn.incomplete_details ?? null, instructions: null, metadata: null,
      model: "queue", object: "response", output: turn.output, parallel_tool_calls: params.parallel_tool_calls, temperature: null, tool_choice: "auto",
      tools: params.tools, top_p: null, usage: turn.usage ?? null,
    } as any;
  },
});

const environment = resourcesServer({
  name: "RecordingResourcesServer",
  seed: z.object({ start: z.number().default(0) }),
  state: (seed) => ({ value: seed?.start ?? 0 }),
  tools: {
    add: tool({
      input: z.object({ amount: z.number() }),
      run: (state: { value: number }, { amount }, { sessionId }) => {
        toolCalls.push({ name: "add", args: { amount }, cookie: sessionId });
        state.value += amount;
        return { value: state.value };
      },
    }),
  },
  verify: { input: z.object({ expected: z.number() }), run: (state, { expected }) => ({ reward: state?.value === expected ? 1 : 0, final_value: state?.value ?? null }) },
});

/** Without queued turns: "add N" → call add(N) once, then answer. Lets concurrent rollouts run independently. */
function ruleTurn(input: Item[]): Turn {
  if (input[0]?.content === "think forever") return { output: [{ id: "rs_x", type: "reasoning", summary: [{ type: "summary_text", text: "hmm" }] }] };
  if (input.at(-1)?.type === "function_call_output") return { output: [message("done")] };
  const amount = Number(/add (\d+)/.exec(String(input[0]?.content))?.[1]);
  if (Number.isNaN(amount)) throw new Error("the test gave the model no turn for this input");
  return { output: [call("add", { amount })] };
}

let graph: InProcessGraph;
const client = http();
const call = (name: string, args: unknown, id = `call_${name}_${JSON.stringify(args)}`) => ({ type: "function_call", name, arguments: typeof args === "string" ? args : JSON.stringify(args), call_id: id, id: `fc_${id}`, status: "completed" });
const message = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const usage = (input: number, output: number) => ({ input_tokens: input, input_tokens_details: { cached_tokens: 5 }, output_tokens: output, output_tokens_details: { reasoning_tokens: 7 }, total_tokens: input + output });

before(async () => {
  graph = await startServers(
    {
      env: [environment],
      policy_model: [model],
      agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } }],
      skipping_agent: [
        simpleAgent,
        { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" }, skip_verification: true, skip_verification_reward: 0.5 },
      ],
    },
  );
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  modelTurns.length = 0;
  modelRequests.length = 0;
  toolCalls.length = 0;
});

const responses = (body: unknown, cookies?: Record<string, string>) => client.request(`${graph.url("agent")}/v1/responses`, { method: "POST", json: body, cookies });
const run = (row: unknown) => client.request(`${graph.url("agent")}/run`, { method: "POST", json: row });

test("a string input becomes one user message and only the fields the caller set are forwarded", async () => {
  modelTurns.push({ output: [message("hello")] });
  const answer = await responses({ input: "hi there", temperature: 0.5 });
  assert.equal(answer.status, 200);
  assert.deepEqual(modelRequests[0]!.body, { input: [{ role: "user", content: "hi there", type: "message" }], temperature: 0.5 });
  const body = answer.json<Record<string, any>>();
  assert.deepEqual(body.output.map((o: Item) => o.type), ["message"]);
  assert.equal(body.id, "resp_1");
});

test("tool calls run in order against the resources server and their outputs are fed back", async () => {
  modelTurns.push({ output: [call("add", { amount: 2 }), call("add", { amount: 3 })] }, { output: [message("done")] });
  const answer = await responses({ input: "add things" });
  const output = answer.json<{ output: Item[] }>().output;
  assert.deepEqual(output.map((o) => o.type), ["function_call", "function_call", "function_call_output", "function_call_output", "message"]);
  assert.equal(output[2]!.output, '{"value":2}');
  assert.equal(output[3]!.output, '{"value":5}');
  assert.deepEqual(toolCalls.map((c) => c.args), [{ amount: 2 }, { amount: 3 }]);
  // the second model call sees the original input plus everything produced so far
  assert.equal(modelRequests[1]!.body.input.length, 1 + 4);
});

test("malformed tool-call arguments skip the tool and feed back NeMo Gym's error text; the loop goes on", async () => {
  modelTurns.push({ output: [call("add", "{not json", "call_bad")] }, { output: [message("sorry")] });
  const output = (await responses({ input: "x" })).json<{ output: Item[] }>().output;
  assert.equal(toolCalls.length, 0);
  assert.deepEqual(output[1], {
    call_id: "call_bad",
    output: `{"error": "Invalid tool call arguments: JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 2 (char 1)')"}`,
    type: "function_call_output",
    id: null,
    status: null,
  });
  assert.equal(modelRequests.length, 2);
});

test("tool errors (unknown tool, invalid arguments) are fed back verbatim, not raised", async () => {
  modelTurns.push({ output: [call("nope", {}), call("add", { amount: "x" })] }, { output: [message("ok")] });
  const output = (await responses({ input: "x" })).json<{ output: Item[] }>().output;
  assert.equal(output[2]!.output, '{"detail":"Not Found"}');
  assert.match(String(output[3]!.output), /^\{"detail":\[\{"type":"float_parsing","loc":\["body","amount"\],"msg":"Input should be a valid number, unable to parse string as a number"/);
});

test("a reasoning-only turn continues the loop and the reasoning item is sent back without status", async () => {
  modelTurns.push({ output: [{ id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }], status: "completed" }] }, { output: [message("answer")] });
  const output = (await responses({ input: "x" })).json<{ output: Item[] }>().output;
  assert.equal(modelRequests.length, 2);
  assert.deepEqual(output.map((o) => o.type), ["reasoning", "message"]);
  const echoed = modelRequests[1]!.body.input[1];
  assert.equal(echoed.type, "reasoning");
  assert.equal("status" in echoed, false);
});

test("incomplete_details stops the loop even with pending tool calls, and is returned", async () => {
  modelTurns.push({ output: [call("add", { amount: 1 })], incomplete_details: { reason: "max_output_tokens" } });
  const body = (await responses({ input: "x" })).json<Record<string, any>>();
  assert.deepEqual(body.incomplete_details, { reason: "max_output_tokens" });
  assert.equal(toolCalls.length, 0);
  assert.equal(modelRequests.length, 1);
});

test("usage: the first is kept, later ones add their counts and zero the details; a null usage is skipped", async () => {
  modelTurns.push({ output: [call("add", { amount: 1 })], usage: usage(1, 100) }, { output: [call("add", { amount: 1 })] }, { output: [message("x")], usage: usage(100, 1) });
  const body = (await responses({ input: "x" })).json<Record<string, any>>();
  assert.deepEqual(body.usage, { input_tokens: 101, input_tokens_details: { cached_tokens: 0 }, output_tokens: 101, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 202 });
});

test("a single model call keeps its usage details untouched", async () => {
  modelTurns.push({ output: [message("x")], usage: usage(3, 4) });
  const body = (await responses({ input: "x" })).json<Record<string, any>>();
  assert.deepEqual(body.usage, usage(3, 4));
});

test("max_steps stops the loop after that many model calls", async () => {
  const limited = await startServers({
    env: [environment],
    policy_model: [model],
    agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 2 }],
  });
  try {
    modelTurns.push({ output: [call("add", { amount: 1 })] }, { output: [call("add", { amount: 1 })] }, { output: [message("never")] });
    const answer = await client.request(`${limited.url("agent")}/v1/responses`, { method: "POST", json: { input: "x" } });
    assert.equal(modelRequests.length, 2);
    assert.equal(answer.json<{ output: Item[] }>().output.at(-1)!.type, "function_call_output");
  } finally {
    await limited.close();
  }
});

test("/run seeds with the whole row, loops in that session, verifies, and keeps the environment's extra fields", async () => {
  modelTurns.push({ output: [call("add", { amount: 4 })] }, { output: [message("4 added")] });
  const answer = await run({ responses_create_params: { input: "add 4" }, start: 10, expected: 14, _ng_task_index: 3, agent_ref: { name: "agent" } });
  assert.equal(answer.status, 200);
  const body = answer.json<Record<string, any>>();
  assert.equal(body.reward, 1);
  assert.equal(body.final_value, 14);
  assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", "final_value"]);
  assert.deepEqual(body.response.output.map((o: Item) => o.type), ["function_call", "function_call_output", "message"]);
  assert.match(answer.text, /"reward":1\.0/);
});

test("skip_verification: the rollout runs in its seeded session, is scored skip_verification_reward without /verify, and has no metrics", async () => {
  modelTurns.push({ output: [call("add", { amount: 4 })] }, { output: [message("4 added")] });
  const answer = await client.request(`${graph.url("skipping_agent")}/run`, { method: "POST", json: { responses_create_params: { input: "add 4" }, start: 10, expected: 14, note: "kept" } });
  assert.equal(answer.status, 200, answer.text);
  const body = answer.json<Record<string, any>>();
  assert.equal(body.reward, 0.5, "not the environment's reward (1)");
  assert.equal(body.verification_skipped, true);
  assert.equal(body.final_value, undefined, "no /verify answer");
  assert.equal(body.note, "kept", "the row's fields are kept");
  assert.equal(body.responses_create_params.tool_choice, "auto", "params come back as NeMo Gym dumps them");
  assert.deepEqual(body.response.output.map((o: Item) => o.type), ["function_call", "function_call_output", "message"]);
  assert.deepEqual(toolCalls.map((c) => c.args), [{ amount: 4 }], "the tool ran in the seeded session");
  const metrics = (await client.request(`${graph.url("skipping_agent")}/aggregate_metrics`, { method: "POST", json: { verify_responses: [body] } })).json();
  assert.deepEqual(metrics, { group_level_metrics: [], agent_metrics: {}, key_metrics: {} });
});

test("concurrent /run calls keep their sessions apart", async () => {
  const rows = Array.from({ length: 20 }, (_, n) => ({ responses_create_params: { input: `add ${n}` }, start: n * 100, expected: n * 100 + n }));
  const answers = await Promise.all(rows.map(run));
  assert.deepEqual(answers.map((a) => a.json<{ final_value: number }>().final_value), rows.map((r) => r.expected));
  assert.deepEqual(answers.map((a) => a.json<{ reward: number }>().reward), rows.map(() => 1));
});

test("the first model call carries no model cookie; later calls forward the model's own session cookie", async () => {
  modelTurns.push({ output: [call("add", { amount: 1 })] }, { output: [message("a")] }, { output: [message("b")] });
  await responses({ input: "first" });
  await responses({ input: "second" });
  assert.equal(modelRequests[1]!.sessionId, modelRequests[0]!.sessionId);
  assert.notEqual(modelRequests[2]!.sessionId, modelRequests[0]!.sessionId);
});

test("/run rejects a row whose responses_create_params has unknown keys (422 naming the key)", async () => {
  const answer = await run({ responses_create_params: { input: "x", conversation: "c1" } });
  assert.equal(answer.status, 422);
  assert.deepEqual(answer.json<{ detail: { loc: unknown[] }[] }>().detail[0]!.loc, ["body", "responses_create_params", "conversation"]);
});

test("/run fails with a 500 naming the inner failure when the model server errors", async () => {
  const answer = await run({ responses_create_params: { input: "x" }, expected: 0 });
  assert.equal(answer.status, 500);
  assert.match(answer.json<string>(), /^Hit an exception in SimpleAgent___agent calling an inner server: b'/);
});

test("/aggregate_metrics is proxied to the resources server", async () => {
  const answer = await client.request(`${graph.url("agent")}/aggregate_metrics`, { method: "POST", json: { verify_responses: [{ reward: 1, _ng_task_index: 0, _ng_rollout_index: 0 }] } });
  assert.equal(answer.status, 200);
  assert.equal(answer.json<{ key_metrics: Record<string, number> }>().key_metrics["mean/reward"], 1);
});

test("a loop whose caller hangs up stops calling the model (NeMo Gym's would think forever)", async () => {
  await assert.rejects(client.request(`${graph.url("agent")}/v1/responses`, { method: "POST", json: { input: "think forever" }, deadlineMs: 300 }), /no complete answer within 300 ms/);
  await new Promise((r) => setTimeout(r, 200));
  const callsAfterHangUp = modelRequests.length;
  assert.ok(callsAfterHangUp > 1, "the loop did run");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(modelRequests.length, callsAfterHangUp);
});

test("a call on the /ng-rollout/<id> twin carries the id to every model call", async () => {
  modelTurns.push({ output: [call("add", { amount: 1 })] }, { output: [message("ok")] });
  const answer = await client.request(`${graph.url("agent")}/ng-rollout/7-0/v1/responses`, { method: "POST", json: { input: "x" } });
  assert.equal(answer.status, 200);
  assert.deepEqual(modelRequests.map((r) => r.rolloutId), ["7-0", "7-0"]);
});

test("with observability_enabled, /run prefixes its model calls with <task>-<rollout>[-a<attempt>]; without, it does not", async () => {
  const observed = await startServers(
    {
      env: [environment],
      policy_model: [model],
      agent: [simpleAgent, { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" } }],
      skipping_agent: [
        simpleAgent,
        { resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy_model" }, skip_verification: true, skip_verification_reward: 0.5 },
      ],
    },
    { observability_enabled: true },
  );
  try {
    const row = { responses_create_params: { input: "add 2" }, expected: 2, _ng_task_index: 4, _ng_rollout_index: 1, _ng_attempt_index: 2 };
    assert.equal((await client.request(`${observed.url("agent")}/run`, { method: "POST", json: row })).status, 200);
    assert.deepEqual(modelRequests.map((r) => r.rolloutId), ["4-1-a2", "4-1-a2"]);
  } finally {
    await observed.close();
  }
  modelRequests.length = 0;
  await run({ responses_create_params: { input: "add 2" }, expected: 2, _ng_task_index: 4, _ng_rollout_index: 1 });
  assert.deepEqual(modelRequests.map((r) => r.rolloutId), [undefined, undefined]);
});
