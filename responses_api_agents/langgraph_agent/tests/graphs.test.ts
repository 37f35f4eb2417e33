// The four LangGraph graphs over real HTTP, rule by rule, against a rule-driven model that records every request,
// then end to end with scripted_model (judge_rules mode as the policy) and the real reasoning_gym environment.
// The prompt texts come from stand-in graph modules written here (our own words, in the shapes of NeMo Gym's
// modules); one test reads NeMo Gym's own modules when a copy is on this machine.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { resourcesServer, responsesApiModel } from "../../../src/server/index.ts";
import { http, type InProcessGraph, readRows, serverDefinition, startServers } from "../../../src/testing/index.ts";
import { proxyInstance, type FaultProxy } from "../../../src/testing/fault-proxy.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import { NEMO_GYM_SERVER_FILE_SHA256 } from "../../../src/config/nemo-gym-files.ts";
import { aggregateResponseUsage } from "../../../src/server/graph-agent.ts";
import orchestrator from "../orchestrator_agent.ts";
import parallelThinking from "../parallel_thinking_agent.ts";
import reflection, { initialState } from "../reflection_agent.ts";
import rewoo from "../rewoo_agent.ts";

const ROOT = join(import.meta.dirname, "../../..");
const dir = mkdtempSync(join(tmpdir(), "langgraph-agent-"));
const module = (name: string, source: string) => {
  const path = join(dir, `${name}.py`);
  writeFileSync(path, source);
  return path;
};
const MODULES = {
  orchestrator: module(
    "orchestrator",
    'DECOMPOSE_PROMPT = """Split into parts. \\\nOne per line.\nProblem: {task}"""\n\nSYNTHESIZE_PROMPT = """Combine for {task}:\n\n{subtask_results}\nEnd."""\n\n\nclass X:\n    async def dispatch(state):\n        prompt = f"Do this part.\\n\\nPart: {subtask}"\n',
  ),
  parallel: module(
    "parallel",
    'DEFAULT_PERSPECTIVE_PROMPTS = [\n    "View one.",\n    "View two.",\n]\n\nAGGREGATE_PROMPT = """{num_paths} paths:\n\n{paths_text}\n\nDecide: {task}"""\n\n\ndef f():\n    while len(prompts) < num_paths:\n        prompts.append(f"Just solve:\\n{task}")\n',
  ),
  reflection: module("reflection", 'def reflect(state):\n    reflection_prompt = NeMoGymEasyInputMessage(\n        role="user", content="What is wrong?"\n    )\n'),
  rewoo: module("rewoo", 'PLAN_PROMPT = """Plan for: {task}"""\n\nSOLVE_PROMPT = """Evidence:\n{plan}Task: {task}\nResponse:"""\n'),
};

type Item = Record<string, any>;
const modelRequests: { body: Item; text: string }[] = [];
/** The test's model: answers each prompt (its messages' texts joined by blank lines) with `reply(text)`. */
let reply: (text: string, body: Item) => string | Promise<string> = () => "no reply set";
let usageOf = (index: number): Item | null => ({ input_tokens: 10 * index, input_tokens_details: { cached_tokens: 1 }, output_tokens: index, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 11 * index });
const message = (text: string, id = "msg") => ({ id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const promptText = (input: Item[]) => input.map((item) => (typeof item.content === "string" ? item.content : JSON.stringify(item.content))).join("\n\n");

const model = responsesApiModel({
  name: "RuleModel",
  config: z.looseObject({}),
  async responses({ params, rawParams }) {
    const body = structuredClone(rawParams) as Item;
    const text = promptText(body.input as Item[]);
    modelRequests.push({ body, text });
    const index = modelRequests.length;
    const answer = await reply(text, body);
    return {
      id: `resp_${index}`, created_at: index, error: null, incomplete_details: null, instructions: null, metadata: null, model: "rule", object: "response",
      output: [message(answer, `msg_${index}`)], parallel_tool_calls: true, temperature: params.temperature ?? null, tool_choice: "auto", tools: [], top_p: null, usage: usageOf(index),
    } as any;
  },
});

const verifyRequests: Item[] = [];
const recorder = resourcesServer({
  name: "RecordingResourcesServer",
  tools: {},
  verify: {
    input: z.looseObject({}),
    run: (_state, request) => {
      verifyRequests.push(structuredClone(request) as Item);
      return { reward: 0.25, seen: "verified" };
    },
  },
});

const reasoningGym = await serverDefinition("resources_servers/reasoning_gym");
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const [knightsRow] = readRows(join(ROOT, "resources_servers/reasoning_gym/data/example.jsonl")) as Item[];
const KNIGHTS_ANSWER = "<answer>Ava is a hero, and Noah is a villain</answer>";
// The scripted policy: a rule per node prompt of the stand-in modules (first match wins).
const policyRules = [
  { match: "^Split into parts", answer: "SUBTASK 1: Is Ava a hero?\nSUBTASK 2: Is Noah a hero?" },
  { match: "^Do this part", answer: "Work it out." },
  { match: "^Combine for", answer: `So: ${KNIGHTS_ANSWER}` },
  { match: "^View (one|two)", answer: "Path thoughts." },
  { match: "^2 paths:", answer: `Agreed: ${KNIGHTS_ANSWER}` },
  { match: "^Plan for", answer: "Plan: check Ava #E1 = LLM[Is Ava truthful?]\nPlan: then Noah #E2 = LLM[Given #E1, is Noah?]" },
  { match: "^Is Ava truthful", answer: "yes" },
  { match: "^Given yes, is Noah", answer: "no" },
  { match: "^Evidence:", answer: KNIGHTS_ANSWER },
  { match: "What is wrong\\?$", answer: "Nothing." },
  { match: "On this island", answer: `First try: ${KNIGHTS_ANSWER}` },
];

const refs = (resources = "recorder", modelServer = "policy_model") => ({ resources_server: { type: "resources_servers", name: resources }, model_server: { type: "responses_api_models", name: modelServer } });

let graph: InProcessGraph;
let modelProxy: FaultProxy;
const client = http();
const post = (instance: string, path: string, json: unknown, options: { deadlineMs?: number } = {}) => client.request(`${graph.url(instance)}${path}`, { method: "POST", json, ...options });
const respond = async (instance: string, json: unknown) => {
  const answer = await post(instance, "/v1/responses", json);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
};
const texts = (response: Item) => (response.output as Item[]).map((item) => item.content[0].text);

before(async () => {
  graph = await startServers({
    recorder: [recorder],
    reasoning_gym: [reasoningGym],
    policy_model: [model],
    scripted: [scriptedModel, { mode: "judge_rules", judge_rules: policyRules }],
    orchestrator: [orchestrator, { ...refs(), prompts_module_fpath: MODULES.orchestrator }],
    orchestrator_two: [orchestrator, { ...refs(), prompts_module_fpath: MODULES.orchestrator, max_subtasks: 2 }],
    parallel: [parallelThinking, { ...refs(), prompts_module_fpath: MODULES.parallel, num_parallel_paths: 3 }],
    parallel_custom: [parallelThinking, { ...refs(), prompts_module_fpath: MODULES.parallel, perspective_prompts: ["A.", "B.", "C."], num_parallel_paths: -1 }],
    reflection: [reflection, { ...refs(), prompts_module_fpath: MODULES.reflection }],
    reflection_long: [reflection, { ...refs(), prompts_module_fpath: MODULES.reflection, max_reflections: 13 }],
    rewoo: [rewoo, { ...refs(), prompts_module_fpath: MODULES.rewoo }],
    fragile: [rewoo, { ...refs("recorder", "model_proxy"), prompts_module_fpath: MODULES.rewoo }],
    no_module: [rewoo, { ...refs(), prompts_module_fpath: join(dir, "absent.py") }],
    rg_orchestrator: [orchestrator, { ...refs("reasoning_gym", "scripted"), prompts_module_fpath: MODULES.orchestrator }],
    rg_parallel: [parallelThinking, { ...refs("reasoning_gym", "scripted"), prompts_module_fpath: MODULES.parallel, num_parallel_paths: 2 }],
    rg_reflection: [reflection, { ...refs("reasoning_gym", "scripted"), prompts_module_fpath: MODULES.reflection }],
    rg_rewoo: [rewoo, { ...refs("reasoning_gym", "scripted"), prompts_module_fpath: MODULES.rewoo }],
  });
  modelProxy = await proxyInstance(graph, "policy_model", "model_proxy");
});
after(async () => {
  await modelProxy.close();
  await graph.close();
  await client.close();
});
beforeEach(() => {
  modelRequests.length = 0;
  verifyRequests.length = 0;
  reply = () => "no reply set";
  modelProxy.decide = () => undefined;
  usageOf = (index) => ({ input_tokens: 10 * index, input_tokens_details: { cached_tokens: 1 }, output_tokens: index, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 11 * index });
});

// ---- orchestrator ----

test("orchestrator: decompose with the task, one dispatch per SUBTASK line (stripped), then synthesize with every result", async () => {
  reply = (text) => (text.startsWith("Split") ? "intro\nSUBTASK 1:   first part  \nSUBTASK 2:\nsecond part\nsubtask 3: not matched" : text.startsWith("Do this part") ? `did ${text.split("Part: ")[1]}` : "<answer>42</answer>");
  const input = [{ role: "system", content: "sys" }, { role: "user", content: "old question" }, { role: "user", content: "Solve {x}" }];
  const response = await respond("orchestrator", { input, temperature: 0.3, max_output_tokens: 99 });
  assert.deepEqual(
    modelRequests.map((r) => r.body.input),
    [
      [{ content: "Split into parts. One per line.\nProblem: Solve {x}", role: "user" }],
      [{ content: "Do this part.\n\nPart: first part", role: "user" }],
      [{ content: "Do this part.\n\nPart: second part", role: "user" }],
      [{ content: "Combine for Solve {x}:\n\n--- Sub-task 1: first part ---\nResult: did first part\n\n--- Sub-task 2: second part ---\nResult: did second part\nEnd.", role: "user" }],
    ],
  );
  for (const request of modelRequests) assert.deepEqual({ t: request.body.temperature, m: request.body.max_output_tokens }, { t: 0.3, m: 99 }, "every call is the request with its input replaced");
  assert.deepEqual(texts(response), ["intro\nSUBTASK 1:   first part  \nSUBTASK 2:\nsecond part\nsubtask 3: not matched", "did first part", "did second part", "<answer>42</answer>"], "every model output, no prompt message");
  assert.equal(response.id, "resp_4", "the last model response carries the output");
});

test("orchestrator: at most max_subtasks are dispatched; an answer without SUBTASK lines dispatches the task itself", async () => {
  reply = (text) => (text.startsWith("Split") ? "SUBTASK 1: a\nSUBTASK 2: b\nSUBTASK 3: c" : "r");
  await respond("orchestrator_two", { input: "T" });
  assert.deepEqual(modelRequests.slice(1, -1).map((r) => r.text), ["Do this part.\n\nPart: a", "Do this part.\n\nPart: b"]);

  modelRequests.length = 0;
  reply = (text) => (text.startsWith("Split") ? "It is simple." : "r");
  await respond("orchestrator", { input: "The task" });
  assert.deepEqual(modelRequests.map((r) => r.text.split("\n")[0]), ["Split into parts. One per line.", "Do this part.", "Combine for The task:"]);
  assert.equal(modelRequests[1]!.text, "Do this part.\n\nPart: The task");
});

test("usage: every call's usage added up field by field, token details included; calls without usage add nothing", async () => {
  reply = (text) => (text.startsWith("Split") ? "SUBTASK 1: a" : "r");
  const response = await respond("orchestrator", { input: "T" });
  assert.deepEqual(response.usage, { input_tokens: 60, input_tokens_details: { cached_tokens: 3 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 6 }, total_tokens: 66 });
  usageOf = () => null;
  assert.equal((await respond("orchestrator", { input: "T" })).usage, null, "no usage at all → null");
  assert.deepEqual(aggregateResponseUsage([{ a: true, b: [1], c: "x", d: null } as any, { a: false, b: [2], c: "y", d: 3 } as any]), { a: false, b: [1, 2], c: "y", d: 3 }, "booleans and strings: the last; lists: joined; nulls skipped");
});

// ---- parallel thinking ----

test("parallel thinking: the perspectives padded with the fill-in to num_parallel_paths, then one aggregate over the paths in order", async () => {
  reply = (text) => (text.startsWith("3 paths") ? "<answer>x</answer>" : `thought on ${text.split("\n")[0]}`);
  const response = await respond("parallel", { input: [{ role: "user", content: "Q?" }] });
  const paths = ["View one.\n\nProblem: Q?", "View two.\n\nProblem: Q?", "Just solve:\nQ?\n\nProblem: Q?"];
  assert.deepEqual(modelRequests.slice(0, 3).map((r) => r.text).sort(), [...paths].sort());
  assert.equal(modelRequests[3]!.text, "3 paths:\n\n--- Path 1 ---\nthought on View one.\n\n--- Path 2 ---\nthought on View two.\n\n--- Path 3 ---\nthought on Just solve:\n\nDecide: Q?");
  assert.deepEqual(texts(response), ["thought on View one.", "thought on View two.", "thought on Just solve:", "<answer>x</answer>"], "outputs in path order, whatever order they finished in");
});

test("parallel thinking: the paths run at once (each waits for all to have been asked)", async () => {
  let release!: () => void;
  const allAsked = new Promise<void>((resolve) => (release = resolve));
  reply = async (text) => {
    if (text.startsWith("3 paths")) return "done";
    if (modelRequests.length === 3) release();
    await allAsked;
    return "p";
  };
  assert.deepEqual(texts(await respond("parallel", { input: "Q" })), ["p", "p", "p", "done"]);
});

test("parallel thinking: perspective_prompts replace the defaults; a negative count slices as Python does; no path at all is refused at start", async () => {
  reply = (text) => (text.startsWith("2 paths") ? "end" : "p");
  await respond("parallel_custom", { input: "Q" });
  assert.deepEqual(modelRequests.slice(0, 2).map((r) => r.text).sort(), ["A.\n\nProblem: Q", "B.\n\nProblem: Q"]);
  await assert.rejects(startServers({ recorder: [recorder], agent: [parallelThinking, { ...refs(), num_parallel_paths: 0 }] }), /num_parallel_paths 0 leaves no reasoning path/);
});

// ---- reflection ----

test("reflection: generate, critique (question appended), generate again with the critique as a user message; stops at <answer>", async () => {
  const answers = ["draft", "it is wrong", "<answer>fixed</answer>"];
  reply = () => answers[modelRequests.length - 1]!;
  const response = await respond("reflection", { input: "Q" });
  assert.deepEqual(
    modelRequests.map((r) => r.body.input),
    [
      [{ content: "Q", role: "user" }],
      [{ content: "Q", role: "user" }, { content: "draft", role: "assistant" }, { content: "What is wrong?", role: "user" }],
      [{ content: "Q", role: "user" }, { content: "draft", role: "assistant" }, { content: "it is wrong", role: "user" }],
    ],
  );
  assert.deepEqual(texts(response), answers, "generations and critiques, not the critique question");
});

test("reflection: at most max_reflections critiques (1 + 2·max_reflections calls) when no <answer> comes", async () => {
  reply = () => "no tags";
  await respond("reflection", { input: "Q" });
  assert.equal(modelRequests.length, 5);
  assert.equal(modelRequests.at(-1)!.body.input.length, 5, "the last generate sees Q, 2 drafts and 2 critiques");
});

test("reflection: input assistant messages with list content and function calls are outputs, not prompts; system messages are dropped", () => {
  const listAssistant = { type: "message", role: "assistant", content: [{ type: "output_text", text: "earlier" }] };
  const call = { type: "function_call", name: "f", arguments: "{}", call_id: "c" };
  const state = initialState([{ role: "system", content: "s" }, { role: "user", content: "u" }, listAssistant, { role: "assistant", content: "said" }, call, { type: "function_call_output", call_id: "c", output: "o" }] as any);
  assert.deepEqual(state.outputs, [listAssistant, call]);
  assert.deepEqual(state.messages, [{ kind: "human", content: "u" }, { kind: "ai", content: "said" }, { kind: "human", content: "" }], "an item without role or content is an empty user message");
});

test("reflection: max_reflections past LangGraph's recursion limit fails after 25 node runs", async () => {
  reply = () => "no tags";
  const answer = await post("reflection_long", "/v1/responses", { input: "Q" });
  assert.equal(answer.status, 500, answer.text);
  assert.match(answer.text, /Recursion limit of 25 reached/);
  assert.equal(modelRequests.length, 25);
});

// ---- ReWOO ----

test("ReWOO: the plan's steps run in order, each prompt its tool input with earlier results substituted; solve gets every step with evidence", async () => {
  reply = (text) =>
    text.startsWith("Plan for")
      ? "Plan: first find a. #E1 = LLM[What is a?]\nPlan: use it #E2 = Search[Double #E1]\nPlan: broken #E3 = LLM(no brackets)"
      : text === "What is a?"
        ? "3"
        : text === "Double 3"
          ? "6"
          : "<answer>6</answer>";
  const response = await respond("rewoo", { input: "Find 2a" });
  assert.deepEqual(modelRequests.map((r) => r.text), [
    "Plan for: Find 2a",
    "What is a?",
    "Double 3",
    "Evidence:\nPlan: first find a. \n#E1 = LLM[What is a?]\nEvidence: 3\n\nPlan: use it \n#E2 = Search[Double 3]\nEvidence: 6\n\nTask: Find 2a\nResponse:",
  ]);
  assert.equal(texts(response).length, 4);
});

test("ReWOO: a plan without steps goes straight to solve; one of 24 steps exceeds the recursion limit", async () => {
  reply = (text) => (text.startsWith("Plan for") ? "no plan" : "s");
  await respond("rewoo", { input: "T" });
  assert.deepEqual(modelRequests.map((r) => r.text), ["Plan for: T", "Evidence:\nTask: T\nResponse:"]);

  modelRequests.length = 0;
  reply = (text) => (text.startsWith("Plan for") ? Array.from({ length: 24 }, (_, i) => `Plan: p #E${i + 1} = LLM[q${i}]`).join("\n") : "s");
  const answer = await post("rewoo", "/v1/responses", { input: "T" });
  assert.equal(answer.status, 500, answer.text);
  assert.equal(modelRequests.length, 25, "plan and 24 workers, never solve");
});

// ---- shared ----

test("/run seeds, runs the graph in the session and returns the verify response of the row plus the graph's response", async () => {
  reply = (text) => (text.startsWith("Plan for") ? "none" : "<answer>a</answer>");
  const answer = await post("rewoo", "/run", { responses_create_params: { input: "T" }, extra_field: 7 });
  assert.equal(answer.status, 200, answer.text);
  const rollout = answer.json<Item>();
  assert.deepEqual([rollout.reward, rollout.seen], [0.25, "verified"], "the environment's verify response, its own fields kept");
  assert.equal(verifyRequests[0]!.extra_field, 7);
  assert.deepEqual(texts(verifyRequests[0]!.response), ["none", "<answer>a</answer>"]);
});

test("a graph whose caller hangs up makes no further model call", async () => {
  let dispatchAsked!: () => void;
  const asked = new Promise<void>((resolve) => (dispatchAsked = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const gatedAnswered = new Promise<void>((resolve) => (answered = resolve));
  reply = async (text) => {
    if (!text.startsWith("Do this part")) return "SUBTASK 1: a\nSUBTASK 2: b";
    dispatchAsked();
    await gate;
    answered();
    return "r";
  };
  const hangUp = new AbortController();
  const call = client.request(`${graph.url("orchestrator")}/v1/responses`, { method: "POST", json: { input: "T" }, signal: hangUp.signal });
  await asked;
  hangUp.abort();
  await assert.rejects(call);
  // The hang-up reaches the agent when the closed socket does (tens of ms on a kept-alive connection); only then does
  // the model answer the pending dispatch, so a graph that ignored it would go on to the second one.
  await new Promise((resolve) => setTimeout(resolve, 200));
  release();
  await gatedAnswered;
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(modelRequests.map((r) => r.text.split("\n")[0]), ["Split into parts. One per line.", "Do this part."], "decompose and the first dispatch only");
});

test("a model that fails ends the attempt as a typed failure; a missing prompts module is a 501 naming it", async () => {
  for (const [fault, failureClass] of [["unavailable", "environment_unavailable"], ["reset_before", "transport"], ["garbage_200", "invalid_inner_answer"]] as const) {
    modelProxy.decide = () => fault;
    const answer = await post("fragile", "/run", { responses_create_params: { input: "T" } });
    assert.equal(answer.status, 500, `${fault}: ${answer.text}`);
    assert.equal(answer.headers[FAILURE_CLASS_HEADER], failureClass, `${fault}: ${answer.text}`);
  }
  assert.equal(verifyRequests.length, 0, "nothing is verified");
  const missing = await post("no_module", "/v1/responses", { input: "T" });
  assert.equal(missing.status, 501, missing.text);
  assert.match(missing.text, /absent\.py does not exist/);
  await assert.rejects(startServers({ recorder: [recorder], agent: [rewoo, { ...refs(), skip_verification: true }] }), /config key `skip_verification` is not implemented here/);
});

test("NeMo Gym's own graph modules: pinned by sha256, and every prompt text reads out of them", { skip: !existsSync("/tmp/ng/responses_api_agents/langgraph_agent") && "no copy of NeMo Gym at /tmp/ng" }, async () => {
  const nemo = (name: string) => `/tmp/ng/responses_api_agents/langgraph_agent/${name}.py`;
  for (const name of ["orchestrator_agent", "parallel_thinking_agent", "reflection_agent", "rewoo_agent"]) {
    assert.equal(createHash("sha256").update(readFileSync(nemo(name))).digest("hex"), NEMO_GYM_SERVER_FILE_SHA256[`responses_api_agents/langgraph_agent/${name}.py`], name);
  }
  const real = await startServers({
    recorder: [recorder],
    policy_model: [model],
    o: [orchestrator, { ...refs(), prompts_module_fpath: nemo("orchestrator_agent") }],
    p: [parallelThinking, { ...refs(), prompts_module_fpath: nemo("parallel_thinking_agent"), num_parallel_paths: 5 }],
    r: [reflection, { ...refs(), prompts_module_fpath: nemo("reflection_agent"), max_reflections: 1 }],
    w: [rewoo, { ...refs(), prompts_module_fpath: nemo("rewoo_agent") }],
  });
  try {
    reply = () => "SUBTASK 1: x";
    for (const agent of ["o", "p", "r", "w"]) assert.equal((await client.request(`${real.url(agent)}/v1/responses`, { method: "POST", json: { input: "TASK" } })).status, 200, agent);
    const prompts = modelRequests.map((r) => r.text);
    assert.match(prompts[0]!, /^Break the following problem into independent sub-tasks[\s\S]*Problem: TASK$/);
    assert.equal(prompts[1], "Solve the following sub-task completely. Show your work.\n\nSub-task: x");
    assert.match(prompts[2]!, /^You decomposed a problem[\s\S]*Original problem: TASK\n\n--- Sub-task 1: x ---\nResult: SUBTASK 1: x\n\n/);
    assert.ok(prompts.includes("Think carefully about this problem and solve it:\nTASK\n\nProblem: TASK"), "the fill-in fifth perspective");
    assert.match(prompts[8]!, /^You were given a problem[\s\S]*Below are the results of 5 independent reasoning paths\./);
    assert.equal(prompts[10], "TASK\n\nSUBTASK 1: x\n\nCritique your solution. What could be wrong?");
    assert.match(prompts[12]!, /^For the following task, make plans[\s\S]*Task: TASK$/);
    assert.match(prompts[13]!, /^Solve the following task or problem\.[\s\S]*Task: TASK\nResponse:$/);
  } finally {
    await real.close();
  }
});

// ---- end to end: scripted_model and reasoning_gym ----

for (const [agent, calls] of [["rg_orchestrator", 4], ["rg_parallel", 3], ["rg_reflection", 1], ["rg_rewoo", 4]] as const) {
  test(`${agent.slice(3)}: a knights-and-knaves row through the graph with scripted_model, scored by reasoning_gym`, async () => {
    const answer = await post(agent, "/run", knightsRow);
    assert.equal(answer.status, 200, answer.text);
    const rollout = answer.json<Item>();
    assert.equal(rollout.reward, 1, JSON.stringify(rollout.extracted_answer));
    assert.equal(rollout.task_name, "knights_knaves");
    assert.equal(rollout.response.output.length, calls, "one output message per model call");
    assert.match(rollout.response.model, /^scripted-judge_rules/);
    assert.equal(rollout.response.usage.total_tokens > 0, true);
  });
}
