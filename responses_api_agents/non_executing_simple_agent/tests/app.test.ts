// non_executing_simple_agent over real HTTP: scripted_model replays a recorded tool call, the real structured_outputs
// environment scores it (structured_outputs_v4's wiring), and a recording environment shows the session: seed, then
// verify in that session, with the model's tool calls unexecuted. Faults go through the fault proxy.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { resourcesServer, tool } from "../../../src/server/index.ts";
import { http, type InProcessGraph, readRows, serverDefinition, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultProxy } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import nonExecutingAgent from "../app.ts";

const structuredOutputs = await serverDefinition("resources_servers/structured_outputs");
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");

const ROOT = join(import.meta.dirname, "../../..");
const toolRow = (readRows(join(ROOT, "resources_servers/structured_outputs/data/example.jsonl")) as Record<string, any>[]).find((row) => row.response_mode === "tool_call")!;
// The same task asked with other words, answered with a payload that breaks the schema.
const wrongRow = structuredClone(toolRow);
wrongRow.responses_create_params.input[1].content += " (second try)";

const call = (name: string, args: unknown, id: string) => ({ type: "function_call", call_id: `call_${id}`, name, arguments: JSON.stringify(args), id: `fc_${id}`, status: "completed" });
const RIGHT = call("record_recipe", { recipe: { name: "Lentil soup", servings: 4, vegetarian: true, steps: ["rinse lentils", "simmer 25 minutes", "season"] } }, "right");
const WRONG = call("record_recipe", { recipe: { name: "Lentil soup", servings: "four" } }, "wrong");
const LOOKUP = call("lookup_reference", { query: "lentils" }, "lookup");
const recorded = (row: Record<string, any>, output: unknown[]) => ({ responses_create_params: { input: row.responses_create_params.input }, response: { output, usage: null } });

const dir = mkdtempSync(join(tmpdir(), "non-executing-agent-"));
const recordings = join(dir, "recordings.jsonl");
writeFileSync(recordings, [recorded(toolRow, [RIGHT]), recorded(wrongRow, [LOOKUP, WRONG])].map((line) => JSON.stringify(line)).join("\n") + "\n");

const environmentCalls: string[] = [];
const recorder = resourcesServer({
  name: "RecordingResourcesServer",
  seed: z.looseObject({}),
  state: () => (environmentCalls.push("seed_session"), { seeded: true }),
  tools: {
    lookup_reference: tool({ input: z.object({ query: z.string() }), run: () => (environmentCalls.push("lookup_reference"), { result: "never" }) }),
    record_recipe: tool({ input: z.looseObject({}), run: () => (environmentCalls.push("record_recipe"), { result: "never" }) }),
  },
  verify: {
    input: z.looseObject({}),
    run: (state, request) => {
      environmentCalls.push("verify");
      return { reward: 1, seeded: state?.seeded === true, output_types: request.response.output.map((item) => item.type), note: (request as Record<string, unknown>).note };
    },
  },
});

const refs = (resources: string, model = "policy_model") => ({ resources_server: { type: "resources_servers", name: resources }, model_server: { type: "responses_api_models", name: model } });

let graph: InProcessGraph;
let modelProxy: FaultProxy;
let envProxy: FaultProxy;
const client = http();
const post = (instance: string, path: string, json: unknown) => client.request(`${graph.url(instance)}${path}`, { method: "POST", json });

before(async () => {
  graph = await startServers({
    structured_outputs: [structuredOutputs],
    recorder: [recorder],
    policy_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: recordings }],
    agent: [nonExecutingAgent, refs("structured_outputs")],
    recorded_agent: [nonExecutingAgent, refs("recorder")],
    fragile_agent: [nonExecutingAgent, refs("recorder_proxy", "model_proxy")],
  });
  modelProxy = await proxyInstance(graph, "policy_model", "model_proxy");
  envProxy = await proxyInstance(graph, "recorder", "recorder_proxy");
});
after(async () => {
  await modelProxy.close();
  await envProxy.close();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  environmentCalls.length = 0;
  modelProxy.decide = () => undefined;
  envProxy.decide = () => undefined;
});

test("structured_outputs_v4's wiring: the model's tool call is the answer, scored by the schema", async () => {
  const right = await post("agent", "/run", toolRow);
  assert.equal(right.status, 200, right.text);
  assert.equal(right.json<Record<string, any>>().reward, 1);
  assert.equal(right.json<Record<string, any>>().tool_name, "record_recipe", "the environment's fields are the rollout's");
  const wrong = (await post("agent", "/run", wrongRow)).json<Record<string, any>>();
  assert.equal(wrong.reward, 0, JSON.stringify(wrong));

  const metrics = (await post("agent", "/aggregate_metrics", { verify_responses: [{ ...right.json<Record<string, any>>(), _ng_task_index: 0, _ng_rollout_index: 0 }, { ...wrong, _ng_task_index: 1, _ng_rollout_index: 0 }] })).json<Record<string, any>>();
  assert.equal(metrics.agent_metrics["mean/reward"], 0.5, "proxied to the environment's /aggregate_metrics");
});

test("seed, one model call, verify in the seeded session; no tool call is run and no tool output added", async () => {
  const answer = await post("recorded_agent", "/run", { ...wrongRow, note: "kept" });
  assert.equal(answer.status, 200, answer.text);
  const result = answer.json<Record<string, any>>();
  assert.deepEqual(environmentCalls, ["seed_session", "verify"]);
  assert.equal(result.seeded, true, "verify ran in the session /seed_session made");
  assert.deepEqual(result.output_types, ["function_call", "function_call"], "both calls, unexecuted, nothing appended");
  assert.equal(result.note, "kept");
});

test("/v1/responses answers the model's response for one call, the row's params as given", async () => {
  const answer = await post("agent", "/v1/responses", toolRow.responses_create_params);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json<Record<string, any>>().output[0].call_id, "call_right");
});

test("answers that are not the servers' own end the attempt as typed failures; the model's own error is a 500; nothing is scored", async () => {
  const cases: [string, () => void, string | undefined][] = [
    ["model 503", () => (modelProxy.decide = () => "unavailable"), "environment_unavailable"],
    ["model reset", () => (modelProxy.decide = () => "reset_before"), "transport"],
    ["model garbage", () => (modelProxy.decide = () => "garbage_200"), "invalid_inner_answer"],
    ["model's own 400", () => (modelProxy.decide = () => ({ status: 400, body: '{"detail":"bad"}', headers: { "content-type": "application/json" } })), undefined],
    ["seed without a session cookie", () => (envProxy.decide = (request) => (request.path === "/seed_session" ? { status: 200, body: "{}", headers: { "content-type": "application/json" } } : undefined)), "invalid_inner_answer"],
    ["verify 504", () => (envProxy.decide = (request) => (request.path === "/verify" ? { status: 504, body: "gateway timeout" } : undefined)), "environment_unavailable"],
    ["verify without a reward", () => (envProxy.decide = (request) => (request.path === "/verify" ? { status: 200, body: '{"reward": null}', headers: { "content-type": "application/json" } } : undefined)), "invalid_inner_answer"],
  ];
  for (const [label, inject, failureClass] of cases) {
    modelProxy.decide = () => undefined;
    envProxy.decide = () => undefined;
    inject();
    const answer = await post("fragile_agent", "/run", toolRow);
    assert.equal(answer.status, 500, `${label}: ${answer.text}`);
    assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, `${label}: ${answer.text}`);
  }
});

test("skip_verification is refused by name (NeMo Gym's run verifies regardless)", async () => {
  await assert.rejects(
    startServers({ recorder: [recorder], agent: [nonExecutingAgent, { ...refs("recorder"), skip_verification: true }] }),
    /config key `skip_verification` is not implemented here \(non_executing_simple_agent always verifies/,
  );
});
