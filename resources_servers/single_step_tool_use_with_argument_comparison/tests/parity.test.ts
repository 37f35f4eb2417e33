// Parity with NeMo Gym's Python verifier on its recorded rollouts (../shared/nemo-gym-data, never committed):
// every stored reward and every extra verify field (expected_action, category) comes back the same, re-verified
// the way `gym eval reverify --verify-only` does it (the environment has no tools and no state), and again
// end to end: scripted_model replays the recorded model turn through tool_simulation_agent into our verify.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const ENV = "single_step_tool_use_with_argument_comparison";
const SERVER = `${ENV}_resources_server`;
const rollouts = sharedDataFile(`${ENV}/data/example_rollouts.jsonl`);
const dataset = sharedDataFile(`${ENV}/data/example.jsonl`);
const reference = sharedDataFile(`${ENV}/parity/reference_verify.jsonl`);
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["expected_action", "category"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, `../configs/${ENV}.yaml`)], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward, expected_action and category", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: SERVER });
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
});

test("the parity reference set (rows joined with their dataset fields) gives NeMo Gym's reward and extra fields", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), SERVER, reference.path!, {
    lines: 5,
    extraFields: ["category"],
    alsoCheck: (body, { request, lineNumber }) => assert.deepEqual(body.expected_action, request.expected_action, `reference line ${lineNumber}: expected_action`),
  });
});

test("end to end: the recorded model turn replayed through tool_simulation_agent scores as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path!, agentName: `${ENV}_agent` });
  // Matched by the replayed output: the recorded turn it must be one of.
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: ["category", "expected_action"], key: (row) => JSON.stringify(row.response.output) });
});
