// Parity with NeMo Gym's Python verifier on its recorded instruction_following rollouts (../shared/nemo-gym-data,
// never committed): every stored reward, follow_all_instructions and follow_instruction_list comes back the
// same, re-verified verify-only and end to end (scripted_model replays the recorded turns through simple_agent).
// The recorded lines were written by an older NeMo Gym that echoed the legacy top-level row fields
// (instruction_id_list, prompt, kwargs); today's server echoes them inside verifier_metadata, so those three
// are compared there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, pairWithRecorded, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("instruction_following/data/example_rollouts.jsonl");
const dataset = sharedDataFile("instruction_following/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const VERIFY_FIELDS = ["follow_all_instructions", "follow_instruction_list"];
const LEGACY_ECHOED_FIELDS = ["instruction_id_list", "prompt", "kwargs"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/instruction_following.yaml")], replay: rollouts.path });

/** The stored verify fields, and the legacy echoed fields found inside our verifier_metadata. */
function assertSameVerdict(stored: Record<string, any>, ours: Record<string, any>, where: string) {
  assert.equal(ours.reward, stored.reward, `${where}: reward`);
  for (const key of VERIFY_FIELDS) assert.deepEqual(ours[key], stored[key], `${where}: ${key}`);
  for (const key of LEGACY_ECHOED_FIELDS) assert.deepEqual(ours.verifier_metadata?.[key], stored[key], `${where}: verifier_metadata.${key}`);
}

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward and follow_instruction_list", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "instruction_following" });
  const stored = readRows(rollouts.path!);
  assertParity(report, {
    rows: 5,
    extraFields: [...VERIFY_FIELDS, ...LEGACY_ECHOED_FIELDS],
    expectedDifferences: stored.map((_, i) => ({ line: i + 1, fields: LEGACY_ECHOED_FIELDS, why: "today's server echoes them inside verifier_metadata" })),
  });
  for (const outcome of report.outcomes) assertSameVerdict(stored[outcome.lineNumber - 1]!, outcome.line!, `rollout line ${outcome.lineNumber}`);
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path!, agentName: "instruction_following_simple_agent" });
  for (const { ours: rollout, stored, where } of pairWithRecorded(ours, readRows(rollouts.path!), { rows: 5 })) assertSameVerdict(stored, rollout, where);
});
