import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { responsesApiModel } from "../../../src/server/index.ts";
import { assertRowsAreRunRequests, assistantMessage, http, injectServer, readRows, responseWith, serverDefinition, sharedDataFile, startServers, type InjectedServer } from "../../../src/testing/index.ts";
import { SokobanEnv } from "../../../src/ports/grl/sokoban-env.ts";
import sokoban, { formatSokobanObservation } from "../app.ts";

const ownRows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const nemoRows = sharedDataFile("grl_sokoban/data/example.jsonl");
const nemoRollouts = sharedDataFile("grl_sokoban/data/example_rollouts.jsonl");
const params = { input: [{ role: "user", content: "play" }] };
const said = (text: string) => responseWith([assistantMessage(text)]);

let env: InjectedServer;
before(async () => (env = await injectServer(sokoban, {}, { instanceName: "grl_sokoban" })));
after(() => env.close());

interface RecordedTurn {
  text: string;
  /** The observation the agent appended after this turn (none after the last turn of a terminated episode). */
  observation?: string;
}

/** A gymnasium_agent rollout's turns: each assistant message, then the user message that followed it. */
function recordedTurns(output: Array<{ role?: string; content?: unknown }>): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const item of output) {
    if (item.role === "assistant") turns.push({ text: (item.content as Array<{ text: string }>).map((part) => part.text).join("") });
    else if (item.role === "user") turns.at(-1)!.observation = item.content as string;
  }
  return turns;
}

test("NeMo Gym's recorded rollouts: the same initial boards from the same seeds, and every move replayed to the same boards, rewards and info", { skip: nemoRollouts.skip || nemoRows.skip }, async (t) => {
  const rows = readRows(nemoRows.path!);
  const rollouts = readRows(nemoRollouts.path!) as any[];
  let boardsEqual = 0;
  let rewardsEqual = 0;
  for (const rollout of rollouts) {
    const row = rows[rollout._ng_task_index]!;
    const session = env.session();
    const reset = await session.post("/reset", row);
    assert.equal(reset.status, 200, reset.text);
    const initial = rollout.responses_create_params.input.at(-1).content;
    assert.equal(reset.json<{ observation: string }>().observation, initial, `task ${rollout._ng_task_index}: initial board`);
    boardsEqual++;
    let total = 0;
    let last: any;
    for (const [i, turn] of recordedTurns(rollout.response.output).entries()) {
      last = (await session.post("/step", { ...row, response: said(turn.text) })).json();
      total += last.reward;
      if (turn.observation !== undefined) assert.equal(last.observation, turn.observation, `task ${rollout._ng_task_index}: board after turn ${i + 1}`);
    }
    assert.equal(total, rollout.reward, `task ${rollout._ng_task_index}: summed reward`);
    assert.equal(last.terminated, rollout.terminated);
    assert.deepEqual(last.info, rollout.info);
    rewardsEqual++;
  }
  t.diagnostic(`grl_sokoban parity: boards equal ${boardsEqual}/${rollouts.length}, rewards reproduced ${rewardsEqual}/${rollouts.length}`);
});

test("a whole rollout through gymnasium_agent, the model replaying NeMo's recorded moves, ends with NeMo's reward, flags, info and observations", { skip: nemoRollouts.skip || nemoRows.skip }, async () => {
  const rows = readRows(nemoRows.path!);
  const rollouts = readRows(nemoRollouts.path!) as any[];
  const replies: string[] = [];
  const model = responsesApiModel({
    name: "ReplayModel",
    config: z.looseObject({}),
    async responses({ params }) {
      const text = replies.shift() ?? "<action>Up</action>";
      return { id: "resp_replay", created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "replay", object: "response", output: [assistantMessage(text)], parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: null } as any;
    },
  });
  const agent = await serverDefinition("responses_api_agents/gymnasium_agent");
  const refs = { resources_server: { type: "resources_servers", name: "grl_sokoban" }, model_server: { type: "responses_api_models", name: "policy_model" }, max_steps: 20 };
  const graph = await startServers({ grl_sokoban: [sokoban], policy_model: [model], agent: [agent, refs] });
  const client = http();
  try {
    // The solved episode (the suite's time budget: each turn is two HTTP hops; the truncated ones replay above).
    const picked = [rollouts.find((r) => r.terminated)];
    for (const rollout of picked) {
      replies.splice(0, replies.length, ...recordedTurns(rollout.response.output).map((turn) => turn.text));
      const answer = await client.request(`${graph.url("agent")}/run`, { method: "POST", json: rows[rollout._ng_task_index] });
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json<any>();
      assert.deepEqual([body.reward, body.terminated, body.truncated], [rollout.reward, rollout.terminated, rollout.truncated]);
      assert.deepEqual(body.info, rollout.info);
      const observations = (output: any[]) => output.filter((item) => item.role === "user").map((item) => item.content);
      assert.deepEqual(observations(body.response.output), observations(rollout.response.output));
      assert.equal(body.responses_create_params.input.at(-1).content, rollout.responses_create_params.input.at(-1).content);
    }
  } finally {
    await client.close();
    await graph.close();
  }
});

test("/verify re-scores NeMo Gym's recorded rollouts (seeded) to their summed rewards", { skip: nemoRollouts.skip || nemoRows.skip }, async () => {
  const rows = readRows(nemoRows.path!);
  for (const rollout of readRows(nemoRollouts.path!) as any[]) {
    const verified = await env.post("/verify", { ...rows[rollout._ng_task_index]!, response: rollout.response });
    assert.equal(verified.status, 200, verified.text);
    assert.equal(verified.json<{ reward: number }>().reward, rollout.reward);
  }
});

test("pushing the box onto the target ends the episode with -0.1 + 1 + 10 and the bare final board", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 2, dim_room: [5, 5] };
  const reset = await session.post("/reset", row);
  assert.equal(reset.json<{ observation: string }>().observation, formatSokobanObservation("#####\n#_P_#\n#_X_#\n#_O_#\n#####"));
  const solved = await session.post("/step", { ...row, response: said("<action>Down</action>") });
  assert.equal(
    solved.text,
    '{"observation":"#####\\n#___#\\n#_P_#\\n#_√_#\\n#####","reward":10.9,"terminated":true,"truncated":false,' +
      '"info":{"action_is_effective":true,"action_is_valid":true,"success":true,"action_id":2,"action_label":"Down","total_reward":10.9}}',
  );
});

test("a move into a wall costs 0.1, is not effective, and the board comes back with the legend", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 2, dim_room: [5, 5] };
  await session.post("/reset", row);
  const bumped = (await session.post("/step", { ...row, response: said("<action>Up</action>") })).json<any>();
  assert.equal(bumped.reward, -0.1);
  assert.equal(bumped.terminated, false);
  assert.equal(bumped.info.action_is_effective, false);
  assert.equal(bumped.observation, formatSokobanObservation("#####\n#_P_#\n#_X_#\n#_O_#\n#####"));
});

test("the first <action> tag wins over bare words; without a tag the first bare direction word or 1-4 is the move", async () => {
  const row = { responses_create_params: params, seed: 2, dim_room: [5, 5] };
  const play = async (text: string) => {
    const session = env.session();
    await session.post("/reset", row);
    return (await session.post("/step", { ...row, response: said(text) })).json<any>().info.action_label;
  };
  assert.equal(await play("left or right? <action> down </action> <action>Up</action>"), "Down");
  assert.equal(await play("<action>Downward</action>, no wait, left"), "Left");
  assert.equal(await play("Option 4 looks best"), "Right");
});

test("a reply with no readable move is a 400 quoting it as Python's repr; a step before /reset is a 400", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 2, dim_room: [5, 5] };
  assert.equal((await session.post("/step", { ...row, response: said("up") })).status, 400);
  await session.post("/reset", row);
  const unreadable = await session.post("/step", { ...row, response: said("  I'd go north  ") });
  assert.equal(unreadable.status, 400);
  assert.equal(unreadable.json<{ detail: string }>().detail, `Unable to parse action from response: "I'd go north"`);
});

test("a row's action_lookup (JSON string keys read as ints) renames the moves; a missing id is a 400", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 2, dim_room: [5, 5], action_lookup: { "1": "North", "2": "South", "3": "West" } };
  await session.post("/reset", row);
  const answer = await session.post("/step", { ...row, response: said("<action>4</action>") });
  assert.equal(answer.status, 400);
  assert.equal(answer.json<{ detail: string }>().detail, "Invalid action identifier: 4");
  const down = await session.post("/step", { ...row, response: said("<action>2</action>") });
  assert.equal(down.json<any>().info.action_label, "South");
});

test("bad row fields are 422s naming them; an image render_mode is a 501", async () => {
  const seed = await env.post("/reset", { responses_create_params: params, seed: -1 });
  assert.equal(seed.status, 422);
  assert.deepEqual(seed.json<any>().detail[0].loc, ["body", "seed"]);
  const dims = await env.post("/reset", { responses_create_params: params, seed: 1, dim_room: [5] });
  assert.equal(dims.status, 422);
  assert.deepEqual(dims.json<any>().detail[0].loc, ["body", "dim_room"]);
  const lookup = await env.post("/reset", { responses_create_params: params, seed: 1, action_lookup: { "9": "Jump" } });
  assert.deepEqual(lookup.json<any>().detail[0].loc, ["body", "action_lookup"]);
  assert.equal((await env.post("/reset", { responses_create_params: params, seed: 1, render_mode: "rgb_array" })).status, 501);
  assert.equal((await env.post("/reset", { responses_create_params: params, seed: 1, render_mode: "ascii" })).status, 422);
});

test("a room size that never yields a puzzle (4x4) is a 422 after NeMo's retry chain, not a hang", async () => {
  const answer = await env.post("/reset", { responses_create_params: params, seed: 5, dim_room: [4, 4] });
  assert.equal(answer.status, 422);
  assert.match(answer.json<{ detail: string }>().detail, /no Sokoban room could be generated/);
});

test("a config env_config replaces NeMo's default dict whole: its unset search_depth is the env class's 300, not 100", async () => {
  // Seed 1 in a 9x9 room: the reverse search reaches a farther start at depth 300 than at the server default's 100.
  const deep = await injectServer(sokoban, { env_config: { dim_room: [9, 9] } }, { instanceName: "grl_sokoban_deep" });
  try {
    const board = (await deep.post("/reset", { responses_create_params: params, seed: 1 })).json<{ observation: string }>().observation;
    assert.equal(board, formatSokobanObservation(new SokobanEnv({ dimRoom: [9, 9], searchDepth: 300 }).reset(1)));
    const shallow = (await env.post("/reset", { responses_create_params: params, seed: 1, dim_room: [9, 9] })).json<{ observation: string }>().observation;
    assert.equal(shallow, formatSokobanObservation(new SokobanEnv({ dimRoom: [9, 9], searchDepth: 100 }).reset(1)));
    assert.notEqual(board, shallow);
  } finally {
    await deep.close();
  }
});

test("our example rows are valid /run requests whose seeds all build rooms", async () => {
  assert.equal(ownRows.length, 5);
  assertRowsAreRunRequests(ownRows);
  for (const row of ownRows) assert.equal((await env.post("/reset", row)).status, 200);
});
