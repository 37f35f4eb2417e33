// Parity with NeMo Gym's Python verifier on its recorded nvarc rollouts (../shared/nemo-gym-data, never
// committed). The three transductive rows (760b3cac, 3befdf3e, dd6b8c4b_b190f7f5) come back with NeMo Gym's
// reward and fields. The two inductive rows (50cb2852, 0520fde7) answer with a program that NeMo Gym runs; this
// project has no sandbox yet, so they come back as the 501 that says so — a typed failure, never a reward.
//
// The stored rollouts were written by a version of the server older than the one merged (no `exact_match`,
// `problem_id` echoed); the reference set, re-scored by the merged code, has no `problem_id` either. So the
// stored `problem_id` is the one field not reproduced, and `exact_match` is checked against the reference set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, type ExpectedDifference, parityDetails, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";
import { INDUCTIVE_NEEDS_SANDBOX } from "../app.ts";

const rollouts = sharedDataFile("nvarc/data/example_rollouts.jsonl");
const dataset = sharedDataFile("nvarc/data/example.jsonl");
const reference = sharedDataFile("nvarc/parity/reference_verify.jsonl");
const skip = rollouts.skip || dataset.skip;
const INSTANCE = "nvarc_transductive_resources_server";
const TRANSDUCTIVE_TASKS = ["760b3cac", "3befdf3e", "dd6b8c4b_b190f7f5"];
const INDUCTIVE_TASKS = ["50cb2852", "0520fde7"];
/** Stored extra fields of the transductive rollouts; `problem_id` is the older server's echo (see above). */
const STORED_FIELDS = ["expected_output", "predicted_output", "extraction_successful", "problem_id", "agent_mode"];
const NEEDS_SANDBOX = { detail: INDUCTIVE_NEEDS_SANDBOX };

const taskOf = (row: Record<string, unknown>) => String(row.problem_id ?? row.task_id);

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/transductive.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only): transductive rows reproduced, inductive rows the 501", { skip }, async () => {
  const stored = readRows(rollouts.path!);
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: INSTANCE });
  const expectedDifferences = stored.map((row, i): ExpectedDifference => {
    const task = taskOf(row);
    if (INDUCTIVE_TASKS.includes(task)) return { line: i + 1, failure: { status: 501, bodyIncludes: JSON.stringify(NEEDS_SANDBOX) }, why: "an inductive row needs the sandbox this project lacks" };
    assert.ok(TRANSDUCTIVE_TASKS.includes(task), task);
    return { line: i + 1, fields: ["problem_id"], why: "the older server that recorded it echoed problem_id" };
  });
  assertParity(report, { rows: 5, extraFields: STORED_FIELDS, expectedDifferences });
  for (const outcome of report.outcomes.filter((o) => !o.failure)) assert.equal(outcome.line?.exact_match, true, parityDetails(report));
  assert.equal(report.outcomes.filter((o) => o.failure).length, INDUCTIVE_TASKS.length, parityDetails(report));
});

test("the parity reference set: transductive lines give NeMo Gym's reward and every extra field, inductive lines the 501", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), INSTANCE, reference.path!, {
    lines: 5,
    extraFields: ["exact_match", "extraction_successful", "predicted_output"],
    refusal: ({ request }) => {
      if (!INDUCTIVE_TASKS.includes(taskOf(request))) return undefined;
      assert.equal(request.agent_mode, "inductive");
      return { status: 501, body: NEEDS_SANDBOX };
    },
    alsoCheck: (body) => assert.equal(body.agent_mode, "transductive"),
  });
});

test("end to end: replayed through simple_agent, transductive rows score as recorded and inductive rows are recorded failures", { skip: skip || reference.skip }, async () => {
  const { summary, rollouts: ours, inputs } = await replayEndToEnd(graph(), {
    inputs: referenceRowsAsInputs(reference.path!).map(({ row }) => row),
    agentName: "nvarc_transductive_simple_agent",
    concurrency: 1,
    expectedFailures: INDUCTIVE_TASKS.length,
  });
  assert.equal(summary.succeeded, TRANSDUCTIVE_TASKS.length);

  const recorded = new Map(readRows(rollouts.path!).map((r) => [taskOf(r), r]));
  for (const rollout of ours) {
    const task = taskOf(inputs[rollout._ng_task_index]!);
    const stored = recorded.get(task)!;
    assert.ok(TRANSDUCTIVE_TASKS.includes(task), task);
    assert.equal(rollout.reward, stored.reward, task);
    for (const key of ["expected_output", "predicted_output", "extraction_successful", "agent_mode"]) assert.deepEqual(rollout[key], stored[key], `${task}: ${key}`);
  }
  const failures = readRows(summary.failuresPath);
  assert.deepEqual(failures.map((f) => taskOf(inputs[f._ng_task_index]!)).sort(), [...INDUCTIVE_TASKS].sort());
  for (const failure of failures) {
    // simple_agent relays the 501 as NeMo Gym's inner-server 500 (its body quoted as Python bytes) with the inner
    // status in a header: a final `not_implemented` failure, not retried.
    assert.equal(failure._ng_failure_class, "not_implemented", JSON.stringify(failure));
    assert.equal(failure._ng_failure_terminal, true, JSON.stringify(failure));
    assert.equal("reward" in failure, false);
    assert.match(String(failure.error), /calling an inner server: .*no sandbox exists yet, so this row cannot be scored/, JSON.stringify(failure));
  }
});
