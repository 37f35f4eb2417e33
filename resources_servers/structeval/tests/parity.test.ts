// Parity with NeMo Gym's Python verifier on its recorded structeval rollouts (../shared/nemo-gym-data, never
// committed): every stored reward and extra field (render_score, key_validation_score, raw_output_score,
// error_type, error_message and the echoed row fields) comes back the same — re-verified from both rollout
// files, through the parity reference set, and end to end through NeMo Gym's own config (scripted_model replays
// the recorded answers through simple_agent into our verify).
import { test } from "node:test";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, parityTable, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const configs = ["structeval.yaml", "structeval_nonrenderable.yaml"].map((file) => join(import.meta.dirname, "../configs", file));
const dataset = sharedDataFile("structeval/data/example.jsonl");
const rolloutFiles = ["structeval/data/example_rollouts.jsonl", "structeval/data/structeval_nonrenderable_example_rollouts.jsonl"].map((file) => ({ file, ...sharedDataFile(file) }));
const reference = sharedDataFile("structeval/parity/reference_verify.jsonl");
const EXTRA_FIELDS = ["task_id", "task_name", "input_type", "output_type", "raw_output_metric", "rendering", "render_score", "key_validation_score", "raw_output_score", "error_type", "error_message"];
const REFERENCE_EXTRA_FIELDS = ["render_score", "key_validation_score", "raw_output_score", "error_type", "error_message"];

const graph = replayGraphForTests({ skip: dataset.skip || rolloutFiles[0]!.skip, configs, replay: rolloutFiles[0]!.path });

for (const rollouts of rolloutFiles) {
  test(`re-verifying ${rollouts.file} reproduces every reward and extra field`, { skip: rollouts.skip || dataset.skip }, async () => {
    const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "structeval" });
    console.log(`${rollouts.file}\n${parityTable(report.outcomes)}`);
    assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
  });
}

test("the parity reference set gives NeMo Gym's reward and every extra field", { skip: dataset.skip || reference.skip }, async () => {
  console.log(await assertReferenceSet(graph(), "structeval", reference.path!, { lines: 10, extraFields: REFERENCE_EXTRA_FIELDS }));
});

test("end to end with NeMo Gym's structeval_nonrenderable config: the recorded answers score as recorded", { skip: dataset.skip || rolloutFiles[0]!.skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path! });
  assertSameAsRecorded(ours, readRows(rolloutFiles[0]!.path!), { rows: 5, extraFields: EXTRA_FIELDS });
});
