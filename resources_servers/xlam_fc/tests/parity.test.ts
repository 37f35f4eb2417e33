// Parity with NeMo Gym's Python verifier on its recorded xlam_fc rollouts (../shared/nemo-gym-data, never
// committed): every stored reward and every extra field (num_expected, num_predicted, num_correct,
// predicted_calls) comes back the same — re-verified verify-only (no tools, no state), re-verified with the
// recorded calls replayed (each gets the same 404 body the Python server gave), through the parity reference
// set, and end to end (scripted_model replays the recorded turns through simple_agent into our verify).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGlobalConfig } from "../../../src/config/index.ts";
import { collectRollouts } from "../../../src/rollouts/collect.ts";
import { readJsonl } from "../../../src/rollouts/jsonl.ts";
import { formatReverifyReport, reverifyRollouts, type ReverifyReport } from "../../../src/rollouts/reverify.ts";
import { startInProcess, type InProcessGraph } from "../../../src/testing/in-process.ts";
import { readRows } from "../../../tests/helpers/environment-checks.ts";
import { sharedDataFile } from "../../../tests/helpers/shared-data.ts";
import { parityTable } from "../../../tests/helpers/reference-rows.ts";

const config = join(import.meta.dirname, "../configs/xlam_fc.yaml");
const rollouts = sharedDataFile("xlam_fc/data/example_rollouts.jsonl");
const dataset = sharedDataFile("xlam_fc/data/example.jsonl");
const reference = sharedDataFile("xlam_fc/parity/reference_verify.jsonl");
const skip = rollouts.skip || dataset.skip;
const EXTRA_FIELDS = ["num_expected", "num_predicted", "num_correct", "predicted_calls"];

/** One line per row: stored → ours, and what differs (or why the row failed). */
const details = (report: ReverifyReport) =>
  `${parityTable(report.outcomes)}\n\n${formatReverifyReport(report)}`;

function assertFullParity(report: ReverifyReport) {
  assert.equal(report.rows, 5, details(report));
  for (const outcome of report.outcomes) {
    assert.equal(outcome.failure, undefined, details(report));
    assert.equal(outcome.rewardEqual, true, details(report));
    assert.deepEqual(outcome.differentFields, [], details(report));
    assert.equal(outcome.comparedFields, EXTRA_FIELDS.length, details(report));
  }
}

let graph: InProcessGraph | undefined;
before(async () => {
  if (skip) return;
  const { resolved } = await loadGlobalConfig({
    configPaths: [config, "responses_api_models/scripted_model/configs/scripted_model_replay.yaml"],
    overrides: [`++policy_model.responses_api_models.scripted_model.replay_rollouts_jsonl_fpath=${rollouts.path}`],
  });
  graph = await startInProcess(resolved);
});
after(() => graph?.close());

const reverify = (verifyOnly: boolean) =>
  reverifyRollouts({ client: graph!.client, rollouts: readJsonl(rollouts.path!), inputs: readJsonl(dataset.path!), resourcesServerFor: () => "xlam_fc", verifyOnly, callDeadlineMs: 10_000 });

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward and extra field", { skip }, async () => {
  assertFullParity(await reverify(true));
});

test("with the recorded calls replayed first, each answers what the Python server answered and parity holds", { skip }, async () => {
  const report = await reverify(false);
  assertFullParity(report);
  assert.equal(report.environments[0]!.toolCallsReplayed, 6, details(report));
  assert.equal(report.environments[0]!.toolOutputsDifferent, 0, details(report));
});

test("the parity reference set gives NeMo Gym's reward and every extra field", { skip: skip || reference.skip }, async () => {
  for (const [i, line] of readRows(reference.path!).entries()) {
    const { expected_reward, expected_extra, replay_tool_calls: _replay, ...request } = line;
    const answer = await graph!.client.post("xlam_fc", "/verify", { json: request });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.equal(body.reward, expected_reward, `reference line ${i + 1}`);
    assert.deepEqual(Object.keys(expected_extra).sort(), [...EXTRA_FIELDS].sort());
    for (const [key, value] of Object.entries(expected_extra as Record<string, unknown>)) assert.deepEqual(body[key], value, `reference line ${i + 1}: ${key}`);
  }
});

test("end to end: the recorded turns replayed through simple_agent score as recorded", { skip }, async () => {
  const outputPath = join(mkdtempSync(join(tmpdir(), "gym-xlam-replay-")), "rollouts.jsonl");
  const summary = await collectRollouts({ client: graph!.client, inputPath: dataset.path!, outputPath, agentName: "xlam_fc_simple_agent", concurrency: 5, print: () => {} });
  assert.equal(summary.failed, 0, safeRead(summary.failuresPath));
  const prompt = (row: any) => JSON.stringify(row.responses_create_params.input.at(-1).content);
  const recorded = new Map(readRows(rollouts.path!).map((r) => [prompt(r), r]));
  const ours = readRows(outputPath);
  assert.equal(ours.length, 5);
  for (const rollout of ours) {
    const stored = recorded.get(prompt(rollout));
    assert.ok(stored, `task ${rollout._ng_task_index}: no recorded rollout has this prompt`);
    assert.equal(rollout.reward, stored.reward, `task ${rollout._ng_task_index}`);
    for (const key of EXTRA_FIELDS) assert.deepEqual(rollout[key], stored[key], `task ${rollout._ng_task_index}: ${key}`);
    const toolOutputs = (r: any) => r.response.output.filter((o: any) => o.type === "function_call_output").map((o: any) => o.output);
    assert.deepEqual(toolOutputs(rollout), toolOutputs(stored), "our 404 bodies are the Python server's, byte for byte");
  }
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
