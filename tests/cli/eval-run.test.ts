// `gym eval run` / `ng_collect_rollouts` as real processes: NeMo Gym's output files and line format,
// repeats, running against already-started servers, and failed rollouts recorded as failures, not rewards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { readRows } from "../../src/testing/rows.ts";
import { runGym, startGym } from "./gym-process.ts";

const CONFIGS = ["--config", "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml", "--config", "responses_api_models/scripted_model/configs/scripted_model.yaml"];
const AGENT = "example_session_state_mgmt_simple_agent";
const INPUT = join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/data/example.jsonl");
const tempDir = () => mkdtempSync(join(tmpdir(), "gym-eval-"));

test("eval run starts the servers, collects every row × repeat, and writes NeMo Gym's files", async () => {
  const output = join(tempDir(), "counter.jsonl");
  const result = await runGym(["eval", "run", ...CONFIGS, "--agent", AGENT, "--input", INPUT, "--output", output, "--num-repeats", "2", "--concurrency", "4", "++head_server.port=0"]);
  assert.equal(result.code, 0, result.output);

  const rollouts = readRows(output);
  assert.equal(rollouts.length, 10);
  for (const line of rollouts) {
    assert.deepEqual(Object.keys(line).slice(-4), ["reward", "_ng_task_index", "_ng_rollout_index", "agent_ref"]);
    assert.deepEqual(line.agent_ref, { name: AGENT });
  }
  const rewardByTask = new Map(rollouts.map((r) => [r._ng_task_index, r.reward]));
  // The heuristic adds each number it reads; "take 6 away" is beyond it, so task 4 honestly scores 0.
  assert.deepEqual([...rewardByTask.entries()].sort(), [[0, 1], [1, 1], [2, 1], [3, 1], [4, 0]]);
  assert.deepEqual(rollouts.map((r) => `${r._ng_task_index}:${r._ng_rollout_index}`).sort(), ["0:0", "0:1", "1:0", "1:1", "2:0", "2:1", "3:0", "3:1", "4:0", "4:1"]);
  assert.match(readFileSync(output, "utf8"), /"reward":1\.0,"_ng_task_index"/);

  const materialized = readRows(join(output.replace(/\.jsonl$/, "_materialized_inputs.jsonl")));
  assert.deepEqual(materialized.map((r) => [r._ng_task_index, r._ng_rollout_index]), [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1], [4, 0], [4, 1]]);

  const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"));
  assert.equal(metrics.length, 1);
  assert.deepEqual(metrics[0].agent_ref, { name: AGENT });
  assert.equal(metrics[0].key_metrics["mean/reward"], 0.8);
  assert.equal(metrics[0].group_level_metrics.length, 5);

  assert.match(result.output, /Key metrics for example_session_state_mgmt_simple_agent:\n\s+mean\/reward\s+0\.8000/);
  assert.match(result.output, /Collecting rollouts: 10\/10 \(0 failed\)/, "periodic progress lines when not on a terminal");
  assert.doesNotMatch(result.output, /failures/i);
});

test("ng_collect_rollouts collects against servers already started by env start (found through the head server)", async () => {
  const server = startGym(["env", "start", ...CONFIGS, "++head_server.port=0"]);
  try {
    const [, headPort] = await server.waitFor(/Head server: http:\/\/[\d.]+:(\d+)/);
    const output = join(tempDir(), "legacy.jsonl");
    const result = await runGym(["ng_collect_rollouts", `+agent_name=${AGENT}`, `+input_jsonl_fpath=${INPUT}`, `+output_jsonl_fpath=${output}`, "+limit=2", `++head_server.port=${headPort}`]);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /`ng_collect_rollouts` is deprecated/);
    assert.equal(readRows(output).length, 2);
  } finally {
    server.child.kill("SIGINT");
    await server.exited;
  }
});

test("a rollout that fails goes to _failures.jsonl with its class and no reward; the others complete", async () => {
  const dir = tempDir();
  const input = join(dir, "in.jsonl");
  const rows = readFileSync(INPUT, "utf8").trim().split("\n").slice(0, 3).map((l) => JSON.parse(l));
  delete rows[1].expected_count; // verify needs it: this rollout cannot be scored
  writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const output = join(dir, "out.jsonl");
  const result = await runGym(["eval", "run", ...CONFIGS, "--agent", AGENT, "--input", input, "--output", output, "--retry-backoff", "0.01", "++head_server.port=0"]);
  assert.equal(result.code, 1, "a run with failures exits non-zero");
  assert.deepEqual(readRows(output).map((r) => r._ng_task_index).sort(), [0, 2]);
  const failures = readRows(join(dir, "out_failures.jsonl"));
  // The agent's 500 relays the environment's 422 (x-ng-inner-status): no attempt can fix the row, so it fails once.
  assert.deepEqual(failures.map((f) => [f._ng_task_index, f._ng_attempt_index, f._ng_will_retry, f._ng_failure_terminal]), [[1, 0, false, true]]);
  for (const failure of failures) {
    assert.equal(failure._ng_failure_class, "bad_request");
    assert.equal(failure.status, 500);
    assert.equal("reward" in failure, false);
    assert.match(String(failure.error), /^an inner server answered 422: .*expected_count/);
  }
  assert.match(result.output, /Collected 2 of 3 rollouts \(1 failed\)/);
});

test("missing inputs are reported clearly before any server starts", async () => {
  const result = await runGym(["eval", "run", ...CONFIGS, "--agent", AGENT, "--output", join(tempDir(), "x.jsonl")]);
  assert.equal(result.code, 2, "a user's mistake exits 2");
  assert.match(result.output, /input_jsonl_fpath is required/);
  assert.doesNotMatch(result.output, /servers ready/);
  const missing = await runGym(["eval", "run", ...CONFIGS, "--agent", AGENT, "--input", "/nonexistent.jsonl", "--output", join(tempDir(), "x.jsonl"), "++head_server.port=0"]);
  assert.equal(missing.code, 2);
  assert.match(missing.output, /cannot read '\/nonexistent\.jsonl': ENOENT/);
  assert.doesNotMatch(missing.output, /servers ready/);
  assert.equal(existsSync("/nonexistent_materialized_inputs.jsonl"), false);
});

test("eval run --resume continues a finished run without running anything again, and refuses changed inputs", async () => {
  const output = join(tempDir(), "resumable.jsonl");
  const args = ["eval", "run", ...CONFIGS, "--agent", AGENT, "--input", INPUT, "--output", output, "--limit", "3", "++head_server.port=0"];
  assert.equal((await runGym(args)).code, 0);
  const resumed = await runGym([...args, "--resume"]);
  assert.equal(resumed.code, 0, resumed.output);
  assert.match(resumed.output, /Resuming .*\n- 3 materialized rollouts\n- 3 already done[\s\S]*- 0 to run/);
  assert.equal(readRows(output).length, 3);
  const refused = await runGym(["eval", "run", ...CONFIGS, "--agent", AGENT, "--input", INPUT, "--output", output, "--limit", "4", "--resume", "++head_server.port=0"]);
  assert.equal(refused.code, 2, "a refused resume is the user's to fix: exit 2");
  assert.match(refused.output, /error: cannot resume: the input rows or the collection settings .* changed since the first run — 3 rows were materialized then, 4 now/);
  assert.doesNotMatch(refused.output, /Head server/, "refused before any server started");
});
