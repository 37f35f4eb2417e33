// Parity with NeMo Gym's Python verifier (../shared/nemo-gym-data, never committed). Its recorded rollouts
// keep only the reward, and its example dataset is the later tool-call (v4) set, so the rows the rollouts
// were scored with come from the parity reference set (each rollout joined with its dataset row): the stored
// rewards are reproduced from them, and each reference line gives NeMo Gym's reward and every extra field
// (error_type, error_message and the echoed row fields, in NeMo Gym's order). End to end, scripted_model replays
// the recorded answers through simple_agent into our verify.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertParity, assertReferenceSet, assertSameAsRecorded, parityTable, readRows, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("structured_outputs/data/example_rollouts.jsonl");
const reference = sharedDataFile("structured_outputs/parity/reference_verify.jsonl");
const skip = rollouts.skip || reference.skip;
// The fields of NeMo Gym's StructuredOutputsVerifyResponse after `reward`, in its order.
const RESPONSE_FIELDS = ["schema_str", "schema_type", "error_type", "error_message", "problem_type", "schema_repr", "source_format", "num_turns", "source_record_id", "response_mode", "tool_name", "tool_schema_mode", "tool_payload_key", "tool_choice", "parallel_tool_calls", "source_schema_type", "num_tools", "num_distractors", "has_distractors", "instruction_layout", "instruction_detail_level", "system_instruction_style", "tool_name_style", "distractor_style", "tool_union_mode"];
/** What the reference set expects back: every response field but the schema it was given. */
const REFERENCE_EXTRA_FIELDS = RESPONSE_FIELDS.filter((field) => field !== "schema_str" && field !== "schema_type");

// NeMo Gym's own config for the JSON set these rollouts come from.
const graph = replayGraphForTests({ skip, configs: [join(import.meta.dirname, "../configs/structured_outputs_json.yaml")], replay: rollouts.path });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every stored reward", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: referenceRowsAsInputs(reference.path!), server: "structured_outputs" });
  console.log(parityTable(report.outcomes));
  // The stored lines keep only the reward: no extra field to compare.
  assertParity(report, { rows: 5, extraFields: [] });
});

test("the parity reference set gives NeMo Gym's reward and every extra field, in NeMo Gym's order", { skip }, async () => {
  const table = await assertReferenceSet(graph(), "structured_outputs", reference.path!, {
    lines: 5,
    extraFields: REFERENCE_EXTRA_FIELDS,
    alsoCheck: (body, { request }) => {
      assert.deepEqual(Object.keys(body), ["responses_create_params", "response", "reward", ...RESPONSE_FIELDS]);
      assert.equal(body.schema_str, request.schema_str);
    },
  });
  console.log(table);
});

test("end to end: the recorded answers, replayed through simple_agent, score as recorded", { skip }, async () => {
  const rows = referenceRowsAsInputs(reference.path!).map(({ row }) => ({ ...row, agent_ref: { type: "responses_api_agents", name: "structured_outputs_simple_agent" } }));
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: rows });
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: [] });
});
