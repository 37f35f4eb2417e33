// NeMo Gym's recorded rollouts of the three example environments, replayed through the whole stack
// (scripted_model replay → simple_agent → our environment → verify → rollout line): every recorded reward
// comes back, and every tool output our environments produce carries the same JSON as the Python server's
// (the recordings predate PIN's compact encoding, so values are compared, not bytes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGlobalConfig } from "../../src/config/index.ts";
import { collectRollouts } from "../../src/rollouts/collect.ts";
import { startInProcess } from "../../src/testing/in-process.ts";
import { readRows } from "../../src/testing/rows.ts";
import { sharedDataFile } from "../../src/testing/shared-data.ts";

const ENVIRONMENTS = [
  { name: "example_single_tool_call", agent: "example_single_tool_call_simple_agent" },
  { name: "example_multi_step", agent: "example_multi_step_simple_agent" },
  { name: "example_session_state_mgmt", agent: "example_session_state_mgmt_simple_agent" },
];

const promptKey = (params: { input: unknown }) =>
  JSON.stringify((typeof params.input === "string" ? [{ role: "user", content: params.input }] : (params.input as { role: string; content: unknown }[])).map((m) => [m.role, m.content]));

for (const { name, agent } of ENVIRONMENTS) {
  const inputs = sharedDataFile(`${name}/data/example.jsonl`);
  const recorded = sharedDataFile(`${name}/data/example_rollouts.jsonl`);
  test(`${name}: replaying NeMo Gym's recorded rollouts reproduces every reward and tool output`, { skip: inputs.skip || recorded.skip }, async () => {
    const { resolved } = await loadGlobalConfig({
      configPaths: [`resources_servers/${name}/configs/${name}.yaml`, "responses_api_models/scripted_model/configs/scripted_model_replay.yaml"],
      overrides: [`++policy_model.responses_api_models.scripted_model.replay_rollouts_jsonl_fpath=${recorded.path}`],
    });
    const graph = await startInProcess(resolved);
    const outputPath = join(mkdtempSync(join(tmpdir(), `gym-replay-${name}-`)), "rollouts.jsonl");
    try {
      const summary = await collectRollouts({ client: graph.client, inputPath: inputs.path!, outputPath, agentName: agent, concurrency: 8, print: () => {} });
      assert.equal(summary.failed, 0, readFileSyncSafe(summary.failuresPath));
      assert.equal(summary.succeeded, 5);
    } finally {
      await graph.close();
    }

    const reference = new Map(readRows(recorded.path!).map((r) => [promptKey(r.responses_create_params), r]));
    const ours = readRows(outputPath);
    assert.equal(ours.length, reference.size);
    for (const rollout of ours) {
      const expected = reference.get(promptKey(rollout.responses_create_params));
      assert.ok(expected, `no recorded rollout has the prompt of task ${rollout._ng_task_index}`);
      assert.equal(rollout.reward, expected.reward, `task ${rollout._ng_task_index}`);
      const toolOutputs = (r: any) => r.response.output.filter((o: any) => o.type === "function_call_output").map((o: any) => JSON.parse(o.output));
      assert.deepEqual(toolOutputs(rollout), toolOutputs(expected), `tool outputs of task ${rollout._ng_task_index}`);
      for (const key of Object.keys(expected).filter((k) => !["responses_create_params", "response"].includes(k))) {
        assert.deepEqual(rollout[key], expected[key], `${key} of task ${rollout._ng_task_index}`);
      }
      assert.deepEqual(rollout.response.usage, expected.response.usage, "the agent's usage sum equals the recorded usage");
    }
  });
}

function readFileSyncSafe(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
