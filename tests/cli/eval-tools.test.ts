// `gym eval reverify`, `gym eval aggregate` and `gym dataset validate` as real processes: servers started from
// --config (only the resources servers), NeMo Gym's files, exit codes and the problem lines a user reads.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRows } from "../../src/testing/rows.ts";
import { sharedDataFile } from "../../src/testing/shared-data.ts";
import { runGym } from "./gym-process.ts";

const COUNTER_CONFIG = "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml";
const COUNTER_AGENT = "example_session_state_mgmt_simple_agent";
const tempDir = () => mkdtempSync(join(tmpdir(), "gym-eval-tools-"));
const writeJsonl = (path: string, rows: unknown[]) => writeFileSync(path, rows.map((r) => JSON.stringify(r) + "\n").join(""));

const sharedRollouts = sharedDataFile("example_session_state_mgmt/data/example_rollouts.jsonl");
const sharedDataset = sharedDataFile("example_session_state_mgmt/data/example.jsonl");

test("eval reverify: NeMo Gym's counter rollouts re-scored from an environment config alone, with full parity", { skip: sharedRollouts.skip || sharedDataset.skip }, async () => {
  const dir = tempDir();
  // As a collection writes them: the keys and the agent, which routes each row to the agent's resources server.
  const rollouts = join(dir, "rollouts.jsonl");
  writeJsonl(rollouts, readRows(sharedRollouts.path!).map((row, i) => ({ ...row, _ng_task_index: i, _ng_rollout_index: 0, agent_ref: { name: COUNTER_AGENT } })));
  const output = join(dir, "reverified.jsonl");
  const args = ["eval", "reverify", "--config", COUNTER_CONFIG, "--inputs", sharedDataset.path!, "--rollouts", rollouts, "--output", output, "--concurrency", "2", "--expect-parity", "--json", "++head_server.port=0"];
  const result = await runGym(args);
  assert.equal(result.code, 0, result.output);

  const report = JSON.parse(result.output.slice(result.output.indexOf("{\n"), result.output.lastIndexOf("}") + 1));
  assert.deepEqual([report.rows, report.rewards_equal, report.rewards_different, report.errors], [5, 5, 0, 0]);
  assert.equal(report.environments[0].resourcesServer, "example_session_state_mgmt_resources_server");
  assert.equal(report.environments[0].toolCallsReplayed, 15);
  assert.doesNotMatch(result.output, /simple_agent\)|policy_model\)/, "only the resources server is started");

  const lines = readRows(output);
  assert.deepEqual(lines.map((l) => [l._ng_task_index, l.reward]).sort(), [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1]]);
  assert.match(readFileSync(output, "utf8"), /"reward":1\.0,"_ng_task_index":\d,"_ng_rollout_index":0,"agent_ref":\{"name":"example_session_state_mgmt_simple_agent"\}/);
  const metrics = JSON.parse(readFileSync(join(dir, "reverified_aggregate_metrics.json"), "utf8"));
  assert.deepEqual([metrics[0].agent_ref, metrics[0].key_metrics["mean/reward"]], [{ name: COUNTER_AGENT }, 1]);

  const again = await runGym(args);
  assert.equal(again.code, 2, "an existing output is not overwritten without --overwrite (a user error: exit 2)");
  assert.match(again.output, /Output file already exists: '.*reverified\.jsonl'\. Pass --overwrite/);
});

test("eval reverify: rows that cannot be re-verified are errors (exit 1), listed with their reason and written to _failures.jsonl", { skip: sharedRollouts.skip }, async () => {
  const dir = tempDir();
  const output = join(dir, "out.jsonl");
  // No --inputs: the counter's seed field (initial_count) is not in the rollout lines.
  const result = await runGym(["eval", "reverify", "--config", COUNTER_CONFIG, "--rollouts", sharedRollouts.path!, "--output", output, "--limit", "2", "++head_server.port=0"]);
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, /example_session_state_mgmt_resources_server\s+2\s+0\s+0\s+0\s+0\s+2/);
  assert.match(result.output, /Errors \(2\):\n {2}line 1 \(task 0, rollout 0\): seed_session: .*answered 422: .*initial_count/);
  assert.match(result.output, /2 of 2 rows could not be re-verified/);
  const failures = readRows(join(dir, "out_failures.jsonl"));
  assert.deepEqual(failures.map((f) => [f._ng_failure_class, f.status, "reward" in f]), [["seed_session", 422, false], ["seed_session", 422, false]]);
});

function rolloutLine(task: number, rollout: number, reward: number): Record<string, unknown> {
  return { responses_create_params: { input: "q" }, response: { usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }, reward, _ng_task_index: task, _ng_rollout_index: rollout, agent_ref: { name: COUNTER_AGENT } };
}

test("eval aggregate: shards merged by key, duplicates reported; offline and server metrics agree", async () => {
  const dir = tempDir();
  writeJsonl(join(dir, "shard-0.jsonl"), [rolloutLine(1, 0, 0), rolloutLine(0, 0, 1)]);
  writeJsonl(join(dir, "shard-1.jsonl"), [rolloutLine(0, 1, 1), rolloutLine(0, 0, 0)]);
  // The legacy name with Hydra-style keys.
  const offline = await runGym(["ng_aggregate_rollouts", `+input_glob=${join(dir, "shard-*.jsonl")}`, `+output_jsonl_fpath=${join(dir, "offline.jsonl")}`, "+offline=true"]);
  assert.equal(offline.code, 0, offline.output);
  assert.match(offline.output, /`ng_aggregate_rollouts` is deprecated/);
  assert.match(offline.output, /Aggregating 2 shard\(s\)/);
  assert.match(offline.output, /Dropped 1 duplicate line\(s\), keeping the first of each key: .*shard-1\.jsonl:2 \(0:0\)/);
  assert.match(offline.output, /Key metrics for example_session_state_mgmt_simple_agent:\n\s+mean\/reward\s+0\.6667/);
  assert.deepEqual(readRows(join(dir, "offline.jsonl")).map((r) => [r._ng_task_index, r._ng_rollout_index, r.reward]), [[0, 0, 1], [0, 1, 1], [1, 0, 0]]);

  // Through the environment's own /aggregate_metrics: its resources server is started for the command.
  const served = await runGym(["eval", "aggregate", "--config", COUNTER_CONFIG, "--input-glob", join(dir, "shard-*.jsonl"), "--output", join(dir, "served.jsonl"), "++head_server.port=0"]);
  assert.equal(served.code, 0, served.output);
  assert.match(served.output, /example_session_state_mgmt_resources_server \(resources_servers/);
  const offlineMetrics = JSON.parse(readFileSync(join(dir, "offline_aggregate_metrics.json"), "utf8"));
  const servedMetrics = JSON.parse(readFileSync(join(dir, "served_aggregate_metrics.json"), "utf8"));
  assert.deepEqual(servedMetrics, offlineMetrics);
});

test("dataset validate: every problem as FILE:LINE: field.path: message, exit 1; a valid file passes against its agent's environment", async () => {
  const dir = tempDir();
  const bad = join(dir, "bad.jsonl");
  writeJsonl(bad, [
    { responses_create_params: { input: "add 1" }, initial_count: 0, expected_count: 1 },
    { responses_create_params: { input: "add 1", temperature: "hot" }, expected_count: 1 },
    { responses_create_params: { input: "add 1", tools: [{ type: "function", name: "decrement_counter", parameters: { type: "object", properties: {} }, strict: true }] }, initial_count: 0, expected_count: 1 },
  ]);
  const result = await runGym(["dataset", "validate", bad, "--resources-server", "example_session_state_mgmt"]);
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, new RegExp(`${bad}:2: responses_create_params\\.temperature: Input should be a valid number\\n`));
  assert.match(result.output, new RegExp(`${bad}:2: initial_count: Field required \\(StatefulCounterResourcesServer's /seed_session reads it\\)\\n`));
  assert.match(result.output, new RegExp(`${bad}:3: responses_create_params\\.tools\\.0\\.name: 'decrement_counter' is not a tool of StatefulCounterResourcesServer`));
  assert.match(result.output, /✗ .*bad\.jsonl: 3 problem\(s\) on 2 line\(s\)/);
  assert.doesNotMatch(result.output, /:1: /);

  const good = await runGym(["dataset", "validate", "resources_servers/example_session_state_mgmt/data/example.jsonl", "--config", COUNTER_CONFIG, "--agent", COUNTER_AGENT]);
  assert.equal(good.code, 0, good.output);
  assert.match(good.output, /✓ resources_servers\/example_session_state_mgmt\/data\/example\.jsonl is valid/);
  assert.equal(existsSync(join(dir, "bad_materialized_inputs.jsonl")), false);
});
