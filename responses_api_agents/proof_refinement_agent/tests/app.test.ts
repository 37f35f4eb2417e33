// proof_refinement_agent over real HTTP, rule by rule: a rule-driven model that records every request and a
// scripted environment that answers each verify with math_formal_lean's correction contract (needs_correction,
// correction_prompt, proof_status, error_feedback); then one rollout end to end with scripted_model and proof_judge.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { resourcesServer, responsesApiModel } from "../../../src/server/index.ts";
import { http, type InProcessGraph, readRows, serverDefinition, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultProxy } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import proofRefinement, { generationText } from "../app.ts";

type Item = Record<string, any>;
const ROOT = join(import.meta.dirname, "../../..");
const modelRequests: Item[] = [];
let reply: (body: Item) => string | Promise<string> = () => "proof";
const message = (text: string, id = "msg") => ({ id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const model = responsesApiModel({
  name: "RuleModel",
  config: z.looseObject({}),
  async responses({ rawParams }) {
    const body = structuredClone(rawParams) as Item;
    modelRequests.push(body);
    const index = modelRequests.length;
    const text = await reply(body);
    return {
      id: `resp_${index}`, created_at: index, error: null, incomplete_details: null, instructions: null, metadata: null, model: "rule", object: "response",
      output: [message(text)], parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: [], top_p: null,
      usage: { input_tokens: index, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: index + 1 },
    } as any;
  },
});

/** What each verify answers, in turn (the last one repeats); every verify request is recorded. */
let verdicts: Item[] = [];
const verifyRequests: Item[] = [];
const failing = (n: number) => ({ reward: 0.0, proof_status: "error", needs_correction: true, error_feedback: `error ${n}`, correction_prompt: `Fix error ${n}` });
const passing = { reward: 1.0, proof_status: "completed", needs_correction: false };
const environment = resourcesServer({
  name: "CorrectionResourcesServer",
  tools: {},
  verify: {
    input: z.looseObject({}),
    run: (_state, request) => {
      verifyRequests.push(structuredClone(request) as Item);
      return structuredClone(verdicts[Math.min(verifyRequests.length - 1, verdicts.length - 1)]!) as { reward: number };
    },
  },
});

const proofJudge = await serverDefinition("resources_servers/proof_judge");
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const [proofRow] = readRows(join(ROOT, "resources_servers/proof_judge/data/example.jsonl")) as Item[];
const judgeRules = [
  { match: "^Grade the proof.*Proof: n odd", answer: "Sound. \\boxed{1}" },
  { match: "^Is this self-evaluation", answer: "\\boxed{1}" },
  { match: "rigorous proof", answer: "## Solution\nProof: n odd times m odd is odd.\n## Self Evaluation\nCorrect. \\boxed{1}" },
];

const refs = (resources = "env", modelServer = "policy_model") => ({ resources_server: { type: "resources_servers", name: resources }, model_server: { type: "responses_api_models", name: modelServer } });
let graph: InProcessGraph;
let modelProxy: FaultProxy;
const client = http();
const run = async (instance: string, row: Item) => {
  const answer = await client.request(`${graph.url(instance)}/run`, { method: "POST", json: row });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
};
const row = (params: Item = { input: [{ role: "user", content: "Prove it." }] }) => ({ responses_create_params: params, name: "thm" });

before(async () => {
  graph = await startServers({
    env: [environment],
    policy_model: [model],
    single: [proofRefinement, refs()],
    two: [proofRefinement, { ...refs(), max_correction_turns: 2 }],
    quiet: [proofRefinement, { ...refs(), max_correction_turns: 2, include_all_attempts: false }],
    fragile: [proofRefinement, { ...refs("env", "model_proxy"), max_correction_turns: 2 }],
    judge: [scriptedModel, { mode: "judge_rules", judge_rules: judgeRules }],
    proof_judge: [proofJudge, { judge_model_server: { type: "responses_api_models", name: "judge" }, prompt_templates_dir: join(ROOT, "resources_servers/proof_judge/data/example_prompt_templates") }],
    judged: [proofRefinement, { ...refs("proof_judge", "judge"), max_correction_turns: 2 }],
  });
  modelProxy = await proxyInstance(graph, "policy_model", "model_proxy");
});
after(async () => {
  await modelProxy.close();
  for (const server of Object.values(graph.servers)) server.app.server.closeAllConnections();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  modelRequests.length = 0;
  verifyRequests.length = 0;
  verdicts = [passing];
  reply = () => "proof";
  modelProxy.decide = () => undefined;
});

test("a proof verified on the first turn ends the loop: one attempt, total_turns 1, the verify response as the rollout", async () => {
  const rollout = await run("two", row());
  assert.equal(modelRequests.length, 1);
  assert.equal(rollout.reward, 1.0);
  assert.equal(rollout.proof_status, "completed");
  assert.equal(rollout.total_turns, 1);
  assert.equal(rollout.all_attempts.length, 1);
  assert.deepEqual(Object.keys(rollout.all_attempts[0]), ["turn_index", "input", "response", "generation", "proof_status", "reward", "error_feedback", "correction_prompt"]);
  assert.deepEqual(
    { ...rollout.all_attempts[0], input: undefined, response: undefined },
    { turn_index: 0, input: undefined, response: undefined, generation: "proof", proof_status: "completed", reward: 1.0, error_feedback: null, correction_prompt: null },
  );
  assert.equal(verifyRequests[0]!.turn_index, 0);
  assert.equal(verifyRequests[0]!.name, "thm", "the row's fields go to verify");
});

test("a failed proof with a correction prompt is retried with only that prompt, the row's model, temperature and top_p", async () => {
  verdicts = [failing(1), passing];
  const params = { input: [{ role: "user", content: "Prove it." }], model: "m", temperature: 0.7, top_p: 0.9, max_output_tokens: 50 };
  const rollout = await run("two", row(params));
  assert.deepEqual(modelRequests[0], params, "turn 0: the row's params as sent");
  assert.deepEqual(modelRequests[1], { input: [{ role: "user", content: "Fix error 1" }], model: "m", temperature: 0.7, top_p: 0.9 }, "max_output_tokens does not carry over");
  assert.deepEqual(verifyRequests.map((r) => r.turn_index), [0, 1]);
  assert.deepEqual([rollout.total_turns, rollout.reward], [2, 1.0]);
  assert.deepEqual(rollout.all_attempts[1].input, { input: [{ role: "user", content: "Fix error 1" }], model: "m", temperature: 0.7, top_p: 0.9 });
  assert.deepEqual([rollout.all_attempts[0].error_feedback, rollout.all_attempts[0].correction_prompt], ["error 1", "Fix error 1"]);
  assert.equal(rollout.all_attempts[0].input.max_output_tokens, 50, "turn 0's input as NeMo Gym's params model dumps it");
  assert.equal(rollout.all_attempts[0].input.top_logprobs, null, "every field, unset ones null");

  modelRequests.length = 0;
  verifyRequests.length = 0;
  await run("two", row({ input: "Prove it." }));
  assert.deepEqual(modelRequests[0]!.input, [{ content: "Prove it.", role: "user" }], "a string input is one user message");
  assert.deepEqual(modelRequests[1], { input: [{ role: "user", content: "Fix error 1" }], model: null }, "no model set: null; unset temperature / top_p left out");
});

test("at most max_correction_turns corrections: 1 + max turns, the last verify response is the rollout", async () => {
  verdicts = [failing(1), failing(2), failing(3), passing];
  const rollout = await run("two", row());
  assert.equal(modelRequests.length, 3);
  assert.deepEqual([rollout.total_turns, rollout.reward, rollout.error_feedback], [3, 0.0, "error 3"]);
  assert.equal(rollout.response.id, "resp_3", "the last turn's response, with its own usage only");
  assert.equal(rollout.response.usage.total_tokens, 4);

  modelRequests.length = 0;
  verifyRequests.length = 0;
  assert.equal((await run("single", row())).total_turns, 1, "max_correction_turns 0: a single turn");
});

test("needs_correction without a correction prompt (missing or empty) stops the loop; a falsy needs_correction stops it", async () => {
  for (const verdict of [{ reward: 0, needs_correction: true }, { reward: 0, needs_correction: true, correction_prompt: "" }, { reward: 0, needs_correction: 0, correction_prompt: "Fix" }, { reward: 0, correction_prompt: "Fix" }]) {
    modelRequests.length = 0;
    verifyRequests.length = 0;
    verdicts = [verdict];
    const rollout = await run("two", row());
    assert.equal(rollout.total_turns, 1, JSON.stringify(verdict));
    assert.equal(rollout.all_attempts[0].proof_status, "unknown", "absent proof_status is recorded as unknown");
  }
});

test("include_all_attempts: false leaves all_attempts null", async () => {
  verdicts = [failing(1), passing];
  const rollout = await run("quiet", row());
  assert.deepEqual([rollout.total_turns, rollout.all_attempts], [2, null]);
});

test("generation: the first output_text of each message, the last such message winning", () => {
  const response = {
    output: [
      { type: "message", content: [{ type: "output_text", text: "a" }, { type: "output_text", text: "b" }] },
      { type: "reasoning", content: [{ type: "output_text", text: "r" }] },
      { type: "message", content: [{ type: "refusal", refusal: "no" }] },
      { type: "message", content: [{ type: "output_text", text: "c" }] },
      { type: "message", content: [] },
    ],
  };
  assert.equal(generationText(response), "c");
  assert.equal(generationText({ output: [] }), "");
});

test("a model or verify failure ends the attempt as a typed failure, never a score", async () => {
  verdicts = [failing(1)];
  let calls = 0;
  modelProxy.decide = () => (++calls === 2 ? "unavailable" : undefined);
  const answer = await client.request(`${graph.url("fragile")}/run`, { method: "POST", json: row() });
  assert.equal(answer.status, 500, answer.text);
  assert.equal(answer.headers[FAILURE_CLASS_HEADER], "environment_unavailable");
  assert.equal(verifyRequests.length, 1, "the first turn was verified, the failed second never");
  await assert.rejects(startServers({ env: [environment], agent: [proofRefinement, { ...refs(), skip_verification: true }] }), /config key `skip_verification` is not implemented here/);
});

test("a /run whose caller hangs up starts no further turn", async () => {
  verdicts = [failing(1)];
  let firstAsked!: () => void;
  const asked = new Promise<void>((resolve) => (firstAsked = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  reply = async () => {
    firstAsked();
    await gate;
    return "proof";
  };
  const hangUp = new AbortController();
  const call = client.request(`${graph.url("two")}/run`, { method: "POST", json: row(), signal: hangUp.signal });
  await asked;
  hangUp.abort();
  await assert.rejects(call);
  // Once the hang-up has reached the agent (the closed socket), the model answers; a loop that ignored it would go on.
  await new Promise((resolve) => setTimeout(resolve, 200));
  release();
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(modelRequests.length, 1);
  assert.equal(verifyRequests.length, 0);
});

test("end to end: a proof_judge row with scripted_model as policy and judges, one turn (proof_judge asks for no correction)", async () => {
  const rollout = await run("judged", proofRow);
  assert.equal(rollout.reward, 1.0, JSON.stringify(rollout).slice(0, 500));
  assert.equal(rollout.total_turns, 1);
  assert.match(rollout.all_attempts[0].generation, /^## Solution/);
  assert.equal(rollout.all_attempts[0].proof_status, "unknown");
  assert.match(rollout.response.model, /^scripted-judge_rules/);
  assert.ok(rollout.response.usage.total_tokens > 0);
});
