// Parity with NeMo Gym's Python verifier on its recorded gpqa_diamond rollouts (../shared/nemo-gym-data, never
// committed). The stored rollouts do not echo `options` and NeMo Gym's example.jsonl holds none of their prompts,
// so their dataset rows come from the parity reference set (each rollout joined with its row). Every stored
// reward, expected_answer and extracted_answer comes back: re-verified, through the reference set, and end to
// end (scripted_model replays the recorded turns through simple_agent into our verify).
import { test } from "node:test";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("gpqa_diamond/data/example_rollouts.jsonl");
const reference = sharedDataFile("gpqa_diamond/parity/reference_verify.jsonl");
const skip = rollouts.skip || reference.skip;
const EXTRA_FIELDS = ["expected_answer", "extracted_answer"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/gpqa_diamond.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts reproduces every reward and extra field", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: referenceRowsAsInputs(reference.path!), server: "gpqa_diamond" });
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
});

test("the parity reference set gives NeMo Gym's reward and extracted answer", { skip }, async () => {
  await assertReferenceSet(graph(), "gpqa_diamond", reference.path!, { lines: 5, extraFields: ["extracted_answer"] });
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: referenceRowsAsInputs(reference.path!).map(({ row }) => row), agentName: "gpqa_diamond_simple_agent" });
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: EXTRA_FIELDS });
});
