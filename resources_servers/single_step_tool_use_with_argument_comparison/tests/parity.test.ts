// Parity with NeMo Gym's Python verifier on its recorded rollouts (../shared/nemo-gym-data, never committed):
// every stored reward and every extra verify field (expected_action, category) comes back the same, re-verified
// the way `gym eval reverify --verify-only` does it (the environment has no tools and no state), and again
// end to end: scripted_model replays the recorded model turn through tool_simulation_agent into our verify.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGlobalConfig } from "../../../src/config/index.ts";
import { collectRollouts } from "../../../src/rollouts/collect.ts";
import { readJsonl } from "../../../src/rollouts/jsonl.ts";
import { formatReverifyReport, reverifyRollouts } from "../../../src/rollouts/reverify.ts";
import { startInProcess, type InProcessGraph } from "../../../src/testing/in-process.ts";
import { readRows } from "../../../tests/helpers/environment-checks.ts";
import { sharedDataFile } from "../../../tests/helpers/shared-data.ts";
import { withoutNullParams } from "../../../tests/helpers/reference-rows.ts";
import { parityTable } from "../../../tests/helpers/reference-rows.ts";

const ENV = "single_step_tool_use_with_argument_comparison";
const SERVER = `${ENV}_resources_server`;
const config = join(import.meta.dirname, `../configs/${ENV}.yaml`);
const rollouts = sharedDataFile(`${ENV}/data/example_rollouts.jsonl`);
const dataset = sharedDataFile(`${ENV}/data/example.jsonl`);
const reference = sharedDataFile(`${ENV}/parity/reference_verify.jsonl`);
const skip = rollouts.skip || dataset.skip;

/** One line per row: stored → ours, and what differs (or why the row failed). */
const table = parityTable;

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

test("re-verifying NeMo Gym's 5 recorded rollouts (verify only) reproduces every reward, expected_action and category", { skip }, async () => {
  const report = await reverifyRollouts({
    client: graph!.client,
    rollouts: readJsonl(rollouts.path!),
    inputs: readJsonl(dataset.path!),
    resourcesServerFor: () => SERVER,
    verifyOnly: true,
    callDeadlineMs: 10_000,
  });
  const details = `${table(report.outcomes)}\n\n${formatReverifyReport(report)}`;
  assert.equal(report.rows, 5, details);
  for (const outcome of report.outcomes) {
    assert.equal(outcome.failure, undefined, details);
    assert.equal(outcome.rewardEqual, true, details);
    assert.deepEqual(outcome.differentFields, [], details);
    assert.equal(outcome.comparedFields, 2, `expected_action and category are compared\n${details}`);
  }
});

test("the parity reference set (rows joined with their dataset fields) gives NeMo Gym's reward and extra fields", { skip: skip || reference.skip }, async () => {
  for (const [i, line] of readRows(reference.path!).entries()) {
    const { expected_reward, expected_extra, replay_tool_calls: _replay, ...request } = line;
    const answer = await graph!.client.post(SERVER, "/verify", { json: withoutNullParams(request) });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Record<string, unknown>>();
    assert.equal(body.reward, expected_reward, `reference line ${i + 1}`);
    for (const [key, value] of Object.entries(expected_extra as Record<string, unknown>)) assert.deepEqual(body[key], value, `reference line ${i + 1}: ${key}`);
    assert.deepEqual(body.expected_action, request.expected_action, `reference line ${i + 1}: expected_action`);
  }
});

test("end to end: the recorded model turn replayed through tool_simulation_agent scores as recorded", { skip }, async () => {
  const outputPath = join(mkdtempSync(join(tmpdir(), "gym-pivot-replay-")), "rollouts.jsonl");
  const summary = await collectRollouts({ client: graph!.client, inputPath: dataset.path!, outputPath, agentName: `${ENV}_agent`, concurrency: 5, print: () => {} });
  assert.equal(summary.failed, 0, safeRead(summary.failuresPath));
  const recorded = new Map(readRows(rollouts.path!).map((r) => [JSON.stringify(r.response.output), r]));
  const ours = readRows(outputPath);
  assert.equal(ours.length, 5);
  for (const rollout of ours) {
    const stored = recorded.get(JSON.stringify(rollout.response.output));
    assert.ok(stored, `task ${rollout._ng_task_index}: the replayed output is not one of the recorded outputs`);
    assert.equal(rollout.reward, stored.reward, `task ${rollout._ng_task_index}`);
    assert.deepEqual(rollout.category, stored.category, `task ${rollout._ng_task_index}`);
    assert.deepEqual(rollout.expected_action, stored.expected_action, `task ${rollout._ng_task_index}`);
  }
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
