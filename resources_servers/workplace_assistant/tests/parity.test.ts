// Parity with NeMo Gym on its own data (../shared/nemo-gym-data/workplace_assistant, never committed here): the
// server reads NeMo Gym's CSV tables and `gym eval reverify`'s machinery re-scores the stored rollouts.
//
// NeMo Gym's tables come from NEMO_GYM_WORKPLACE_TABLES_DIR when set (a csv_data/ folder), else from the shared data;
// they are used as `tables: nemo_gym`, so their digests must be the pinned ones.
//
// The stored rollouts cannot be re-scored as stored: their lines carry no ground_truth / id / category /
// environment_name (NeMo Gym's verify response does not echo them), and their prompts are not rows of
// example.jsonl (they come from the train split, which is not in the shared data). The first test pins exactly
// that, row by row. The second re-scores them with the ground truth their task implies on these tables, written
// here by hand: with it every stored reward comes back, and every stored tool answer is reproduced.
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readJsonl, type InputLine } from "../../../src/rollouts/jsonl.ts";
import { formatReverifyReport, reverifyRollouts } from "../../../src/rollouts/reverify.ts";
import { sharedDataFile, withoutNullParams, type SharedData } from "../../../src/testing/index.ts";
import { action, startWorkplace, type Harness } from "./harness.ts";

const rolloutsFile = sharedDataFile("workplace_assistant/data/example_rollouts.jsonl");
const datasetFile = sharedDataFile("workplace_assistant/data/example.jsonl");
/** NeMo Gym's csv_data/ (its tables at 07d6b0d, checked against the pinned digests at start): a local copy, else the shared one. */
const tablesDir: SharedData = process.env.NEMO_GYM_WORKPLACE_TABLES_DIR
  ? existsSync(process.env.NEMO_GYM_WORKPLACE_TABLES_DIR)
    ? { path: process.env.NEMO_GYM_WORKPLACE_TABLES_DIR, skip: false }
    : { path: undefined, skip: `NEMO_GYM_WORKPLACE_TABLES_DIR=${process.env.NEMO_GYM_WORKPLACE_TABLES_DIR} does not exist` }
  : sharedDataFile("workplace_assistant/csv_data");
const skip = rolloutsFile.skip || datasetFile.skip || tablesDir.skip;

/** The ground truth each stored rollout's task implies on NeMo Gym's tables (the rollouts carry none). */
const IMPLIED_GROUND_TRUTH: Record<string, { category: string; groundTruth: { name: string; arguments: string }[] }> = {
  "Create a bar chart of total visits since November 30": {
    category: "workplace_assistant_analytics",
    groundTruth: [action("analytics_create_plot", { time_min: "2023-11-30", time_max: "2023-11-30", value_to_plot: "total_visits", plot_type: "bar" })],
  },
  // Consulting proposals last contacted on or before 2023-11-09: none (00000107, 00000097, 00000101 are recent).
  "We need to move all customers that haven't responded to a proposal for the consulting product in 3 weeks to lost. Can you update the CRM?": {
    category: "workplace_assistant_customer_relationship_manager",
    groundTruth: [],
  },
  "Delete Casey Wilson from the crm": {
    category: "workplace_assistant_customer_relationship_manager",
    groundTruth: [action("customer_relationship_manager_delete_customer", { customer_id: "00000014" })],
  },
  "Add Dakota Thomas as a new lead in the crm and assign them to Nadia": {
    category: "workplace_assistant_customer_relationship_manager",
    groundTruth: [action("customer_relationship_manager_add_customer", { customer_name: "Dakota Thomas", assigned_to_email: "nadia.moreau@atlas.com", status: "Lead" })],
  },
  "Delete my last email from kofi": {
    category: "workplace_assistant_email",
    groundTruth: [action("email_delete_email", { email_id: "00000259" })],
  },
};

const promptOf = (line: InputLine) => (line.row.responses_create_params as { input: { role: string; content: string }[] }).input.at(-1)!.content;

describe("NeMo Gym's stored workplace_assistant rollouts, re-verified on NeMo Gym's tables", { skip }, () => {
  let h: Harness;
  let rollouts: InputLine[];
  before(async () => {
    rollouts = readJsonl(rolloutsFile.path!);
    h = await startWorkplace({ tables: "nemo_gym", tables_dir: tablesDir.path! });
  });
  after(() => h?.close());

  const reverify = (inputs: InputLine[] | null) =>
    reverifyRollouts({ client: h.graph.client, rollouts, inputs, resourcesServerFor: () => "workplace", concurrency: 5, callDeadlineMs: 15_000 });

  test("as stored, no row can be re-scored: each is named with the reason", async (t) => {
    assert.equal(rollouts.length, 5);
    // With NeMo Gym's example.jsonl as the inputs: no row of it has any rollout's prompt.
    const withDataset = await reverify(readJsonl(datasetFile.path!));
    // Rebuilt from the rollout lines alone: seeding and every tool call replay, then verify refuses the row.
    const fromLines = await reverify(null);
    const reasons = rollouts.map((line, i) => {
      const a = withDataset.outcomes[i]!;
      const b = fromLines.outcomes[i]!;
      return `line ${line.lineNumber} "${promptOf(line)}" (stored reward ${line.row.reward}): ${a.failure?.failureClass}: ${a.failure?.message}; without inputs: ${b.failure?.failureClass} ${b.failure?.status} (verify needs ground_truth, id, category, environment_name)`;
    });
    for (const reason of reasons) t.diagnostic(reason);
    for (const [i, line] of rollouts.entries()) {
      const a = withDataset.outcomes[i]!;
      assert.deepEqual([a.failure?.failureClass, a.failure?.message], ["no_input", "no input row has this rollout's prompt (responses_create_params.input)"], reasons[i]);
      const b = fromLines.outcomes[i]!;
      assert.deepEqual([b.failure?.failureClass, b.failure?.status], ["verify", 422], reasons[i]);
      // The fields verify misses, from the 422 itself (the reverify message is clipped).
      const { reward: _reward, ...stored } = line.row;
      const answer = await h.post("/verify", withoutNullParams(stored as { responses_create_params: Record<string, unknown> }));
      const missing = answer.json<{ detail: { type: string; loc: string[] }[] }>().detail.map((d) => `${d.type} ${d.loc.join(".")}`);
      assert.deepEqual(missing, ["missing body.ground_truth", "missing body.id", "missing body.category", "missing body.environment_name"], reasons[i]);
      assert.equal(b.toolOutputsDifferent, 0, `line ${line.lineNumber}: a replayed tool answered differently from the stored output`);
    }
    assert.equal(fromLines.outcomes.reduce((sum, o) => sum + o.toolCallsReplayed, 0), 8);
  });

  test("with the ground truth their tasks imply, every stored reward comes back and every tool answer is reproduced", async (t) => {
    const inputs = rollouts.map((line, i): InputLine => {
      const implied = IMPLIED_GROUND_TRUTH[promptOf(line)];
      assert.ok(implied, `no ground truth written for "${promptOf(line)}"`);
      const { responses_create_params } = withoutNullParams(line.row as { responses_create_params: Record<string, unknown> });
      const row = { id: i, responses_create_params, ground_truth: implied.groundTruth, category: implied.category, environment_name: "workplace_assistant" };
      return { lineNumber: line.lineNumber, text: "", row };
    });
    const report = await reverify(inputs);
    for (const [i, o] of report.outcomes.entries()) {
      t.diagnostic(`line ${o.lineNumber} "${promptOf(rollouts[i]!)}": stored ${o.storedReward} → ours ${o.line?.reward} ${o.rewardEqual ? "✓" : "✗"}`);
    }
    const [env] = report.environments;
    assert.deepEqual(
      { rows: env!.rows, rewardsEqual: env!.rewardsEqual, extraFieldsEqual: env!.extraFieldsEqual, errors: env!.errors, toolCallsReplayed: env!.toolCallsReplayed, toolOutputsDifferent: env!.toolOutputsDifferent },
      { rows: 5, rewardsEqual: 5, extraFieldsEqual: 5, errors: 0, toolCallsReplayed: 8, toolOutputsDifferent: 0 },
      formatReverifyReport(report),
    );
  });

  test("NeMo Gym's example rows: their ground truth scores 1 (row 0 is its test_app case), no calls score 0", async () => {
    for (const { row } of readJsonl(datasetFile.path!)) {
      const groundTruth = row.ground_truth as { name: string; arguments: string }[];
      assert.equal((await h.verify(row, groundTruth)).reward, 1, `row ${row.id}`);
      assert.equal((await h.verify(row, [])).reward, 0, `row ${row.id} without calls`);
    }
  });
});

describe("NeMo Gym's example rows on this project's own tables", { skip: datasetFile.skip }, () => {
  let ours: Harness;
  before(async () => (ours = await startWorkplace()));
  after(() => ours?.close());

  test("are refused, each with a 501 naming an id its ground truth needs (they once scored [1, 1, 0, 0, 1] here)", async (t) => {
    for (const { row } of readJsonl(datasetFile.path!)) {
      const groundTruth = row.ground_truth as { name: string; arguments: string }[];
      for (const calls of [groundTruth, []]) {
        const answer = await ours.verify(row, calls);
        assert.equal(answer.status, 501, `row ${row.id}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.detail, /^this row cannot be scored with tables: ours .*_id \S+ \(ground_truth\[\d+\] \w+\) is not in table \w+/);
      }
      t.diagnostic(`row ${row.id}: ${(await ours.post("/seed_session", row)).json<{ detail: string }>().detail.replace(/^.*?\): /, "").split(". The row")[0]}`);
    }
  });
});
