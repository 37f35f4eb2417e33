// scripted_model in `replay` mode over real HTTP: recorded rollouts played back turn by turn, from small
// recordings written here and, when present, NeMo Gym's reference rollouts of the example environments.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { http, type InProcessGraph, readRows, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import scriptedModel from "../app.ts";
import { converse, messageTextOf, type Item } from "./helpers.ts";

const usage = (input: number, cached: number, output: number, reasoning: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: reasoning },
  total_tokens: input + output,
});
const call = (name: string, args: unknown, callId: string) => ({ arguments: JSON.stringify(args), call_id: callId, name, type: "function_call", id: `fc_${callId}`, status: "completed" });
const toolOutput = (callId: string, output: unknown) => ({ call_id: callId, output: JSON.stringify(output), type: "function_call_output" });
const message = (id: string, text: string) => ({ id, content: [{ annotations: [], text, type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" });
const rollout = (input: unknown, output: Item[], recordedUsage: unknown, reward = 1) => ({
  responses_create_params: { input, tools: [] },
  response: { id: "resp_rec", created_at: 1, model: "gpt-4.1-2025-04-14", object: "response", output, parallel_tool_calls: true, tool_choice: "auto", tools: [], usage: recordedUsage },
  reward,
});

// A counter rollout: a reasoning item and two parallel calls, then a read, then the answer.
const COUNTER_PROMPT = [
  { role: "developer", content: "You keep a counter." },
  { role: "user", content: "add 1 and 2, then read the counter" },
];
const COUNTER_OUTPUT = [
  { id: "rs_c", summary: [{ text: "Two adds, then a read.", type: "summary_text" }], type: "reasoning" },
  call("increment_counter", { count: 1 }, "call_c1"),
  call("increment_counter", { count: 2 }, "call_c2"),
  toolOutput("call_c1", { success: true }),
  toolOutput("call_c2", { success: true }),
  call("get_counter_value", {}, "call_c3"),
  toolOutput("call_c3", { count: 3 }),
  message("msg_c", "The counter reads 3."),
];
const COUNTER_USAGE = usage(300, 64, 40, 8);
// Two recordings of one prompt (num_repeats = 2).
const COLOUR_PROMPT = [{ role: "user", content: "pick a colour" }];
const RED: Item[] = [call("pick", { colour: "red" }, "call_red"), toolOutput("call_red", { ok: true }), message("msg_red", "red it is")];
const BLUE: Item[] = [call("pick", { colour: "blue" }, "call_blue"), toolOutput("call_blue", { ok: true }), message("msg_blue", "blue it is")];
// A string prompt, and a prompt whose history already holds a tool call.
const GREETING = [message("msg_hi", "General Kenobi.")];
const HISTORY_PROMPT = [
  { role: "user", content: "what is 2+2?" },
  call("calc", { expr: "2+2" }, "call_h0"),
  toolOutput("call_h0", 4),
  { role: "user", content: "and doubled?" },
];

// A Gymnasium-style rollout: gymnasium_agent appends each observation as a user message, no tool calls.
const GAME_PROMPT = [{ role: "user", content: "play the game" }];
const observation = (text: string) => ({ role: "user", content: text, type: "message" });
const GAME_OUTPUT: Item[] = [message("msg_g1", "<action>Left</action>"), observation("board 1"), message("msg_g2", "<action>Down</action><action>Down</action>"), observation("board 2"), message("msg_g3", "<action>Right</action>")];
const GAME_USAGE = usage(50, 0, 9, 0);

const dir = mkdtempSync(join(tmpdir(), "scripted-replay-"));
const fileA = join(dir, "a.jsonl");
const fileB = join(dir, "b.jsonl");
writeFileSync(fileA, [rollout(COUNTER_PROMPT, COUNTER_OUTPUT, COUNTER_USAGE), rollout(COLOUR_PROMPT, RED, usage(10, 0, 3, 0))].map((r) => JSON.stringify(r)).join("\n") + "\n\n");
writeFileSync(
  fileB,
  [rollout(COLOUR_PROMPT, BLUE, usage(10, 0, 4, 0)), rollout("hello there", GREETING, usage(5, 0, 2, 0)), rollout(GAME_PROMPT, GAME_OUTPUT, GAME_USAGE), rollout(HISTORY_PROMPT, [message("msg_h", "8")], usage(20, 0, 1, 0))]
    .map((r) => JSON.stringify(r))
    .join("\r\n"),
);

let graph: InProcessGraph;
const client = http();
const responsesUrl = () => `${graph.url("policy_model")}/v1/responses`;
const respond = (body: unknown) => client.request(responsesUrl(), { method: "POST", json: body });

before(async () => (graph = await startServers({ policy_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: [fileA, fileB] }] })));
after(async () => {
  await graph.close();
  await client.close();
});

/** simple_agent's usage accumulation (§4.3 step 4). */
function agentUsageSum(usages: any[]) {
  let total: any = null;
  for (const u of usages.filter((x) => x !== null)) {
    if (total === null) total = structuredClone(u);
    else {
      for (const key of ["input_tokens", "output_tokens", "total_tokens"]) total[key] += u[key];
      total.input_tokens_details.cached_tokens = 0;
      total.output_tokens_details.reasoning_tokens = 0;
    }
  }
  return total;
}

test("a recorded multi-turn rollout is played back turn by turn, its parallel calls in one turn, tool outputs not compared by bytes", async () => {
  const turns = await converse(client, responsesUrl(), { input: COUNTER_PROMPT }, (name) => (name === "get_counter_value" ? { count: 3, note: "ours" } : { success: true, ours: 1 }));
  assert.deepEqual(
    turns.map((turn) => turn.status),
    [200, 200, 200],
  );
  assert.deepEqual(turns[0]!.body.output, COUNTER_OUTPUT.slice(0, 3));
  assert.deepEqual(turns[1]!.body.output, [COUNTER_OUTPUT[5]]);
  assert.deepEqual(turns[2]!.body.output, [COUNTER_OUTPUT[7]]);
  assert.ok(turns.every((turn) => turn.body.model === "scripted-replay(gpt-4.1-2025-04-14)"));
});

test("usage is null until the final turn, which carries the recorded total, so the agent's sum equals the recording", async () => {
  const turns = await converse(client, responsesUrl(), { input: COUNTER_PROMPT }, () => ({ ok: true }));
  const usages = turns.map((turn) => turn.body.usage);
  assert.deepEqual(usages, [null, null, COUNTER_USAGE]);
  assert.deepEqual(agentUsageSum(usages), COUNTER_USAGE);
});

test("several recordings of one prompt are dealt round-robin on the first turn; each conversation then follows its own recording", async () => {
  const firstTurns = [];
  for (let i = 0; i < 4; i++) firstTurns.push((await respond({ input: COLOUR_PROMPT })).json<any>().output);
  assert.deepEqual(
    firstTurns.map((output) => output[0].call_id),
    ["call_red", "call_blue", "call_red", "call_blue"],
  );
  for (const recording of [BLUE, RED]) {
    const next = await respond({ input: [...COLOUR_PROMPT, recording[0], toolOutput(recording[0]!.call_id as string, "whatever")] });
    assert.deepEqual(next.json<any>().output, [recording[2]]);
  }
});

test("a Gymnasium-style recording ends each model turn at the next observation (a user message), whose text is ours to differ", async () => {
  const first = (await respond({ input: GAME_PROMPT })).json<any>();
  assert.deepEqual([first.output, first.usage], [[GAME_OUTPUT[0]], null]);
  const second = (await respond({ input: [...GAME_PROMPT, GAME_OUTPUT[0], observation("our board 1")] })).json<any>();
  assert.deepEqual([second.output, second.usage], [[GAME_OUTPUT[2]], null]);
  const last = (await respond({ input: [...GAME_PROMPT, ...GAME_OUTPUT.slice(0, 3), observation("our board 2")] })).json<any>();
  assert.deepEqual([last.output, last.usage], [[GAME_OUTPUT[4]], GAME_USAGE]);
});

test("a string prompt matches the same text sent as a string, as a message, or as input_text parts", async () => {
  const inputs = ["hello there", [{ role: "user", content: "hello there" }], [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello there" }] }]];
  for (const input of inputs) {
    const answer = await respond({ input });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json<any>().output, GREETING);
    assert.deepEqual(answer.json<any>().usage, usage(5, 0, 2, 0));
  }
});

test("a prompt whose history already holds tool calls is matched too", async () => {
  const answer = await respond({ input: HISTORY_PROMPT });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(messageTextOf(answer.json<any>().output[0]), "8");
});

test("a conversation no recording continues is a 404 whose message says so and quotes the prompt", async () => {
  const unknown = await respond({ input: [{ role: "user", content: "never recorded" }] });
  assert.equal(unknown.status, 404);
  assert.match(unknown.json<any>().detail, /^scripted_model \(replay\): no recorded rollout continues this conversation .*"never recorded"/);

  const otherSystemPrompt = await respond({ input: [{ role: "developer", content: "Another system prompt." }, COUNTER_PROMPT[1]] });
  assert.equal(otherSystemPrompt.status, 404, "the whole prompt is compared, not only the user message");

  const offScript = await respond({ input: [...COUNTER_PROMPT, call("increment_counter", { count: 1 }, "call_not_recorded"), toolOutput("call_not_recorded", {})] });
  assert.equal(offScript.status, 404);

  const finished = await respond({ input: [...COLOUR_PROMPT, ...RED] });
  assert.equal(finished.status, 404, "a conversation past the end of its recording");
});

test("a replay file that does not exist fails the server start, naming the path", async () => {
  const missing = join(dir, "missing.jsonl");
  await assert.rejects(startServers({ m: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: missing }] }), (error: Error) => error.message.includes(missing));
});

test("a malformed JSONL line fails the server start with file:line", async () => {
  const bad = join(dir, "bad.jsonl");
  writeFileSync(bad, `${JSON.stringify(rollout("x", GREETING, null))}\n\n{"responses_create_params": \n`);
  await assert.rejects(startServers({ m: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: bad }] }), (error: Error) => error.message.includes(`${bad}:3: not valid JSON`));
  const notRollout = join(dir, "not-rollout.jsonl");
  writeFileSync(notRollout, `${JSON.stringify(rollout("x", GREETING, null))}\n{"reward": 1}\n`);
  await assert.rejects(startServers({ m: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: notRollout }] }), (error: Error) => error.message.includes(`${notRollout}:2: not a rollout`));
});

test("replay mode without replay_rollouts_jsonl_fpath fails the server start", async () => {
  await assert.rejects(startServers({ m: [scriptedModel, { mode: "replay" }] }), /needs replay_rollouts_jsonl_fpath/);
});

const SHARED = ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt"].map((name) => sharedDataFile(`${name}/data/example_rollouts.jsonl`));
const sharedSkip = SHARED.find((file) => file.skip)?.skip ?? false;
test("NeMo Gym's reference rollouts of the three example environments play back item for item, with the recorded usage at the end", { skip: sharedSkip }, async () => {
  const recordings = SHARED.flatMap((file) => readRows(file.path!));
  const shared = await startServers({ replay: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: SHARED.map((file) => file.path!) }] });
  try {
    const played = new Set<Item>();
    for (const row of recordings) {
      const prompt = row.responses_create_params.input;
      const request = (input: Item[]) => client.request(`${shared.url("replay")}/v1/responses`, { method: "POST", json: { input, tools: row.responses_create_params.tools } });
      // Recordings sharing a prompt are dealt in turn: find the one this conversation got.
      const first = (await request(prompt)).json<any>();
      const recording = recordings.find((r) => !played.has(r) && JSON.stringify(r.responses_create_params.input) === JSON.stringify(prompt) && JSON.stringify(r.response.output.slice(0, first.output.length)) === JSON.stringify(first.output));
      assert.ok(recording, "the first turn is the start of a recording of this prompt");
      played.add(recording);
      const recorded: Item[] = recording.response.output;
      let position = 0;
      let turn = first;
      for (;;) {
        assert.deepEqual(turn.output, recorded.slice(position, position + turn.output.length));
        position += turn.output.length;
        while (recorded[position]?.type === "function_call_output") position++;
        if (position >= recorded.length) break;
        assert.equal(turn.usage, null, "usage only on the final turn");
        const next = await request([...prompt, ...recorded.slice(0, position)]);
        assert.equal(next.status, 200, next.text);
        turn = next.json<any>();
      }
      assert.deepEqual(turn.usage, recording.response.usage);
      assert.equal(turn.model, `scripted-replay(${recording.response.model})`);
    }
    assert.equal(played.size, recordings.length);
  } finally {
    await shared.close();
  }
});
