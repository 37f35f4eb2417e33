// Parity with NeMo Gym's Python verifier on its recorded xlam_fc rollouts (../shared/nemo-gym-data, never
// committed): every stored reward and every extra field (num_expected, num_predicted, num_correct,
// predicted_calls) comes back the same — re-verified verify-only (no tools, no state), re-verified with the
// recorded calls replayed (each gets the same 404 body the Python server gave), through the parity reference
// set, and end to end (scripted_model replays the recorded turns through simple_agent into our verify).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, parityDetails, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("xlam_fc/data/example_rollouts.jsonl");
const dataset = sharedDataFile("xlam_fc/data/example.jsonl");
const reference = sharedDataFile("xlam_fc/parity/reference_verify.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["num_expected", "num_predicted", "num_correct", "predicted_calls"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/xlam_fc.yaml")], replay: rollouts.path });

const reverify = (verifyOnly: boolean) => reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "xlam_fc", verifyOnly });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward and extra field", { skip }, async () => {
  assertParity(await reverify(true), { rows: 5, extraFields: EXTRA_FIELDS });
});

test("with the recorded calls replayed first, each answers what the Python server answered and parity holds", { skip }, async () => {
  const report = await reverify(false);
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
  assert.equal(report.environments[0]!.toolCallsReplayed, 6, parityDetails(report));
  assert.equal(report.environments[0]!.toolOutputsDifferent, 0, parityDetails(report));
});

test("the parity reference set gives NeMo Gym's reward and every extra field", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), "xlam_fc", reference.path!, { lines: 5, extraFields: EXTRA_FIELDS });
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path!, agentName: "xlam_fc_simple_agent" });
  const toolOutputs = (r: any) => r.response.output.filter((o: any) => o.type === "function_call_output").map((o: any) => o.output);
  for (const { ours: rollout, stored } of assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: EXTRA_FIELDS })) {
    assert.deepEqual(toolOutputs(rollout), toolOutputs(stored), "our 404 bodies are the Python server's, byte for byte");
  }
});
