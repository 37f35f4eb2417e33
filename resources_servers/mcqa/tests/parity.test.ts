// Parity with NeMo Gym's Python verifier (../shared/nemo-gym-data, never committed). The stored rollouts do not
// echo `options`, and NeMo Gym's example.jsonl holds only one of their prompts, so their dataset rows come from
// the parity reference set (each rollout joined with its row). Re-verified, every stored reward and
// expected_answer / extracted_answer comes back — except stored line 3, which NeMo Gym recorded before its
// `\boxed{C: …}` fix: stored 0.0 (extracted null), today 1.0 (extracted "C"). The reference set (re-scored by
// today's Python verify) is matched exactly, line for line, including its 5 template_metadata rows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, lastPrompt, parityDetails, readRows, referenceLines, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("mcqa/data/example_rollouts.jsonl");
const reference = sharedDataFile("mcqa/parity/reference_verify.jsonl");
const skip = rollouts.skip || reference.skip;
const EXTRA_FIELDS = ["expected_answer", "extracted_answer"];
/** The one stored rollout that predates NeMo Gym's `\boxed{C: …}` fix. */
const PRE_FIX_LINE = 3;

const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/mcqa.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts reproduces every reward and field but the one recorded before the \\boxed{C: …} fix", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: referenceRowsAsInputs(reference.path!), server: "mcqa" });
  assertParity(report, {
    rows: 5,
    extraFields: EXTRA_FIELDS,
    expectedDifferences: [{ line: PRE_FIX_LINE, rewardDiffers: true, fields: ["extracted_answer"], why: "recorded before NeMo Gym's \\boxed{C: …} fix" }],
  });
  const preFix = report.outcomes.find((o) => o.lineNumber === PRE_FIX_LINE)!;
  const stored = readRows(rollouts.path!)[PRE_FIX_LINE - 1]!;
  assert.deepEqual([stored.reward, stored.extracted_answer], [0, null], "the stored row: no letter found in \\boxed{C: An individual …}");
  assert.deepEqual([preFix.line?.reward, preFix.line?.extracted_answer], [1, "C"], parityDetails(report));
});

test("the parity reference set (10 lines, 5 with template_metadata) gives NeMo Gym's reward and extracted answer", { skip }, async () => {
  await assertReferenceSet(graph(), "mcqa", reference.path!, {
    lines: 10,
    extraFields: ["extracted_answer"],
    alsoCheck: (body, { request }) => assert.equal(body.expected_answer, String(request.expected_answer).trim().toUpperCase()),
  });
});

test("end to end: the recorded turns replayed through simple_agent score as NeMo Gym scores them today", { skip }, async () => {
  const recordedPrompts = new Set(readRows(rollouts.path!).map(lastPrompt));
  const rows = referenceRowsAsInputs(reference.path!).map(({ row }) => row).filter((row) => recordedPrompts.has(lastPrompt(row)));
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: rows, agentName: "mcqa_simple_agent" });
  // What NeMo Gym's verify records for each reference line today.
  const scoredToday = referenceLines(reference.path!).map(({ request, expectedReward, expectedExtra }) => ({ ...request, reward: expectedReward, ...expectedExtra }));
  assertSameAsRecorded(ours, scoredToday, { rows: 5, extraFields: ["extracted_answer"] });
});
