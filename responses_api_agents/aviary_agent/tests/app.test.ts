// aviary_agent's loop, one NeMo Gym rule per test, against the real GSM8K aviary server and a model that answers
// from a script; then a whole rollout with scripted_model, and NeMo Gym's recorded GSM8K rollouts replayed.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineServer, HttpError, responsesApiModel, type ServerDefinition } from "../../../src/server/index.ts";
import { http, readRows, serverDefinition, sharedDataFile, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import { FAILURE_CLASS_HEADER } from "../../../src/protocol/failures.ts";
import agent, { NO_TOOL_CALL_HINT, updateAgentState } from "../app.ts";

const PROBLEMS = join(import.meta.dirname, "../../../resources_servers/aviary/data/gsm8k_problems.jsonl");
type Item = Record<string, any>;

// ---- a model that answers from a script, and records what it was sent ----
type Turn = Item[] | { status: number } | { hang: Promise<void>; entered: () => void } | { output: Item[]; usage: Item };
let script: Turn[] = [];
let sent: Item[] = [];
const fnCall = (name: string, args: Item, id: string) => ({ type: "function_call", call_id: id, name, arguments: JSON.stringify(args), id: `fc_${id}`, status: "completed" });
const message = (text: string) => ({ type: "message", id: "msg", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const scriptedModel = responsesApiModel({
  name: "ScriptModel",
  config: z.looseObject({}),
  async responses({ rawParams }) {
    sent.push(structuredClone(rawParams) as Item);
    const turn = script.shift() ?? assert.fail("the script has no more turns");
    if ("status" in turn) throw new HttpError(turn.status, "scripted failure");
    if ("hang" in turn) {
      turn.entered();
      await turn.hang;
    }
    const output = Array.isArray(turn) ? turn : "output" in turn ? turn.output : [message("late")];
    return { id: `resp_${sent.length}`, created_at: 1, model: "script", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage: "usage" in turn ? turn.usage : null } as any;
  },
});

// The GSM8K server, with a hook telling when an environment is closed.
let closed: (envId: string) => void = () => {};
async function withCloseHook(): Promise<ServerDefinition> {
  const gsm8k = await serverDefinition("resources_servers/aviary", "gsm8k_app.ts");
  return defineServer({
    ...gsm8k,
    async register(app, context) {
      app.addHook("onResponse", async (request) => {
        if (request.url === "/close") closed((request.body as { env_id: string }).env_id);
      });
      await gsm8k.register(app, context);
    },
  });
}

let graph: InProcessGraph;
const refs = { resources_server: { type: "resources_servers", name: "gsm8k" }, model_server: { type: "responses_api_models", name: "policy_model" }, seed_retry_initial_s: 0 };
before(async () => {
  graph = await startServers({
    gsm8k: [await withCloseHook(), { gsm8k_jsonl_fpath: PROBLEMS }],
    policy_model: [scriptedModel, {}],
    agent: [agent, refs],
    agent_max2: [agent, { ...refs, max_steps: 2 }],
    agent_hint: [agent, { ...refs, done_if_no_tool_calls: false, return_transitions: false, max_steps: 3 }],
  });
});
after(() => graph?.close());

const run = (agentName: string, row: Item, signal?: AbortSignal) => graph.client.post(agentName, "/run", { json: row, signal });
const row = (taskIdx: number, input: unknown = []) => ({ task_idx: taskIdx, responses_create_params: { input }, agent_ref: { type: "responses_api_agents", name: "agent" } });
const reset = (turns: Turn[]) => ((script = turns), (sent = []));

test("the model first sees the row's input, then the seed observations, with the environment's tools", async () => {
  reset([[message("no idea")]]);
  const answer = await run("agent", row(0, "Solve it."));
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(sent[0]!.input, [
    { role: "user", content: "Solve it.", type: "message" },
    { content: "Mina reads 15 pages a day for 6 days, then 20 pages on the seventh day. How many pages does she read that week?", role: "user", type: "message" },
  ]);
  assert.deepEqual(sent[0]!.tools.map((t: Item) => t.name), ["calculator", "submit_answer"]);
});

test("function calls go to /step as one action; the loop ends when the environment says done, and verify sums the rewards", async () => {
  reset([[fnCall("calculator", { expr: "15*6+20" }, "c1")], [fnCall("submit_answer", { answer: "110" }, "c2")]]);
  const body = (await run("agent", row(0))).json<Item>();
  assert.equal(body.reward, 1);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1]!.input.slice(-2).map((i: Item) => [i.type, i.call_id, i.output]), [["function_call", "c1", undefined], ["function_call_output", "c1", "110"]]);
});

test("an answer without a tool call ends the rollout (done_if_no_tool_calls, the default): reward 0", async () => {
  reset([[message("It is 110.")]]);
  const body = (await run("agent", row(0))).json<Item>();
  assert.deepEqual([body.reward, sent.length], [0, 1]);
});

test("with done_if_no_tool_calls false the model is told to call a tool, and that hint stays out of the flat output", async () => {
  reset([[message("It is 110.")], [fnCall("submit_answer", { answer: "110" }, "s")]]);
  const body = (await run("agent_hint", row(0))).json<Item>();
  assert.equal(body.reward, 1);
  assert.deepEqual(sent[1]!.input.at(-1), { role: "user", content: NO_TOOL_CALL_HINT, type: "message" });
  assert.equal(body.response.contains_transitions, false);
  assert.deepEqual(body.response.output.map((i: Item) => i.type), ["message", "function_call", "function_call_output"]);
});

test("max_steps stops the loop after that many model calls, done or not", async () => {
  reset([[fnCall("calculator", { expr: "1" }, "a")], [fnCall("calculator", { expr: "2" }, "b")], [fnCall("calculator", { expr: "3" }, "c")]]);
  const body = (await run("agent_max2", row(0))).json<Item>();
  assert.deepEqual([body.reward, sent.length], [0, 2]);
  script = [];
});

test("return_transitions (default): output is the agent state after each step; env_id and group_id = str(task_idx) are reported", async () => {
  reset([[fnCall("calculator", { expr: "2+2" }, "a")], [message("4")]]);
  const { response } = (await run("agent", row(3))).json<Item>();
  assert.equal(response.contains_transitions, true);
  assert.equal(response.group_id, "3");
  assert.match(response.env_id, /^[0-9a-f-]{36}$/);
  assert.equal(response.output.length, 2);
  assert.deepEqual(response.output[0], sent[1]!.input);
  assert.deepEqual(response.output[1].slice(0, -1), sent[1]!.input);
});

test("/v1/responses (and its /ng-rollout/<id> twin) takes the run request and answers the response, without verifying", async () => {
  reset([[message("a")], [message("b")]]);
  for (const path of ["/v1/responses", "/ng-rollout/7-0/v1/responses"]) {
    const answer = await graph.client.post("agent", path, { json: row(2) });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.equal(body.object, "response");
    assert.equal(body.group_id, "2");
    assert.equal(body.reward, undefined);
  }
});

test("usage is the last model response's, as NeMo Gym reports it (not a sum)", async () => {
  const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
  reset([{ output: [fnCall("calculator", { expr: "1" }, "a")], usage: usage(10) }, { output: [message("1")], usage: usage(7) }]);
  const { response } = (await run("agent", row(0))).json<Item>();
  assert.deepEqual(response.usage, usage(7));
});

test("the environment is always closed: after the rollout its env_id no longer steps", async () => {
  reset([[message("done")]]);
  const { response } = (await run("agent", row(0))).json<Item>();
  const step = await graph.client.post("gsm8k", "/step", { json: { env_id: response.env_id, action: [] } });
  assert.equal(step.status, 404);
});

test("a model's own error after the first step ends the loop and verifies what the environment has; before it, the rollout fails", async () => {
  reset([[fnCall("submit_answer", { answer: "nope" }, "a")]]);
  reset([[fnCall("calculator", { expr: "x" }, "a")], { status: 400 }]);
  const afterStep = await run("agent_max2", row(0));
  // The calculator error cost -1 and ended the episode: verify reports it.
  assert.equal(afterStep.json<Item>().reward, -1);
  reset([{ status: 400 }]);
  const first = await run("agent", row(0));
  assert.equal(first.status, 500);
  assert.match(first.text, /Rollout crashed or terminated before first transition completed/);
});

test("a model that is unavailable (503) is a typed failure, never a score", async () => {
  reset([{ status: 503 }]);
  const answer = await run("agent", row(0));
  assert.equal(answer.status, 500);
  assert.equal(answer.headers[FAILURE_CLASS_HEADER], "environment_unavailable");
});

test("a seed that keeps failing is retried three times, then fails the rollout", async () => {
  reset([]);
  const answer = await run("agent", row(99));
  assert.equal(answer.status, 500);
  assert.match(answer.text, /task_idx 99 is out of range/);
  assert.equal(sent.length, 0);
});

test("when the caller hangs up the loop stops: no further model call, and the environment is closed", async () => {
  let release!: () => void;
  let entered!: () => void;
  const inModel = new Promise<void>((resolve) => (entered = resolve));
  const hang = new Promise<void>((resolve) => (release = resolve));
  reset([{ hang, entered }, [message("never asked")]]);
  const wasClosed = new Promise<string>((resolve) => (closed = resolve));
  const caller = new AbortController();
  // Its own client: the aborted connection stays out of the graph's pool.
  const own = http();
  const running = own.request(`${graph.url("agent")}/run`, { method: "POST", json: row(0), signal: caller.signal }).catch((error: Error) => error);
  await inModel;
  caller.abort();
  await running;
  const envId = await wasClosed;
  release();
  await own.close();
  assert.match(envId, /^[0-9a-f-]{36}$/);
  assert.equal(sent.length, 1);
  assert.equal(script.length, 1);
  closed = () => {};
});

test("collapse_old_env_states hides earlier environment-state messages after a successful step only", () => {
  const config = { collapse_old_env_states: true, old_env_state_message: "[hidden]" };
  const state = [{ role: "user", content: "task", type: "message" }, { role: "user", content: "board v1", type: "message", is_env_state: true }];
  const newObs = [{ role: "user", content: "board v2", type: "message", is_env_state: true }];
  const collapsed = updateAgentState(state, [message("m")], newObs, true, config);
  assert.deepEqual(collapsed.map((i) => i.content).slice(0, 2), ["task", "[hidden]"]);
  assert.equal(collapsed.at(-1)!.content, "board v2");
  const kept = updateAgentState(state, [message("m")], [], false, config);
  assert.equal(kept[1]!.content, "board v1");
});

// ---- a whole rollout with scripted_model ----

/** NeMo Gym's transitions recording as scripted_model's replay reads a rollout: the prompt, then every later item. */
function flattened(rollout: Item): Item {
  const transitions = rollout.response.output as Item[][];
  const last = transitions.at(-1)!;
  return { responses_create_params: { input: [last[0]] }, response: { ...rollout.response, output: last.slice(1) } };
}

async function replayGraph(recordings: Item[], problemsFile: string): Promise<InProcessGraph> {
  const dir = mkdtempSync(join(tmpdir(), "aviary-replay-"));
  const replay = join(dir, "replay.jsonl");
  writeFileSync(replay, recordings.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return startServers({
    gsm8k_aviary_resources_server: [await serverDefinition("resources_servers/aviary", "gsm8k_app.ts"), { gsm8k_jsonl_fpath: problemsFile }],
    policy_model: [await serverDefinition("responses_api_models/scripted_model"), { mode: "replay", replay_rollouts_jsonl_fpath: replay }],
    gsm8k_aviary_agent: [agent, { ...refs, resources_server: { type: "resources_servers", name: "gsm8k_aviary_resources_server" }, max_steps: 10 }],
  });
}

test("one full rollout through scripted_model: calculator, then submit_answer, reward 1", async () => {
  const task = "Mina reads 15 pages a day for 6 days, then 20 pages on the seventh day. How many pages does she read that week?";
  const recording = {
    responses_create_params: { input: [{ role: "user", content: task, type: "message" }] },
    response: { model: "own-recording", usage: null, output: [fnCall("calculator", { expr: "15 * 6 + 20" }, "k1"), { type: "function_call_output", call_id: "k1", output: "110" }, fnCall("submit_answer", { answer: "110" }, "k2"), { type: "function_call_output", call_id: "k2", output: "True" }] },
  };
  const replayed = await replayGraph([recording], PROBLEMS);
  try {
    const answer = await replayed.client.post("gsm8k_aviary_agent", "/run", { json: { ...readRows(join(import.meta.dirname, "../../../resources_servers/aviary/data/example.jsonl"))[0], task_idx: 0 } });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.equal(body.reward, 1);
    assert.deepEqual(body.response.output.at(-1).slice(-1)[0], { call_id: "k2", output: "True", type: "function_call_output", id: null, status: null });
  } finally {
    await replayed.close();
  }
});

// ---- NeMo Gym's recorded GSM8K rollouts ----

const recorded = sharedDataFile("aviary/data/example_rollouts.jsonl");
// The GSM8K gold answers of the recorded tasks (openai/gsm8k train rows 1-4 and 6; only task 1's is ever submitted).
const GOLD: Record<number, string> = { 0: "10", 1: "5", 2: "42", 3: "624", 4: "48" };

test("NeMo Gym's five recorded GSM8K rollouts replay to their recorded rewards and tool outputs", { skip: recorded.skip }, async () => {
  const rollouts = readRows(recorded.path!);
  assert.equal(rollouts.length, 5);
  // The source rows of the train split's tasks 0-4 (rows 1-4 and 6; rows 0 and 5 are val, never served).
  const source: Item[] = Array.from({ length: 7 }, () => ({ question: "(a validation row)", answer: "#### 0" }));
  const sourceRow = (taskIdx: number) => (taskIdx < 4 ? taskIdx + 1 : taskIdx + 2);
  for (const r of rollouts) source[sourceRow(r.task_idx)] = { question: r.response.output[0][0].content, answer: `#### ${GOLD[r.task_idx]}` };
  const dir = mkdtempSync(join(tmpdir(), "aviary-gsm8k-"));
  const problems = join(dir, "gsm8k_train.jsonl");
  writeFileSync(problems, source.map((s) => JSON.stringify(s)).join("\n") + "\n");
  const replayed = await replayGraph(rollouts.map(flattened), problems);
  const table: string[] = [];
  try {
    for (const stored of rollouts) {
      const answer = await replayed.client.post("gsm8k_aviary_agent", "/run", { json: { task_idx: stored.task_idx, responses_create_params: { input: [] }, agent_ref: stored.agent_ref } });
      assert.equal(answer.status, 200, answer.text);
      const ours = answer.json<Item>();
      const storedLast = stored.response.output.at(-1) as Item[];
      const oursLast = ours.response.output.at(-1) as Item[];
      const outputs = (items: Item[]) => items.filter((i) => i.type === "function_call_output").map((i) => i.output);
      table.push(`task ${stored.task_idx}: stored ${stored.reward} → ours ${ours.reward}; transitions ${stored.response.output.length} → ${ours.response.output.length}; tool outputs ${JSON.stringify(outputs(storedLast))} → ${JSON.stringify(outputs(oursLast))}`);
      assert.equal(ours.reward, stored.reward, table.join("\n"));
      assert.equal(ours.response.output.length, stored.response.output.length, table.join("\n"));
      assert.deepEqual(outputs(oursLast), outputs(storedLast), table.join("\n"));
      assert.deepEqual(ours.response.tools, stored.response.tools);
    }
  } finally {
    await replayed.close();
  }
  console.log(table.join("\n"));
});

test("a HotPotQA rollout through scripted_model: search, lookup, submit_answer against the Wikipedia fixture, reward 1", async () => {
  const data = join(import.meta.dirname, "../../../resources_servers/aviary/data");
  const question = "Question: Which river flows through the city where the Harbor Bridge of Lumeria was built?";
  const recording = {
    responses_create_params: { input: [{ role: "user", content: question, type: "message" }] },
    response: {
      model: "own-recording",
      usage: null,
      output: [
        fnCall("search", { entity: "Harbor Bridge of Lumeria" }, "h1"),
        { type: "function_call_output", call_id: "h1", output: "…" },
        fnCall("lookup", { keyword: "river" }, "h2"),
        { type: "function_call_output", call_id: "h2", output: "…" },
        fnCall("submit_answer", { answer: "the Silver River" }, "h3"),
        { type: "function_call_output", call_id: "h3", output: "Finished." },
      ],
    },
  };
  const dir = mkdtempSync(join(tmpdir(), "aviary-hotpotqa-"));
  const replay = join(dir, "replay.jsonl");
  writeFileSync(replay, JSON.stringify(recording) + "\n");
  const hotpot = await startServers({
    hotpotqa: [await serverDefinition("resources_servers/aviary", "hotpotqa_app.ts"), { hotpotqa_jsonl_fpath: join(data, "hotpotqa_example_questions.jsonl"), wikipedia_fixture_jsonl_fpath: join(data, "wikipedia_fixture.jsonl") }],
    policy_model: [await serverDefinition("responses_api_models/scripted_model"), { mode: "replay", replay_rollouts_jsonl_fpath: replay }],
    hotpotqa_aviary_agent: [agent, { ...refs, resources_server: { type: "resources_servers", name: "hotpotqa" }, return_transitions: false }],
  });
  try {
    const answer = await hotpot.client.post("hotpotqa_aviary_agent", "/run", { json: readRows(join(data, "hotpotqa_example.jsonl"))[0] });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.equal(body.reward, 1);
    const outputs = body.response.output.filter((i: Item) => i.type === "function_call_output").map((i: Item) => i.output);
    assert.deepEqual(outputs.slice(1), ["(Result 1 / 1) Port Vell is a city on the Silver River. The river reaches the sea at the harbour.", "Finished."]);
  } finally {
    await hotpot.close();
  }
});
