// Parity with NeMo Gym's Python verifier on its recorded format_verification rollouts (../shared/nemo-gym-data,
// never committed): every stored reward, verifier and match_details comes back — re-verified against NeMo Gym's
// example.jsonl (the freeform regex rows), through the parity reference set, and end to end (scripted_model
// replays the recorded turns through simple_agent into our verify). NeMo Gym's citation rows
// (ds3_citation_format_example.jsonl) have no recorded rollouts; each is scored with answers citing exactly
// its markers, one short, and one extra, against the rewards NeMo Gym's verify gives them (checked with python3).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, caseVerifyRequest, readRows, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile, type VerifierCaseLine } from "../../../src/testing/index.ts";

// NeMo Gym's own configs, which name the instances its rows' agent_ref points at.
const configs = ["freeform_formatting.yaml", "citation_format.yaml"].map((file) => join(import.meta.dirname, "../configs", file));
const rollouts = sharedDataFile("format_verification/data/example_rollouts.jsonl");
const dataset = sharedDataFile("format_verification/data/example.jsonl");
const reference = sharedDataFile("format_verification/parity/reference_verify.jsonl");
const citations = sharedDataFile("format_verification/data/ds3_citation_format_example.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["verifier", "match_details"];

const graph = replayGraphForTests({ skip, configs, replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward, verifier and match_details", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: dataset.path!, server: "freeform_formatting" });
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
});

test("the parity reference set gives NeMo Gym's reward and match_details", { skip: skip || reference.skip }, async () => {
  await assertReferenceSet(graph(), "freeform_formatting", reference.path!, {
    lines: 5,
    extraFields: ["match_details"],
    alsoCheck: (body, { request }) => assert.deepEqual(body.verifier, request.verifier),
  });
});

test("NeMo Gym's citation rows: exactly the markers → 1.0, one missing → 0.0, an unexpected [x:9] → 1.0 (its patterns are the markers themselves)", { skip: skip || citations.skip }, async () => {
  const rows = readRows(citations.path!);
  assert.equal(rows.length, 5);
  const scoreOf = async (row: Record<string, any>, text: string) => {
    const answer = await graph().client.post("citation_format", "/verify", { json: caseVerifyRequest({ case: "full_reward", row: row as VerifierCaseLine["row"], tool_calls: [], output_text: text, expected_reward: 0 }) });
    assert.equal(answer.status, 200, answer.text);
    return answer.json<{ reward: number; match_details: Record<string, unknown> }>();
  };
  for (const row of rows) {
    const markers: string[] = row.verifier.expected_markers;
    const exact = await scoreOf(row, `A claim ${markers.join(" and another ")}.`);
    assert.deepEqual([exact.reward, exact.match_details], [1, { expected: markers, missing: [], spurious: [], passed: true }]);
    const short = await scoreOf(row, `A claim ${markers.slice(1).join(" ")}.`);
    assert.deepEqual([short.reward, short.match_details], [0, { expected: markers, missing: [markers[0]], spurious: [], passed: false }]);
    const extra = await scoreOf(row, `A claim ${markers.join(" ")} ${markers[0]!.replace(/\d+/, "9")}.`);
    assert.deepEqual([extra.reward, extra.match_details.spurious], [1, []]);
  }
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: dataset.path!, agentName: "freeform_formatting_simple_agent" });
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: EXTRA_FIELDS });
});
