// Parity with NeMo Gym's Python verifier on its recorded arc_agi rollouts (../shared/nemo-gym-data, never
// committed): every stored reward and extra field (expected_output, predicted_output, extraction_successful)
// comes back the same — re-verified verify-only, through the parity reference set, and end to end
// (scripted_model replays the recorded turns through simple_agent into our verify).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("arc_agi/data/example_rollouts.jsonl");
const dataset = sharedDataFile("arc_agi/data/example.jsonl");
const reference = sharedDataFile("arc_agi/parity/reference_verify.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["expected_output", "predicted_output", "extraction_successful"];
const INSTANCE = "arc_agi_resources_server";

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/arc_agi.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward and extra field", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: INSTANCE });
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
});

test("the parity reference set gives NeMo Gym's reward and every extra field", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), INSTANCE, reference.path!, {
    lines: 5,
    extraFields: ["extraction_successful", "predicted_output"],
    alsoCheck: (body, { request, lineNumber }) => assert.deepEqual(body.expected_output, request.expected_output, `reference line ${lineNumber}: expected_output echoed`),
  });
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip: skip || reference.skip }, async () => {
  // The reference lines carry each recording's full dataset row (four rollouts share task 00576224's prompt;
  // the replay model deals their recordings out in turn).
  const inputs = referenceRowsAsInputs(reference.path!).map(({ row }) => row);
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs, agentName: "arc_agi_simple_agent", concurrency: 1, maxAttempts: 1 });
  assert.equal(ours.length, 5);
  const key = (r: any) => JSON.stringify([r.reward, r.expected_output, r.predicted_output, r.extraction_successful]);
  assert.deepEqual(ours.map(key).sort(), readRows(rollouts.path!).map(key).sort());
});
