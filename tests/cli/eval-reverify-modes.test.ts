// `gym eval reverify`'s NeMo Gym flags as real processes: the reverify_mode guard and --force (unsafe_ output),
// --overwrite, --resume, --disable-aggregation, --judge-failed-only and --append, on rows of our own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRows } from "../../src/testing/rows.ts";
import { runGym } from "./gym-process.ts";

const MCQA_CONFIG = "resources_servers/mcqa/configs/mcqa.yaml";
const MCQA_AGENT = "mcqa_simple_agent";
const COUNTER_CONFIG = "resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml";
const tempDir = () => mkdtempSync(join(tmpdir(), "gym-reverify-"));
const writeJsonl = (path: string, rows: unknown[]) => writeFileSync(path, rows.map((r) => JSON.stringify(r) + "\n").join(""));

/** A materialized mcqa row: the question's answer is `answer`. */
function mcqaInput(task: number, answer: string): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: "user", content: `Question ${task}? Answer inside \\boxed{}.\nA: one\nB: two` }] },
    options: [{ A: "one" }, { B: "two" }],
    expected_answer: answer,
    grading_mode: "strict_single_letter_boxed",
    _ng_task_index: task,
    _ng_rollout_index: 0,
    agent_ref: { type: "responses_api_agents", name: MCQA_AGENT },
  };
}

const response = (text: string) => ({
  id: "resp_1",
  created_at: 0,
  model: "m",
  object: "response",
  output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
});

/** The stored rollout of a materialized row, answered `said`, with the reward its run gave it. */
function rollout(input: Record<string, unknown>, said: string, reward: number): Record<string, unknown> {
  return { ...input, response: response(`\\boxed{${said}}`), reward };
}

function fixture() {
  const dir = tempDir();
  const inputs = [mcqaInput(0, "A"), mcqaInput(1, "B"), mcqaInput(2, "A"), mcqaInput(3, "B")];
  writeJsonl(join(dir, "run_materialized_inputs.jsonl"), inputs);
  writeJsonl(join(dir, "run.jsonl"), [rollout(inputs[0]!, "A", 1), rollout(inputs[1]!, "A", 0)]);
  // Task 2's judge call failed (NeMo Gym's judge_failsafe line: the verify request, reward 0, the class); task 3 timed out.
  writeJsonl(join(dir, "run_failures.jsonl"), [
    { ...rollout(inputs[2]!, "A", 0), _ng_failure_class: "judge_failed", _ng_failure_judge_error: "judge timed out" },
    { ...rollout(inputs[2]!, "A", 0), _ng_failure_class: "judge_failed", _ng_failure_judge_error: "judge timed out again" },
    { _ng_task_index: 3, _ng_rollout_index: 0, agent_ref: inputs[3]!.agent_ref, _ng_failure_class: "timeout", error: "deadline" },
  ]);
  return { dir, inputs: join(dir, "run_materialized_inputs.jsonl"), rollouts: join(dir, "run.jsonl") };
}

const base = (f: ReturnType<typeof fixture>, output: string) => ["eval", "reverify", "--config", MCQA_CONFIG, "--inputs", f.inputs, "--rollouts", f.rollouts, "--output", output, "++head_server.port=0"];

test("eval reverify --judge-failed-only: the successes carried over byte for byte, only the judge-failed rollout re-verified (once), metrics over all; --append is idempotent", async () => {
  const f = fixture();
  const output = join(f.dir, "recovered.jsonl");
  const result = await runGym([...base(f, output), "--judge-failed-only"]);
  assert.equal(result.code, 0, result.output);
  assert.match(result.output, /WARNING: judge-failed-only recovery merges rewards from TWO sources/);
  assert.match(result.output, /Recovery mode: seeded 2 successful rollout\(s\) into .*recovered\.jsonl/);
  assert.match(result.output, /Re-verified 1 rollouts: 0 rewards equal, 1 different, 0 errors/, "task 2 only: once, though its sidecar has two attempts; never the timed-out task 3");
  const text = readFileSync(output, "utf8").split("\n");
  const stored = readFileSync(f.rollouts, "utf8").split("\n");
  assert.deepEqual(text.slice(0, 2), stored.slice(0, 2), "the successes are copied as they were");
  assert.deepEqual(readRows(output).map((r) => [r._ng_task_index, r.reward]), [[0, 1], [1, 0], [2, 1]]);
  const metrics = JSON.parse(readFileSync(join(f.dir, "recovered_aggregate_metrics.json"), "utf8"));
  assert.ok(Math.abs(metrics[0].key_metrics["mean/reward"] - 2 / 3) < 1e-9, JSON.stringify(metrics[0].key_metrics));

  const again = await runGym([...base(f, output), "--judge-failed-only"]);
  assert.equal(again.code, 2, again.output);
  assert.match(again.output, /Output file already exists: '.*recovered\.jsonl'\. Pass --overwrite to delete it and start fresh, or --resume to continue from it\./);

  const appended = await runGym([...base(f, output), "--judge-failed-only", "--append"]);
  assert.equal(appended.code, 0, appended.output);
  assert.match(appended.output, /seeded 0 successful rollout\(s\)/);
  assert.match(appended.output, /WARNING: Nothing to be re-verified\./);
  assert.equal(readRows(output).length, 3);
});

test("eval reverify: --append without --judge-failed-only, or with --overwrite, is NeMo Gym's error; --judge-failed-only needs --inputs", async () => {
  const f = fixture();
  const output = join(f.dir, "o.jsonl");
  const alone = await runGym([...base(f, output), "--append"]);
  assert.equal(alone.code, 2, alone.output);
  assert.match(alone.output, /`append` is only valid together with `judge_failed_only` \(pass --judge-failed-only\)\./);
  const both = await runGym([...base(f, output), "--judge-failed-only", "--append", "--overwrite"]);
  assert.equal(both.code, 2, both.output);
  assert.match(both.output, /`append` and `overwrite` are mutually exclusive: one appends, the other clears\./);
  const noInputs = await runGym(["eval", "reverify", "--config", MCQA_CONFIG, "--rollouts", f.rollouts, "--output", output, "--judge-failed-only"]);
  assert.equal(noInputs.code, 2, noInputs.output);
  assert.match(noInputs.output, /--judge-failed-only needs --inputs FILE, the run's materialized inputs/);
});

test("eval reverify --resume skips the rows the partial output has; --overwrite starts over; --disable-aggregation writes no metrics", async () => {
  const f = fixture();
  const output = join(f.dir, "rv.jsonl");
  const first = await runGym([...base(f, output), "--limit", "1", "--disable-aggregation"]);
  assert.equal(first.code, 0, first.output);
  assert.match(first.output, /Skipping aggregate-metrics computation because disable_aggregation=True/);
  assert.equal(existsSync(join(f.dir, "rv_aggregate_metrics.json")), false);
  assert.equal(readRows(output).length, 1);

  const resumed = await runGym([...base(f, output), "--resume"]);
  assert.equal(resumed.code, 0, resumed.output);
  assert.match(resumed.output, /Resumed from cache\. Found:\n- 2 total rows to be re-verified\n- 1 rows already done \(in main jsonl\)\n- 0 sidecar-terminal .*\n- 0 hit max_attempts → not retried\n- 1 rows that still need to be run/);
  assert.match(resumed.output, /Re-verified 1 rollouts/);
  assert.deepEqual(readRows(output).map((r) => r._ng_task_index), [0, 1]);
  assert.ok(existsSync(join(f.dir, "rv_aggregate_metrics.json")), "metrics over the whole output");

  const over = await runGym([...base(f, output), "--overwrite"]);
  assert.equal(over.code, 0, over.output);
  assert.match(over.output, /Deleted existing output file: '.*rv\.jsonl'/);
  assert.match(over.output, /Re-verified 2 rollouts/);
  assert.equal(readRows(output).length, 2);
});

test("eval reverify: a server whose reverify_mode is unknown is refused in NeMo Gym's verify-only mode; --force re-scores it into unsafe_ files", async () => {
  const dir = tempDir();
  const rollouts = join(dir, "r.jsonl");
  // A counter rollout without tool calls: verify reads the session's count (0).
  writeJsonl(rollouts, [{ responses_create_params: { input: "count" }, response: response("0"), reward: 1, _ng_task_index: 0, _ng_rollout_index: 0, agent_ref: { name: "example_session_state_mgmt_simple_agent" } }]);
  const output = join(dir, "out.jsonl");
  const args = ["eval", "reverify", "--config", COUNTER_CONFIG, "--rollouts", rollouts, "--output", output, "--verify-only", "++head_server.port=0"];
  const refused = await runGym(args);
  assert.equal(refused.code, 2, refused.output);
  assert.match(refused.output, /Resource server\(s\) \['example_session_state_mgmt_resources_server'\] have reverify_mode=UNSUPPORTED or UNKNOWN\. Rewards computed by reverification may be incorrect\. Pass --force \(\+\+force=true\) to override \(output will be prefixed with 'unsafe_'\)\./);
  assert.equal(existsSync(output), false);

  const forced = await runGym([...args, "--force"]);
  assert.match(forced.output, /WARNING: resource server\(s\) \['example_session_state_mgmt_resources_server'\] have reverify_mode=UNSUPPORTED or UNKNOWN\. .*Output is prefixed with 'unsafe_'\./);
  assert.ok(existsSync(join(dir, "unsafe_out.jsonl")), forced.output);
  assert.equal(existsSync(output), false);
  assert.match(forced.output, /Re-verified rollouts: .*unsafe_out\.jsonl/);

  // Our default re-scores with the session rebuilt: unknown is re-scored, with a note.
  const replayed = await runGym(args.filter((a) => a !== "--verify-only"));
  assert.match(replayed.output, /report reverify_mode=unknown: re-scored with the session rebuilt/);
  assert.ok(existsSync(output), replayed.output);
});
