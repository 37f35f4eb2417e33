// Whole rollouts through gymnasium_agent with scripted_model (replay mode) as the policy: the agent's loop, the
// model's turns played back, and the Tetris server, over real HTTP on loopback.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assistantMessage, http, injectServer, readRows, responseWith, serverDefinition, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import tetris from "../app.ts";
import { recordedTurns, startupSeedFor } from "./recorded.ts";

const ownRows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const nemoRows = sharedDataFile("grl_tetris/data/example.jsonl");
const nemoRollouts = sharedDataFile("grl_tetris/data/example_rollouts.jsonl");
const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
const dir = mkdtempSync(join(tmpdir(), "grl-tetris-agent-"));
const observations = (output: any[]) => output.filter((item) => item.role === "user").map((item) => item.content);

/** Runs one row through gymnasium_agent → scripted_model replaying `recording` → grl_tetris (`tetrisConfig`). */
async function runThroughAgent(row: Record<string, unknown>, recording: unknown, tetrisConfig: Record<string, unknown>) {
  const file = join(dir, `recording-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${JSON.stringify(recording)}\n`);
  const agent = await serverDefinition("responses_api_agents/gymnasium_agent");
  const refs = { resources_server: { type: "resources_servers", name: "grl_tetris" }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 20 };
  const graph = await startServers({ grl_tetris: [tetris, tetrisConfig], policy_model: [scriptedModel, { mode: "replay", replay_rollouts_jsonl_fpath: file }], agent: [agent, refs] });
  const client = http();
  try {
    const answer = await client.request(`${graph.url("agent")}/run`, { method: "POST", json: row });
    assert.equal(answer.status, 200, answer.text);
    return answer.json<any>();
  } finally {
    await client.close();
    await graph.close();
  }
}

test("our example row played to its end through gymnasium_agent gives what the same moves give against the server directly", async () => {
  const row = ownRows[0]!;
  // Each turn drops the piece into the next column: hard left, then right by the turn's column, then down.
  const tag = (move: string, times: number) => `<action>${move}</action>`.repeat(times);
  const moves = Array.from({ length: 20 }, (_, i) => tag("Left", 4) + tag("Right", i % 4) + tag("Down", 4));
  // The reference: the same turns posted to /reset and /step ourselves; the recording is what a model said.
  const env = await injectServer(tetris, {}, { instanceName: "grl_tetris_direct" });
  const session = env.session();
  const initial = (await session.post("/reset", row)).json<{ observation: string }>().observation;
  const output: unknown[] = [];
  let total = 0;
  let last: any;
  for (const [i, text] of moves.entries()) {
    last = (await session.post("/step", { ...row, response: responseWith([assistantMessage(text)]) })).json();
    total += last.reward;
    output.push({ id: `msg_${i}`, content: [{ annotations: [], text, type: "output_text", logprobs: null }], role: "assistant", status: "completed", type: "message" });
    if (last.terminated || last.truncated) break;
    output.push({ content: last.observation, role: "user", type: "message" });
  }
  await env.close();
  assert.ok(last.terminated, "the scripted moves end the game within the agent's 20 steps");
  const params = row.responses_create_params as { input: unknown[] };
  const recording = { responses_create_params: { ...params, input: [...params.input, { role: "user", content: initial }] }, response: { output, usage: null } };

  const body = await runThroughAgent(row, recording, {});
  assert.deepEqual([body.reward, body.terminated, body.truncated, body.info], [total, last.terminated, last.truncated, last.info]);
  assert.deepEqual(observations(body.response.output), observations(output as any[]));
  assert.equal(body.responses_create_params.input.at(-1).content, initial);
});

test("NeMo Gym's recorded rollouts through gymnasium_agent, under each one's recovered start-up state: NeMo's reward, flags, info, boards and usage", { skip: nemoRollouts.skip || nemoRows.skip }, async () => {
  const rows = readRows(nemoRows.path!);
  for (const rollout of readRows(nemoRollouts.path!) as any[]) {
    const row = rows[rollout._ng_task_index]!;
    const k = startupSeedFor(row, rollout);
    assert.ok(k !== undefined, `task ${rollout._ng_task_index}: no start-up state deals the recorded pieces`);
    const body = await runThroughAgent(row, rollout, { process_random_seed: k });
    const task = `task ${rollout._ng_task_index}`;
    assert.deepEqual([body.reward, body.terminated, body.truncated], [rollout.reward, rollout.terminated, rollout.truncated], task);
    assert.deepEqual(body.info, rollout.info, task);
    assert.deepEqual(observations(body.response.output), observations(rollout.response.output), task);
    assert.deepEqual(recordedTurns(body.response.output), recordedTurns(rollout.response.output), task);
    assert.deepEqual(body.response.usage, rollout.response.usage, `${task}: the recorded usage comes back on the last turn`);
  }
});
