// tool_simulation_agent over real HTTP: one model call, no tool execution, no session, then /verify — against a
// counting model and a recording environment, and against the real pivot environment.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { responsesApiModel, resourcesServer, tool } from "../../../src/server/index.ts";
import { http, type InProcessGraph, serverDefinition, startServers } from "../../../src/testing/index.ts";
import toolSimulationAgent from "../app.ts";

// Another server folder, loaded by its path as a config names it (a server folder imports only src/).
const pivot = await serverDefinition("resources_servers/single_step_tool_use_with_argument_comparison");

type Item = Record<string, unknown>;
const modelRequests: { body: Record<string, any>; rolloutId: string | undefined }[] = [];
const modelTurns: (Item[] | "invalid")[] = [];
const environmentCalls: string[] = [];

const model = responsesApiModel({
  name: "CountingModel",
  config: z.looseObject({}),
  async responses({ params, rawParams, rolloutId }) {
    modelRequests.push({ body: structuredClone(rawParams) as Record<string, any>, rolloutId });
    const turn = modelTurns.shift() ?? [message("default answer")];
    if (turn === "invalid") return { id: "no_created_at" } as any;
    return { id: `resp_${modelRequests.length}`, created_at: 1, model: "counting", object: "response", output: turn, parallel_tool_calls: params.parallel_tool_calls, tool_choice: "auto", tools: params.tools } as any;
  },
});

const environment = resourcesServer({
  name: "RecordingResourcesServer",
  seed: z.object({}),
  state: () => {
    environmentCalls.push("seed_session");
    return {};
  },
  tools: {
    lookup: tool({ input: z.object({ query: z.string() }), run: () => (environmentCalls.push("lookup"), { result: "tool ran" }) }),
  },
  verify: {
    input: z.object({ expected_name: z.string() }),
    run: (state, { response, expected_name }, { sessionId }) => {
      environmentCalls.push("verify");
      const calls = response.output.filter((item) => item.type === "function_call");
      return { reward: calls.length === 1 && calls[0]!.type === "function_call" && calls[0]!.name === expected_name ? 1 : 0, seeded_state: state !== undefined, session: sessionId, items: response.output.length };
    },
  },
});

const message = (text: string): Item => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const functionCall = (name: string, args: unknown): Item => ({ type: "function_call", call_id: `call_${name}`, name, arguments: JSON.stringify(args), id: `fc_${name}`, status: "completed" });
const refs = (resources: string) => ({ resources_server: { type: "resources_servers", name: resources }, model_server: { type: "responses_api_models", name: "policy_model" } });
const row = { responses_create_params: { input: [{ role: "user", content: "Find the weather tool." }], tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: { query: { type: "string" } } }, strict: false }] }, expected_name: "lookup", note: "kept" };

let graph: InProcessGraph;
const client = http();
const post = (instance: string, path: string, json: unknown) => client.request(`${graph.url(instance)}${path}`, { method: "POST", json });

before(async () => {
  graph = await startServers({
    env: [environment],
    pivot_env: [pivot, { tool_call_comparator_config: { word_count_similarity_threshold: 0.1 } }],
    policy_model: [model],
    agent: [toolSimulationAgent, refs("env")],
    pivot_agent: [toolSimulationAgent, refs("pivot_env")],
    skipping_agent: [toolSimulationAgent, { ...refs("env"), skip_verification: true, skip_verification_reward: 0.5 }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});
beforeEach(() => {
  modelRequests.length = 0;
  modelTurns.length = 0;
  environmentCalls.length = 0;
});

test("/run makes exactly one model call, runs none of its tool calls, then verifies once (no seeded session)", async () => {
  modelTurns.push([message("I will look it up."), functionCall("lookup", { query: "weather" })], [message("never asked for")]);
  const answer = await post("agent", "/run", row);
  assert.equal(answer.status, 200, answer.text);
  const result = answer.json<Record<string, any>>();

  assert.equal(modelRequests.length, 1, "one model call");
  assert.deepEqual(modelRequests[0]!.body, row.responses_create_params, "the row's params, exactly as given");
  assert.deepEqual(environmentCalls, ["verify"], "no /seed_session, no tool call, one /verify");
  assert.equal(result.reward, 1);
  assert.equal(result.seeded_state, false);
  assert.equal(result.items, 2, "the response is the model's own output, no function_call_output added");
  assert.deepEqual(result.response.output.map((item: Item) => item.type), ["message", "function_call"]);
});

test("the verify response is the rollout, with the environment's extra fields", async () => {
  modelTurns.push([message("No tool needed.")]);
  const result = (await post("agent", "/run", row)).json<Record<string, any>>();
  assert.equal(result.reward, 0);
  assert.deepEqual(Object.keys(result), ["responses_create_params", "response", "reward", "seeded_state", "session", "items"]);
});

test("/v1/responses answers the model's response for one call", async () => {
  modelTurns.push([functionCall("lookup", { query: "x" })]);
  const answer = await post("agent", "/v1/responses", row.responses_create_params);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<Record<string, any>>().output[0].name, "lookup");
  assert.equal(modelRequests.length, 1);
  assert.deepEqual(environmentCalls, []);
});

test("an invalid model response fails the call with NeMo Gym's message", async () => {
  modelTurns.push("invalid");
  const answer = await post("agent", "/v1/responses", row.responses_create_params);
  assert.equal(answer.status, 500);
  assert.match(answer.text, /Received an invalid response from the model server: .*no_created_at/);
  modelTurns.push("invalid");
  assert.equal((await post("agent", "/run", row)).status, 500);
  assert.deepEqual(environmentCalls, [], "nothing is verified");
});

test("skip_verification scores every rollout skip_verification_reward without calling /verify", async () => {
  modelTurns.push([message("done")]);
  const answer = await post("skipping_agent", "/run", row);
  assert.equal(answer.status, 200, answer.text);
  const result = answer.json<Record<string, any>>();
  assert.equal(result.reward, 0.5);
  assert.equal(result.verification_skipped, true);
  assert.equal(result.note, "kept", "the row's fields are kept");
  assert.equal(result.responses_create_params.tool_choice, "auto", "params come back as NeMo Gym dumps them");
  assert.equal(result.response.id, "resp_1");
  assert.equal(modelRequests.length, 1);
  assert.deepEqual(environmentCalls, []);
  const metrics = (await post("skipping_agent", "/aggregate_metrics", { verify_responses: [result] })).json();
  assert.deepEqual(metrics, { group_level_metrics: [], agent_metrics: {}, key_metrics: {} }, "no metrics when verify is skipped");
});

test("against the pivot environment: one model call, scored by the argument comparison", async () => {
  const pivotRow = {
    responses_create_params: { input: [{ role: "user", content: "Extend rental R-1042 by 3 days." }] },
    expected_action: { type: "function_call", name: "extend_rental", arguments: '{"rental_id": "R-1042", "extra_days": 3}' },
  };
  modelTurns.push([functionCall("extend_rental", { extra_days: 3, rental_id: "R-1042" })]);
  const matched = (await post("pivot_agent", "/run", pivotRow)).json<Record<string, any>>();
  assert.equal(matched.reward, 1);
  assert.equal(matched.category, "A tool call that matches the expected tool call was found");

  modelTurns.push([functionCall("extend_rental", { extra_days: "3", rental_id: "R-1042" })]);
  const typed = (await post("pivot_agent", "/run", pivotRow)).json<Record<string, any>>();
  assert.equal(typed.reward, 0);
  assert.equal(typed.category, "The type of an argument value in a tool call is different than the expected type");
  assert.equal(modelRequests.length, 2, "one model call per rollout");

  const metrics = (await post("pivot_agent", "/aggregate_metrics", { verify_responses: [{ ...matched, _ng_task_index: 0, _ng_rollout_index: 0 }, { ...typed, _ng_task_index: 0, _ng_rollout_index: 1 }] })).json<Record<string, any>>();
  assert.equal(metrics.agent_metrics["mean/reward"], 0.5);
});

test("with observability on, the model call carries the rollout id", async () => {
  const observed = await startServers(
    { env: [environment], policy_model: [model], agent: [toolSimulationAgent, refs("env")] },
    { observability_enabled: true },
  );
  try {
    await client.request(`${observed.url("agent")}/run`, { method: "POST", json: { ...row, _ng_task_index: 3, _ng_rollout_index: 1 } });
    assert.equal(modelRequests.at(-1)!.rolloutId, "3-1");
  } finally {
    await observed.close();
  }
});
