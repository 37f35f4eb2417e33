// Parity with NeMo Gym's Python verifier on its recorded nvarc rollouts (../shared/nemo-gym-data, never
// committed). The three transductive rows (760b3cac, 3befdf3e, dd6b8c4b_b190f7f5) and the two inductive ones
// (50cb2852, 0520fde7, whose programs — numpy and scipy.ndimage in one — run in the sandbox) come back with NeMo
// Gym's reward and fields.
//
// The stored rollouts were written by a version of the server older than the one merged (no `exact_match`,
// `problem_id` echoed); the reference set, re-scored by the merged code, has no `problem_id` either. So the
// stored `problem_id` is the one field not reproduced, and `exact_match` is checked against the reference set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, type ExpectedDifference, parityDetails, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("nvarc/data/example_rollouts.jsonl");
const dataset = sharedDataFile("nvarc/data/example.jsonl");
const reference = sharedDataFile("nvarc/parity/reference_verify.jsonl");
const skip = rollouts.skip || dataset.skip;
const INSTANCE = "nvarc_transductive_resources_server";
const TRANSDUCTIVE_TASKS = ["760b3cac", "3befdf3e", "dd6b8c4b_b190f7f5"];
const INDUCTIVE_TASKS = ["50cb2852", "0520fde7"];
/** Stored extra fields of the transductive rollouts; `problem_id` is the older server's echo (see above). */
const STORED_FIELDS = ["expected_output", "predicted_output", "extraction_successful", "problem_id", "agent_mode"];

const taskOf = (row: Record<string, unknown>) => String(row.problem_id ?? row.task_id);

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/transductive.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only): every reward and field reproduced", { skip }, async () => {
  const stored = readRows(rollouts.path!);
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: INSTANCE });
  const expectedDifferences = stored.map((row, i): ExpectedDifference => {
    const task = taskOf(row);
    assert.ok([...TRANSDUCTIVE_TASKS, ...INDUCTIVE_TASKS].includes(task), task);
    return { line: i + 1, fields: ["problem_id"], why: "the older server that recorded it echoed problem_id" };
  });
  assertParity(report, { rows: 5, extraFields: STORED_FIELDS, expectedDifferences });
  for (const outcome of report.outcomes) assert.equal(outcome.line?.exact_match, true, parityDetails(report));
});

test("the parity reference set: all 5 lines, both modes, give NeMo Gym's reward and every extra field", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), INSTANCE, reference.path!, {
    lines: 5,
    extraFields: ["exact_match", "extraction_successful", "predicted_output"],
    alsoCheck: (body, line) => assert.equal(body.agent_mode, INDUCTIVE_TASKS.includes(taskOf(line.request)) ? "inductive" : "transductive"),
  });
});

test("end to end: replayed through simple_agent, all 5 rows (the inductive programs run in the sandbox) score as recorded", { skip: skip || reference.skip }, async () => {
  const { summary, rollouts: ours, inputs } = await replayEndToEnd(graph(), {
    inputs: referenceRowsAsInputs(reference.path!).map(({ row }) => row),
    agentName: "nvarc_transductive_simple_agent",
    concurrency: 1,
  });
  assert.equal(summary.succeeded, TRANSDUCTIVE_TASKS.length + INDUCTIVE_TASKS.length);

  const recorded = new Map(readRows(rollouts.path!).map((r) => [taskOf(r), r]));
  for (const rollout of ours) {
    const task = taskOf(inputs[rollout._ng_task_index]!);
    const stored = recorded.get(task)!;
    assert.equal(rollout.reward, stored.reward, task);
    for (const key of ["expected_output", "predicted_output", "extraction_successful", "agent_mode"]) assert.deepEqual(rollout[key], stored[key], `${task}: ${key}`);
  }
});
