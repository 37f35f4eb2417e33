// Parity with NeMo Gym's Python server, from its reference data in ../shared (skipped when absent): its
// recorded rollouts re-verified with their dataset rows, and its reference verify requests.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertParity, assertReferenceSet, type InProcessGraph, parityLine, readRows, reverifyStored, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import calendar from "../app.ts";
import { gradeAssistantResponse } from "../grading.ts";

const rollouts = sharedDataFile("calendar/data/example_rollouts.jsonl");
const dataset = sharedDataFile("calendar/data/example.jsonl");
const reference = sharedDataFile("calendar/parity/reference_verify.jsonl");

let graph: InProcessGraph;

before(async () => (graph = await startServers({ calendar: [calendar] })));
after(() => graph.close());

test("NeMo Gym's recorded rollouts re-verify to every stored reward and extra field", { skip: rollouts.skip || dataset.skip }, async (t) => {
  // The rollout lines lack exp_cal_state; reverify finds each one's dataset row by its prompt.
  const report = await reverifyStored(graph, { rollouts: rollouts.path!, inputs: dataset.path!, server: "calendar", verifyOnly: false, concurrency: 1 });
  for (const outcome of report.outcomes) t.diagnostic(parityLine(outcome));
  // NeMo Gym's verify response carries no field beyond params, response and reward.
  assertParity(report, { rows: 5, extraFields: [] });
  for (const outcome of report.outcomes) assert.deepEqual(Object.keys(outcome.line!).filter((k) => !k.startsWith("_ng_")), ["responses_create_params", "response", "reward"]);
  assert.deepEqual(
    report.outcomes.map((o) => o.line!.reward),
    readRows(rollouts.path!).map((r) => r.reward),
  );
});

test("NeMo Gym's reference verify requests give the expected reward and extra fields", { skip: reference.skip }, async (t) => {
  await assertReferenceSet(graph, "calendar", reference.path!, {
    lines: 5,
    extraFields: [],
    // Why each scored as it did (NeMo Gym computes the reason too, and drops it).
    alsoCheck: (result, { request, lineNumber }) => {
      const text = request.response.output.at(-1).content[0].text;
      t.diagnostic(`line ${lineNumber}: reward ${String(result.reward)} (${gradeAssistantResponse(text, request.exp_cal_state)[1]})`);
    },
  });
});
