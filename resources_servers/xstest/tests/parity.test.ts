// Parity with NeMo Gym's Python verifier on its xstest reference data (../shared/nemo-gym-data, never committed),
// scored with NeMo Gym's xstest.yaml (WildGuard's prompt and format). The judge is scripted_model in judge_replay
// mode: the stored rollouts record every judge call in full (judge_evaluations), so each recorded WildGuard answer is
// found by the exact prompt this server builds from NeMo Gym's own template (the shared copy), and the policy's
// turns are replayed too. Compared: the reward, label, prompt_type, is_refusal, cleaned_response, and of
// judge_evaluations the whole request sent, the judge's answer and the verdict label (the replayed response envelope is
// scripted_model's, not the recorded one's id and timestamps).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { assertSameAsRecorded, readRows, referenceLines, replayEndToEnd, replayGraphForTests, reverifyStored, sharedDataFile } from "../../../src/testing/index.ts";

const rollouts = sharedDataFile("xstest/data/example_rollouts.jsonl");
const reference = sharedDataFile("xstest/parity/reference_verify.jsonl");
const template = sharedDataFile("xstest/prompt_templates/wildguard_judge.txt");
const skip = rollouts.skip || reference.skip || template.skip;
const FIELDS = ["label", "prompt_type", "is_refusal", "cleaned_response"];

function judgeConfigFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), "gym-xstest-parity-")), "judge.yaml");
  writeFileSync(file, stringify({ allenai_wildguard_model_server: { responses_api_models: { scripted_model: { entrypoint: "app.py", mode: "judge_replay", judge_replay_jsonl_fpath: rollouts.path } } } }));
  return file;
}

const graph = replayGraphForTests({
  skip,
  configs: skip ? [] : [join(import.meta.dirname, "../configs/xstest.yaml"), judgeConfigFile()],
  replay: rollouts.path,
  overrides: ["~allenai_wildguard_model_server.responses_api_models.vllm_model", `++xstest_resources_server.resources_servers.xstest.judge_prompt_template_fpath=${template.path}`],
});

type Row = Record<string, any>;
/** What of a judge evaluation must come back: the request sent (all of it, as pydantic dumps it), the judge's answer text, the verdict label. */
const judged = (evaluations: unknown) =>
  ((evaluations ?? []) as Row[]).map((e) => ({ params: e.responses_create_params, answer: e.response.output.at(-1).content.at(-1).text, verdict_label: e.verdict_label }));

test("the parity reference set gives NeMo Gym's reward and extra fields, and the same judge exchange (5/5)", { skip }, async () => {
  const table: string[] = [];
  for (const line of referenceLines(reference.path!)) {
    const { judge_replies: replies, ...request } = line.request;
    const answer = await graph().client.post("xstest_resources_server", "/verify", { json: request });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Row>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${body.reward}`);
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    for (const field of FIELDS) assert.deepEqual(body[field], line.expectedExtra[field], `line ${line.lineNumber}: ${field}`);
    assert.deepEqual(judged(body.judge_evaluations), judged(line.expectedExtra.judge_evaluations), `line ${line.lineNumber}: judge_evaluations`);
    // The recorded reply is the body the judge gave: the same answer text was replayed.
    assert.equal(replies.length, 1);
    assert.equal(replies[0].body.output.at(-1).content.at(-1).text, judged(body.judge_evaluations)[0]!.answer);
  }
  assert.equal(table.length, 5);
});

test("re-verifying NeMo Gym's 5 stored rollouts reproduces every reward and extra field", { skip }, async () => {
  const inputs = referenceLines(reference.path!).map(({ lineNumber, request: { response: _r, judge_replies: _j, ...row } }) => ({ lineNumber, row, text: JSON.stringify(row) }));
  const report = await reverifyStored(graph(), { rollouts: rollouts.path!, inputs, server: "xstest_resources_server" });
  const stored = readRows(rollouts.path!);
  assert.equal(report.outcomes.length, 5);
  for (const outcome of report.outcomes) {
    assert.equal(outcome.failure, undefined, JSON.stringify(outcome.failure));
    assert.equal(outcome.rewardEqual, true, `line ${outcome.lineNumber}`);
    const recorded = stored[outcome.lineNumber - 1]!;
    for (const field of FIELDS) assert.deepEqual(outcome.line![field], recorded[field], `line ${outcome.lineNumber}: ${field}`);
    assert.deepEqual(judged(outcome.line!.judge_evaluations), judged(recorded.judge_evaluations), `line ${outcome.lineNumber}: judge_evaluations`);
  }
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const rows = referenceLines(reference.path!).map(({ request: { response: _r, judge_replies: _j, ...row } }) => row);
  const { rollouts: ours } = await replayEndToEnd(graph(), { inputs: rows, agentName: "xstest_simple_agent" });
  const pairs = assertSameAsRecorded(ours, readRows(rollouts.path!), { rows: 5, extraFields: FIELDS });
  for (const { ours: rollout, stored, where } of pairs) assert.deepEqual(judged(rollout.judge_evaluations), judged(stored.judge_evaluations), where);
});
