import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assistantMessage, injectServer, readRows, responseWith, sharedDataFile, type InjectedServer } from "../../../src/testing/index.ts";
import { PythonRandom } from "../../../src/python/random.ts";
import { parseTetrisActions } from "../../../src/ports/grl/actions.ts";
import { TETRIS_DEFAULT_ACTION_LOOKUP, TetrisEnv } from "../../../src/ports/grl/tetris-env.ts";
import tetris, { formatTetrisObservation } from "../app.ts";
import { recordedTurns, startupSeedFor } from "./recorded.ts";

const ownRows = readRows(join(import.meta.dirname, "../data/example.jsonl"));
const nemoRows = sharedDataFile("grl_tetris/data/example.jsonl");
const nemoRollouts = sharedDataFile("grl_tetris/data/example_rollouts.jsonl");
const params = { input: [{ role: "user", content: "play" }] };
const said = (text: string) => responseWith([assistantMessage(text)]);
const tags = (...moves: string[]) => moves.map((move) => `<action>${move}</action>`).join("");

let env: InjectedServer;
before(async () => (env = await injectServer(tetris, {}, { instanceName: "grl_tetris" })));
after(() => env.close());

test("NeMo Gym's recorded rollouts: under a recovered start-up state, the same initial boards and every turn replayed to the same boards, rewards and info", { skip: nemoRollouts.skip || nemoRows.skip }, async (t) => {
  const rows = readRows(nemoRows.path!);
  const rollouts = readRows(nemoRollouts.path!) as any[];
  let boardsEqual = 0;
  let rewardsEqual = 0;
  for (const rollout of rollouts) {
    const row = rows[rollout._ng_task_index]!;
    const k = startupSeedFor(row, rollout);
    assert.ok(k !== undefined, `task ${rollout._ng_task_index}: no start-up state deals the recorded pieces`);
    const server = await injectServer(tetris, { process_random_seed: k }, { instanceName: `grl_tetris_k${k}` });
    try {
      const session = server.session();
      const reset = (await session.post("/reset", row)).json<{ observation: string }>();
      assert.equal(reset.observation, rollout.responses_create_params.input.at(-1).content);
      boardsEqual++;
      let total = 0;
      let last: any;
      for (const [i, turn] of recordedTurns(rollout.response.output).entries()) {
        last = (await session.post("/step", { ...row, response: said(turn.text) })).json();
        total += last.reward;
        if (turn.observation !== undefined) assert.equal(last.observation, turn.observation, `task ${rollout._ng_task_index}: board after turn ${i + 1}`);
      }
      assert.equal(total, rollout.reward);
      assert.equal(last.terminated, rollout.terminated);
      assert.deepEqual(last.info, rollout.info);
      // And /verify, under that state, re-scores the whole rollout to its reward.
      const verified = await server.post("/verify", { ...row, response: rollout.response });
      assert.equal(verified.json<{ reward: number }>().reward, rollout.reward);
      rewardsEqual++;
    } finally {
      await server.close();
    }
  }
  t.diagnostic(`grl_tetris parity (start-up state recovered per rollout): boards equal ${boardsEqual}/${rollouts.length}, rewards reproduced ${rewardsEqual}/${rollouts.length}`);
});

test("the dataset's dim_board is not read (NeMo reads dim_x / dim_y): every board is the default 4x4", async () => {
  const board = (await env.post("/reset", { responses_create_params: params, seed: 3, box_type: 1, dim_board: [6, 6] })).json<{ observation: string }>().observation;
  assert.deepEqual(board.split("\n\n")[0]!.split("\n").slice(1).map((line) => line.length), [4, 4, 4, 4]);
  const wide = (await env.post("/reset", { responses_create_params: params, seed: 3, box_type: 1, dim_x: 6, dim_y: 5 })).json<{ observation: string }>().observation;
  assert.deepEqual(wide.split("\n\n")[0]!.split("\n").slice(1).map((line) => line.length), [6, 6, 6, 6, 6]);
});

test("several tags in one turn are applied in order; a completed row ends the game with +10 per row", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 7, box_type: 1 };
  await session.post("/reset", row);
  const fill = tags("Left", "Down", "Down", "Down", "Right", "Down", "Down", "Down", "Right", "Right", "Down", "Down", "Down", "Right", "Right", "Right", "Down", "Down", "Down");
  const answer = (await session.post("/step", { ...row, response: said(fill) })).json<any>();
  assert.equal(answer.terminated, true);
  assert.equal(answer.info.num_actions_applied, 19);
  assert.equal(answer.info.actions.at(-1).reward, 9.9);
  assert.equal(answer.info.success, true);
  assert.equal(answer.reward, answer.info.total_reward);
  assert.ok(Math.abs(answer.reward - 8.1) < 1e-9);
});

test("unreadable tags are skipped; a turn with none is a 400", async () => {
  const session = env.session();
  const row = { responses_create_params: params, seed: 7, box_type: 1 };
  await session.post("/reset", row);
  const one = (await session.post("/step", { ...row, response: said("<action>Jump</action><action> left </action><action>rotate</action>") })).json<any>();
  assert.deepEqual(one.info.actions.map((a: { action_label: string }) => a.action_label), ["Left"]);
  const none = await session.post("/step", { ...row, response: said("Left, then down.") });
  assert.equal(none.status, 400);
  assert.equal(none.json<{ detail: string }>().detail, "No <action>Left|Right|Down</action> tags found in response.");
});

test("box_type 1 (the env class's default when a YAML env_config omits it) deals single cells, seeded alike everywhere", async () => {
  const single = await injectServer(tetris, { env_config: { dim_x: 4, dim_y: 4 } }, { instanceName: "grl_tetris_single" });
  try {
    const board = (await single.post("/reset", { responses_create_params: params, seed: 7 })).json<{ observation: string }>().observation;
    assert.equal(board, formatTetrisObservation("_X__\n____\n____\n____"));
  } finally {
    await single.close();
  }
});

test("the same start-up seed deals the same box_type 3 pieces in any process; without one /verify refuses box_type 3 rows (501)", async () => {
  const a = new TetrisEnv({ boxType: 3, initialRandom: new PythonRandom(12) }).reset(99);
  const b = new TetrisEnv({ boxType: 3, initialRandom: new PythonRandom(12) }).reset(99);
  assert.equal(a, b);
  const refused = await env.post("/verify", { responses_create_params: params, seed: 99, box_type: 3, response: said("<action>Down</action>") });
  assert.equal(refused.status, 501);
  const seeded = await env.post("/verify", { responses_create_params: params, seed: 99, box_type: 1, response: said("<action>Down</action>") });
  assert.equal(seeded.json<{ reward: number }>().reward, -0.1);
});

test("bad row fields are 422s naming them", async () => {
  const seed = await env.post("/reset", { responses_create_params: params, seed: 2 ** 32 });
  assert.deepEqual(seed.json<any>().detail[0].loc, ["body", "seed"]);
  const width = await env.post("/reset", { responses_create_params: params, seed: 1, dim_x: 0 });
  assert.deepEqual(width.json<any>().detail[0].loc, ["body", "dim_x"]);
  const lookup = await env.post("/reset", { responses_create_params: params, seed: 1, action_lookup: { left: "Left" } });
  assert.deepEqual(lookup.json<any>().detail[0].loc, ["body", "action_lookup"]);
});

test("our example rows are valid /run requests that reset", async () => {
  assert.equal(ownRows.length, 5);
  assertRowsAreRunRequests(ownRows);
  for (const row of ownRows) assert.equal((await env.post("/reset", row)).status, 200);
});
