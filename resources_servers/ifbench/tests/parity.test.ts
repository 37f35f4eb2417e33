// Parity with NeMo Gym's Python verifier on its recorded ifbench rollouts (../shared/nemo-gym-data, never
// committed): re-verified verify-only, every row this port can score comes back with the stored reward,
// follow_all_instructions and follow_instruction_list (and the echoed kwargs, ids, prompt and grading_mode). The two rows
// with words:start_verb need NLTK's perceptron tagger and are 501s here. The recorded lines predate NeMo Gym's loose
// scoring, so the loose fields are not stored to compare.
import { test } from "node:test";
import { join } from "node:path";
import { assertParity, readRows, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("ifbench/data/example_rollouts.jsonl");
const dataset = sharedDataFile("ifbench/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["follow_all_instructions", "follow_instruction_list", "kwargs", "instruction_id_list", "prompt", "grading_mode"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/ifbench.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts: the 3 scorable rows reproduce, the 2 words:start_verb rows are 501s", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "ifbench" });
  const startVerbLines = readRows(rollouts.path!).flatMap((row, i) => (row.instruction_id_list.includes("words:start_verb") ? [i + 1] : []));
  assertParity(report, {
    rows: 5,
    extraFields: EXTRA_FIELDS,
    expectedDifferences: startVerbLines.map((line) => ({
      line,
      failure: { status: 501, bodyIncludes: "words:start_verb needs NLTK's averaged_perceptron_tagger_eng model" },
      why: "words:start_verb needs NLTK's part-of-speech tagger model",
    })),
  });
});
