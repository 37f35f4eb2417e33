// Parity with NeMo Gym's inverse_if reference rollouts, replayed: each recorded rubric evaluation keeps the judge
// prompt it sent and the judge's answer (thinking stripped), so scripted_model (judge_replay) answers our judge
// prompts with those answers — a prompt formatted differently from NeMo Gym's finds no recording and fails the row.
// Every stored reward and extra field must come back. The data is not in ../shared/nemo-gym-data at this writing
// (NeMo Gym's resources_servers/inverse_if/data/{example,example_rollouts}.jsonl at 07d6b0d); the test skips
// without it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadYamlFile } from "../../../src/config/yaml.ts";
import { assertParity, assistantMessage, type InProcessGraph, parityDetails, readRows, reverifyStored, serverDefinition, sharedDataFile, startServers } from "../../../src/testing/index.ts";
import inverseIf from "../app.ts";

const rollouts = sharedDataFile("inverse_if/data/example_rollouts.jsonl");
const dataset = sharedDataFile("inverse_if/data/example.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["prompt", "generated_response", "reference_response", "rubric_evaluations", "aggregation_mode", "num_passed", "num_total", "uuid", "task_id", "metadata"];

/** The recorded judgements as request/answer pairs: the row's system prompt (or the config's), the recorded prompt. */
function judgeReplayFile(defaultSystemPrompt: string): string {
  const rows = new Map(readRows(dataset.path!).map((row) => [row.uuid, row]));
  const lines: string[] = [];
  for (const rollout of readRows(rollouts.path!)) {
    const system = (rows.get(rollout.uuid)?.judge_system_prompt as string | undefined) || defaultSystemPrompt;
    for (const evaluation of rollout.rubric_evaluations) {
      const input = [...(system ? [{ role: "system", content: system }] : []), { role: "user", content: evaluation.judge_prompt }];
      // Nested below the line: judge_replay reads a line's own top-level pair as the policy's turn.
      lines.push(JSON.stringify({ judge_evaluations: [{ responses_create_params: { input }, response: { output: [assistantMessage(evaluation.judge_response)] } }] }));
    }
  }
  const file = join(mkdtempSync(join(tmpdir(), "gym-inverse-if-replay-")), "judge.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

let graph: InProcessGraph | undefined;
before(async () => {
  if (skip) return;
  const config = await loadYamlFile(join(import.meta.dirname, "../configs/inverse_if.yaml"));
  const shipped = (config.inverse_if as any).resources_servers.inverse_if;
  const scriptedModel = await serverDefinition("responses_api_models/scripted_model");
  graph = await startServers({
    inverse_if: [inverseIf, shipped],
    judge_model: [scriptedModel, { mode: "judge_replay", judge_replay_jsonl_fpath: judgeReplayFile(shipped.default_judge_system_prompt) }],
  });
});
after(() => graph?.close());

test("NeMo Gym's 5 recorded rewards and every extra field are reproduced by replaying the recorded judgements", { skip }, async () => {
  const report = await reverifyStored(graph!, { rollouts: rollouts.path!, inputs: dataset.path!, server: "inverse_if", callDeadlineMs: 20_000 });
  assertParity(report, { rows: 5, extraFields: EXTRA_FIELDS });
  assert.ok(report.outcomes.every((o) => o.rewardEqual), parityDetails(report));
});
