// Parity with NeMo Gym's Python verifier on its abstention reference data (../shared/nemo-gym-data, never
// committed): the parity reference set (each request with the judge's replies, in the order verify asked) and the
// stored rollouts. The judge is scripted_model in judge_rules mode answering each row's recorded reply, matched by
// the row's question in the prompt. NeMo Gym's grader prompt is not in the shared data (it is a constant of its
// app.py, fetched at start), so the prompt here is our example template; the reward depends only on the replies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { assertParity, assertReferenceSet, assertSameAsRecorded, readRows, referenceLines, referenceRowsAsInputs, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("abstention/data/example_rollouts.jsonl");
const reference = sharedDataFile("abstention/parity/reference_verify.jsonl");
const skip = rollouts.skip || reference.skip;
const EXTRA_FIELDS = ["extracted_answer", "ground_truth", "verdict", "judge_output", "is_correct", "is_abstain", "is_incorrect", "omniscience_index"];
const EXAMPLE_TEMPLATE = join(import.meta.dirname, "../prompt_templates/example.txt");

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A config naming the judge NeMo Gym's abstention.yaml points at (genrm_model): scripted_model with one rule per judged row. */
function judgeConfigFile(): string {
  const rules = referenceLines(reference.path!).flatMap(({ request }) => {
    const replies = (request.judge_replies ?? []) as unknown[];
    assert.ok(replies.every((reply) => typeof reply === "string"), "abstention's recorded replies are texts");
    return replies.map((reply) => ({ match: `Question: ${escapeRegex(request.question)}\\n`, answer: reply as string }));
  });
  const file = join(mkdtempSync(join(tmpdir(), "gym-abstention-parity-")), "judge.yaml");
  writeFileSync(file, stringify({ genrm_model: { responses_api_models: { scripted_model: { entrypoint: "app.py", mode: "judge_rules", judge_rules: rules } } } }));
  return file;
}

const graph = replayGraphForTests({
  skip,
  configs: skip ? [] : [join(import.meta.dirname, "../configs/abstention.yaml"), judgeConfigFile()],
  replay: rollouts.path,
  overrides: [`++abstention.resources_servers.abstention.judge_prompt_template_fpath=${EXAMPLE_TEMPLATE}`],
});

// judge_replies is the fake judge's script, not a dataset field: it is not posted.
const referenceInputs = () => referenceRowsAsInputs(reference.path!).map(({ row: { judge_replies: _replies, ...row }, ...line }) => ({ ...line, row, text: JSON.stringify(row) }));

test("the parity reference set gives NeMo Gym's reward and every extra field (5/5)", { skip }, async () => {
  const { path } = reference;
  const stripped = join(mkdtempSync(join(tmpdir(), "gym-abstention-ref-")), "reference.jsonl");
  writeFileSync(stripped, readRows(path!).map(({ judge_replies: _replies, ...line }) => JSON.stringify(line)).join("\n") + "\n");
  await assertReferenceSet(graph(), "abstention", stripped, { lines: 5, extraFields: EXTRA_FIELDS });
});

test("re-verifying NeMo Gym's 5 stored rollouts reproduces every reward and extra field", { skip }, async () => {
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs: referenceInputs(), server: "abstention" });
  // The stored rollouts also echo the row's id, question and answer (NeMo Gym's request is extra=allow).
  assertParity(report, { rows: 5, extraFields: ["id", "question", "answer", ...EXTRA_FIELDS] });
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: referenceInputs().map(({ row }) => row), agentName: "abstention_simple_agent" });
  assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: EXTRA_FIELDS });
});
