// Parity with NeMo Gym's Python verifier on its recorded reasoning_gym rollouts (../shared/nemo-gym-data, never
// committed): every stored reward, score and task_name comes back the same, re-verified verify-only and end to
// end (scripted_model replays the recorded turns through simple_agent into our verify).
//
// extracted_answer is the one stored field we do not reproduce byte for byte: the stored values keep the
// response's leading "\n\n", although every committed version of NeMo Gym's app.py strips the whole-text
// fallback (`full_text.strip()`). We follow the code; the stored value stripped is ours, and the scores are
// unaffected (knights_knaves strips before it compares).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertSameAsRecorded, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";
import { pythonStrip as strip } from "../../../src/python/str.ts";

const rollouts = sharedDataFile("reasoning_gym/data/example_rollouts.jsonl");
const dataset = sharedDataFile("reasoning_gym/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["task_name", "score", "extracted_answer"];

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/reasoning_gym.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward, score and task_name", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "reasoning_gym" });
  const stored = readRows(rollouts.path!);
  // Exactly the stored answers with surrounding whitespace differ: ours is the stored one stripped.
  const unstripped = stored.flatMap((row, i) => (row.extracted_answer !== strip(row.extracted_answer) ? [i + 1] : []));
  assertParity(report, {
    rows: 5,
    extraFields: EXTRA_FIELDS,
    expectedDifferences: unstripped.map((line) => ({ line, fields: ["extracted_answer"], why: "NeMo Gym's app.py strips the whole-text fallback; the stored value was not" })),
  });
  for (const outcome of report.outcomes) {
    const original = stored[outcome.lineNumber - 1]!;
    assert.equal(outcome.line!.extracted_answer, strip(original.extracted_answer), `line ${outcome.lineNumber}: ours is the stored extracted_answer stripped`);
  }
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path!, agentName: "reasoning_gym_simple_agent" });
  for (const { ours: rollout, stored, where } of assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: ["score", "task_name"] })) {
    assert.equal(rollout.extracted_answer, strip(stored.extracted_answer), where);
  }
});
