// Parity with NeMo Gym's Python verify on its reference set (../shared/nemo-gym-data/math_with_code/parity, never
// committed): 5 recorded rollouts joined with their rows and re-scored by NeMo Gym at 07d6b0d. Every reward,
// extracted_answer and accuracy comes back the same. (The stored example_rollouts.jsonl were scored by an older
// extraction, `\sqrt{2` for `\sqrt{2}`; the reference set is what today's NeMo Gym answers, so that is the target.)
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { assertReferenceSet, type InProcessGraph, referenceLines, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import mathWithCode from "../app.ts";

const reference = sharedDataFile("math_with_code/parity/reference_verify.jsonl");
let graph: InProcessGraph | undefined;
after(() => graph?.close());

test("the parity reference set: NeMo Gym's reward, extracted_answer and accuracy on all 5 lines", { skip: reference.skip }, async () => {
  graph = await startServers({ math_with_code: [mathWithCode, { max_execution_time: 10 }] });
  const table = await assertReferenceSet(graph, "math_with_code", reference.path!, { lines: 5, extraFields: ["extracted_answer", "accuracy"] });
  const rewards = referenceLines(reference.path!).map((line) => line.expectedReward);
  assert.deepEqual(rewards.sort(), [0, 0, 0, 1, 1], table);
});
