// Parity with NeMo Gym's Python verifier on its citation_if reference set (../shared/nemo-gym-data, never committed):
// each line is a verify request NeMo Gym's scorer scored, with its reward and match_details. Posted to /verify, and
// replayed end to end (scripted_model answers each prompt with the recorded response through simple_agent, max_steps 1).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertReferenceSet, pairWithRecorded, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, sharedDataFile } from "../../../src/testing/index.ts";

const reference = sharedDataFile("citation_if/parity/reference_verify.jsonl");
const skip = reference.skip;
const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/citation_if.yaml")], replay: reference.path });

test("the parity reference set gives NeMo Gym's reward and match_details, and echoes the verifier (5/5)", { skip }, async () => {
  await assertReferenceSet(graph(), "citation_if", reference.path!, {
    lines: 5,
    extraFields: ["match_details"],
    alsoCheck: (body, line) => assert.deepEqual(body.verifier, line.request.verifier, `line ${line.lineNumber}: verifier`),
  });
});

test("end to end: the recorded answers replayed through simple_agent score as NeMo Gym scored them", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: referenceRowsAsInputs(reference.path!).map(({ row }) => row), agentName: "citation_if_simple_agent" });
  // Every line ends with the same "Provide your final answer now" turn: rows pair up by their whole input.
  const key = (row: Record<string, any>) => JSON.stringify(row.responses_create_params.input.map((item: Record<string, unknown>) => item.content ?? item.output ?? item.arguments));
  for (const { ours: rollout, stored, where } of pairWithRecorded(ours, readRows(reference.path!), { rows: 5, key })) {
    assert.equal(rollout.reward, stored.expected_reward, `${where}: reward`);
    assert.deepEqual(rollout.match_details, stored.expected_extra.match_details, `${where}: match_details`);
  }
});
