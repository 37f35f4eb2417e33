// scripted_model's training fields (`return_token_id_information: true`): fake prompt/generation token ids and
// logprobs on the last output item of each turn, shaped so a trainer's post-processing accepts them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { http, type InProcessGraph, startServers } from "../../../src/testing/index.ts";
import { ResponseSchema } from "../../../src/protocol/index.ts";
import scriptedModel from "../app.ts";
import { converse, fnTool, type Item } from "./helpers.ts";

const TRAINING_KEYS = ["prompt_token_ids", "generation_token_ids", "generation_log_probs"];
const tools = [fnTool("increment_counter", { count: { type: "integer" } }), fnTool("get_counter_value", {})];
const COUNTER = { input: [{ role: "user", content: "add 1 then add 2 then get the count" }], tools };

// A replay recording whose items already carry (stale) token fields, as a vLLM recording would.
const stale = { prompt_token_ids: [1, 2], generation_token_ids: [3], generation_log_probs: [-0.5] };
const dir = mkdtempSync(join(tmpdir(), "scripted-training-"));
const recordingPath = join(dir, "recorded.jsonl");
writeFileSync(
  recordingPath,
  JSON.stringify({
    responses_create_params: { input: [{ role: "user", content: "recorded prompt" }] },
    response: {
      model: "recorded",
      usage: null,
      output: [
        { ...stale, arguments: "{}", call_id: "call_1", name: "a", type: "function_call" },
        { ...stale, arguments: "{}", call_id: "call_2", name: "b", type: "function_call" },
        { call_id: "call_1", output: "1", type: "function_call_output" },
        { call_id: "call_2", output: "2", type: "function_call_output" },
        { ...stale, id: "msg_1", content: [{ annotations: [], text: "done", type: "output_text" }], role: "assistant", status: "completed", type: "message" },
      ],
    },
  }) + "\n",
);

let graph: InProcessGraph;
const client = http();
const url = (name: string) => `${graph.url(name)}/v1/responses`;
const respond = (name: string, body: unknown) => client.request(url(name), { method: "POST", json: body });
const counterTool = (name: string) => (name === "increment_counter" ? { success: true } : { count: 3 });

before(async () => {
  graph = await startServers({
    trained: [scriptedModel, { return_token_id_information: true, seed: 7 }],
    reseeded: [scriptedModel, { return_token_id_information: true, seed: 8 }],
    plain: [scriptedModel, {}],
    replayed: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: recordingPath, return_token_id_information: true }],
  });
});
after(async () => {
  await graph.close();
  await client.close();
});

/** NeMo RL's post-processing of a Gym rollout (nemo_gym.py): every item with token ids must continue the ids seen so far. */
function trainerMessageLog(output: Item[]) {
  const seen: number[] = [];
  const log: { role: string; token_ids: number[]; logprobs?: number[] }[] = [];
  for (const item of output) {
    if (!("generation_token_ids" in item)) continue;
    assert.deepEqual(item.prompt_token_ids.slice(0, seen.length), seen, "Non-contiguous messages found!");
    log.push({ role: "user", token_ids: item.prompt_token_ids.slice(seen.length) });
    log.push({ role: "assistant", token_ids: item.generation_token_ids, logprobs: item.generation_log_probs });
    seen.push(...log.at(-2)!.token_ids, ...log.at(-1)!.token_ids);
  }
  return log;
}

test("the token fields sit on the last output item of a turn only, well formed", async () => {
  const { output } = (await respond("trained", COUNTER)).json<any>();
  assert.equal(output.length, 3);
  for (const item of output.slice(0, -1)) assert.deepEqual(TRAINING_KEYS.filter((k) => k in item), [], `${item.name} carries no token fields`);
  const last = output.at(-1);
  assert.ok(last.prompt_token_ids.length > 0 && last.prompt_token_ids.every(Number.isInteger));
  assert.ok(last.generation_token_ids.length > 0 && last.generation_token_ids.every(Number.isInteger));
  assert.equal(last.generation_log_probs.length, last.generation_token_ids.length);
  assert.ok(last.generation_log_probs.every((p: number) => Number.isFinite(p) && p <= 0));
});

test("without return_token_id_information no item carries token fields", async () => {
  const { output } = (await respond("plain", COUNTER)).json<any>();
  assert.ok(output.every((item: Item) => TRAINING_KEYS.every((k) => !(k in item))));
});

test("the token fields are deterministic for the same input and seed; another seed changes the logprobs only", async () => {
  const [a, b] = await Promise.all([respond("trained", COUNTER), respond("trained", COUNTER)]);
  const other = (await respond("reseeded", COUNTER)).json<any>().output.at(-1);
  const first = a.json<any>().output.at(-1);
  assert.deepEqual(b.json<any>().output.at(-1), first);
  assert.deepEqual(other.prompt_token_ids, first.prompt_token_ids);
  assert.deepEqual(other.generation_token_ids, first.generation_token_ids);
  assert.notDeepEqual(other.generation_log_probs, first.generation_log_probs);
});

test("responses with token fields are valid NeMo Gym responses, and sent back as input they pass /v1/responses validation", async () => {
  const turns = await converse(client, url("trained"), COUNTER, counterTool);
  assert.deepEqual(
    turns.map((turn) => turn.status),
    [200, 200],
  );
  for (const turn of turns) assert.ok(ResponseSchema.safeParse(turn.body).success);
  const last = turns[1]!.body.output.at(-1);
  assert.equal(last.type, "message");
  assert.ok(TRAINING_KEYS.every((k) => k in last), "the answer message carries them too");
  assert.ok(TRAINING_KEYS.every((k) => k in turns[1]!.request.input[3]), "the request of turn 2 carried turn 1's token fields");
});

test("across turns each prompt continues the previous prompt and generation, as NeMo RL's post-processing requires", async () => {
  const turns = await converse(client, url("trained"), { ...COUNTER, parallel_tool_calls: false }, counterTool);
  assert.equal(turns.length, 4);
  const rollout: Item[] = turns.at(-1)!.request.input.slice(1).concat(turns.at(-1)!.body.output);
  const log = trainerMessageLog(rollout);
  assert.equal(log.length, 8, "four model turns, each with prompt and generation segments");
  assert.ok(log.slice(2).filter((m) => m.role === "user").every((m) => m.token_ids.length > 0), "tool outputs add prompt tokens between generations");
});

test("replay with token fields drops the recording's stale ones and puts fresh ones on each turn's last item", async () => {
  const turns = await converse(client, url("replayed"), { input: "recorded prompt" }, () => "ok");
  assert.deepEqual(
    turns.map((turn) => turn.body.output.map((item: Item) => TRAINING_KEYS.every((k) => k in item))),
    [[false, true], [true]],
  );
  const rollout: Item[] = turns.at(-1)!.request.input.slice(1).concat(turns.at(-1)!.body.output);
  assert.equal(trainerMessageLog(rollout).length, 4);
  assert.notDeepEqual(turns[0]!.body.output[1].prompt_token_ids, stale.prompt_token_ids);
});
