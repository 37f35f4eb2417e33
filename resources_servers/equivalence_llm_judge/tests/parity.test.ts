// Parity with NeMo Gym's Python verify (../shared/nemo-gym-data/equivalence_llm_judge, never committed): the server
// runs its shipped config with NeMo Gym's own template (read from the shared copy), and scripted_model replays the
// judge answers NeMo Gym recorded, matched by the exact judge prompt — so a prompt of ours that differed by one
// character would be a failed judge call, not a pass. The reference set (10 lines: 5 SciQ rows, 5 OpenQA rows with
// per-record regexes) gives NeMo Gym's reward, the same judge prompts and the same verdict labels; the 5 stored
// rollouts re-verified give their stored rewards.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadGlobalConfig } from "../../../src/config/index.ts";
import { assertParity, type InProcessGraph, parityDetails, readRows, referenceLines, reverifyStored, sharedDataFile, startInProcess } from "../../../src/testing/index.ts";

const reference = sharedDataFile("equivalence_llm_judge/parity/reference_verify.jsonl");
const rollouts = sharedDataFile("equivalence_llm_judge/data/example_rollouts.jsonl");
const dataset = sharedDataFile("equivalence_llm_judge/data/example.jsonl");
const template = sharedDataFile("equivalence_llm_judge/prompt_templates/equivalence_llm_judge.txt");
const skip = reference.skip || rollouts.skip || dataset.skip || template.skip;

const SERVER = "equivalence_llm_judge.resources_servers.equivalence_llm_judge";
let graph: InProcessGraph | undefined;
before(async () => {
  if (skip) return;
  const { resolved } = await loadGlobalConfig({
    configPaths: [join(import.meta.dirname, "../configs/equivalence_llm_judge.yaml"), "responses_api_models/scripted_model/configs/scripted_model.yaml"],
    overrides: [
      `++${SERVER}.judge_prompt_template_fpath=${template.path}`,
      `++${SERVER}.judge_model_server.name=judge_model`,
      "++judge_model.responses_api_models.scripted_model.entrypoint=app.ts",
      "++judge_model.responses_api_models.scripted_model.mode=judge_replay",
      `++judge_model.responses_api_models.scripted_model.judge_replay_jsonl_fpath=[${reference.path},${rollouts.path}]`,
    ],
  });
  graph = await startInProcess(resolved);
});
after(() => graph?.close());

test("the reference set: NeMo Gym's reward, judge prompts and verdict labels on all 10 lines", { skip }, async () => {
  const lines = referenceLines(reference.path!);
  assert.equal(lines.length, 10);
  const table: string[] = [];
  for (const line of lines) {
    const { judge_replies: _replies, ...request } = line.request;
    const answer = await graph!.client.post("equivalence_llm_judge", "/verify", { json: request });
    assert.equal(answer.status, 200, `line ${line.lineNumber}: ${answer.text}`);
    const body = answer.json<Record<string, any>>();
    table.push(`line ${line.lineNumber}: expected ${line.expectedReward} → ours ${body.reward}${body._ng_failure_class ? ` (${body._ng_failure_judge_error})` : ""}`);
    const expected = line.expectedExtra.judge_evaluations as any[];
    assert.equal(body.reward, line.expectedReward, table.join("\n"));
    assert.deepEqual(body.judge_evaluations.map((e: any) => e.responses_create_params.input), expected.map((e) => e.responses_create_params.input), `line ${line.lineNumber}: the judge prompts`);
    assert.deepEqual(body.judge_evaluations.map((e: any) => e.verdict_label), expected.map((e) => e.verdict_label), `line ${line.lineNumber}: the verdict labels`);
    assert.deepEqual(body.judge_evaluations.map((e: any) => e.response.output), expected.map((e) => e.response.output), `line ${line.lineNumber}: the judge answers`);
  }
});

test("the 5 stored rollouts re-verified with their recorded judgements: every reward as stored", { skip }, async () => {
  const report = await reverifyStored(graph!, { rollouts: rollouts.path!, inputs: dataset.path!, server: "equivalence_llm_judge" });
  // judge_evaluations differ only in what scripted_model puts around the replayed answer (its ids, its model name).
  const why = "the judge's recorded answer is replayed by scripted_model, under its own response id and model name";
  assertParity(report, { rows: 5, extraFields: ["expected_answer", "judge_evaluations"], expectedDifferences: [1, 2, 3, 4, 5].map((line) => ({ line, fields: ["judge_evaluations"], why })) });
  const stored = readRows(rollouts.path!);
  for (const outcome of report.outcomes) {
    assert.equal(outcome.line!._ng_failure_class, undefined, parityDetails(report));
    const recorded = stored[outcome.lineNumber - 1]!.judge_evaluations as any[];
    const ours = outcome.line!.judge_evaluations as any[];
    assert.deepEqual(ours.map((e) => e.responses_create_params.input), recorded.map((e) => e.responses_create_params.input), `line ${outcome.lineNumber}: the judge prompts`);
    assert.deepEqual(ours.map((e) => [e.verdict_label, e.response.output]), recorded.map((e) => [e.verdict_label, e.response.output]), `line ${outcome.lineNumber}: the verdicts`);
  }
});
