// Collection over machines: `gym eval run --queue` as the coordinator and `gym eval worker` processes against
// real Redis and one real graph (`gym env start`, its model a fake vLLM that answers after a delay, so that
// rollouts are in flight when a process is killed). Each test counts, in the files the coordinator wrote,
// the rollouts expected, the ones lost and the ones written twice.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import { startFakeVllm } from "../../src/testing/fake-vllm.ts";
import { readRows } from "../../src/testing/rows.ts";
import { runGym, startGym, type GymProcess } from "../cli/gym-process.ts";

const REDIS_URL = process.env.NEMO_GYM_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const AGENT = "example_single_tool_call_simple_agent";
const INPUT = join(PROJECT_ROOT, "resources_servers/example_single_tool_call/data/example.jsonl");
const READY = /servers ready! Head server: http:\/\/[\d.]+:(\d+)/;
const MODEL_DELAY_MS = 250;

let fake: Awaited<ReturnType<typeof startFakeVllm>>;
const graphArgs = () => [
  "--config", "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml",
  "--config", "responses_api_models/vllm_model/configs/vllm_model.yaml",
  `+policy_base_url=${fake.url}`, "+policy_api_key=x", "+policy_model_name=fake",
];
let graph: GymProcess;
let headPort: string;
const prefixes: string[] = [];

before(async () => {
  // A prompt with FAIL-ME gets a 500 every time: its rollouts fail, are retried, and end in the failures file.
  fake = await startFakeVllm({
    defaultReply: (request) => (JSON.stringify(request.body).includes("FAIL-ME") ? { status: 500, body: "the model is broken" } : { content: "It is sunny.", delayMs: MODEL_DELAY_MS }),
  });
  graph = startGym(["env", "start", ...graphArgs(), "++head_server.port=0"]);
  [, headPort] = (await graph.waitFor(READY)) as [string, string];
});

after(async () => {
  await graph?.stop();
  await fake?.close();
  const redis = new Redis(REDIS_URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/** A queue URL whose keys no other test shares (removed after the file). */
function freshQueue(): string {
  const prefix = `test-queue-${randomUUID().slice(0, 8)}`;
  prefixes.push(prefix);
  return `${REDIS_URL}?prefix=${prefix}`;
}

const head = () => `++head_server.port=${headPort}`;
const startWorker = (queue: string, name: string, concurrency = 4) => startGym(["eval", "worker", "--queue", queue, "--name", name, "--concurrency", String(concurrency), "--lock-duration", "2", head()]);
const coordinatorArgs = (queue: string, output: string, repeats: number) => ["eval", "run", "--no-serve", "--agent", AGENT, "--input", INPUT, "--output", output, "--num-repeats", String(repeats), "--queue", queue, head()];

/** The figures of a rollouts file against the (task, rollout) pairs expected. */
function countRollouts(output: string, tasks: number, repeats: number) {
  const keys = readRows(output).map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
  const unique = new Set(keys);
  const expected = Array.from({ length: tasks * repeats }, (_, i) => `${Math.floor(i / repeats)}:${i % repeats}`);
  return { rollouts: expected.length, lines: keys.length, lost: expected.filter((key) => !unique.has(key)).length, duplicated: keys.length - unique.size };
}

const lineCount = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0);
/** Until the coordinator has written `count` rollouts; its output if it ends or stalls first. */
async function untilLines(path: string, count: number, coordinator: GymProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (lineCount(path) < count) {
    if (coordinator.child.exitCode !== null) throw new Error(`the coordinator exited (${coordinator.child.exitCode}) after ${lineCount(path)} lines:\n${coordinator.output()}`);
    if (Date.now() > deadline) throw new Error(`${path} has ${lineCount(path)} lines after ${timeoutMs} ms, waited for ${count}; the coordinator:\n${coordinator.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const TASKS = readFileSync(INPUT, "utf8").trim().split("\n").length;

// A hang becomes this test's failure (seen once when run beside other files), never a suite that runs into CI's limit.
const TEST_TIMEOUT_MS = 180_000;

test("a queued run with two workers, one on the shared graph and one on its own, writes the files of a local run, each (task, rollout) once, with typed failures and retries, and shows each worker's jobs", { timeout: TEST_TIMEOUT_MS }, async () => {
  const queue = freshQueue();
  const ownGraph = startGym(["eval", "worker", "--queue", queue, "--name", "w2", "--concurrency", "4", ...graphArgs(), "++head_server.port=0"]);
  const workers = [startWorker(queue, "w1"), ownGraph];
  try {
    // Both take jobs from the start (the own-graph worker starts its servers first).
    await Promise.all(workers.map((worker) => worker.waitFor(/: 0 done, 0 active/)));
    const dir = mkdtempSync(join(tmpdir(), "gym-queue-"));
    const output = join(dir, "out.jsonl");
    // Task 0 asks for FAIL-ME: the model fails each of its attempts.
    const rows = readFileSync(INPUT, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    rows[0].responses_create_params.input.at(-1).content += " FAIL-ME";
    const input = join(dir, "in.jsonl");
    writeFileSync(input, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    const run = await runGym([...coordinatorArgs(queue, output, 4).map((arg) => (arg === INPUT ? input : arg)), "--max-attempts", "2", "--retry-backoff", "0.01"]);
    assert.equal(run.code, 1, run.output);
    const written = readRows(output).map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
    assert.equal(written.length, (TASKS - 1) * 4);
    assert.equal(new Set(written).size, written.length);
    assert.ok(written.every((key) => !key.startsWith("0:")));
    // Each of task 0's rollouts: attempt 0 retried, attempt 1 out of attempts, classed, no reward.
    const failures = readRows(output.replace(/\.jsonl$/, "_failures.jsonl"));
    assert.deepEqual(
      failures.map((line) => [line._ng_task_index, line._ng_rollout_index, line._ng_attempt_index, line._ng_will_retry]).sort(),
      [0, 1, 2, 3].flatMap((rollout) => [[0, rollout, 0, true], [0, rollout, 1, false]]),
    );
    for (const line of failures) {
      assert.equal(line._ng_failure_class, "environment_unavailable");
      assert.equal("reward" in line, false);
    }
    assert.match(run.output, /Collected 16 of 20 rollouts \(4 failed; 4 failed attempts retried\)/);
    assert.match(run.output, /environment_unavailable\s+4 /);
    for (const line of readRows(output)) assert.deepEqual(Object.keys(line).slice(-4), ["reward", "_ng_task_index", "_ng_rollout_index", "agent_ref"]);
    assert.equal(readRows(output.replace(/\.jsonl$/, "_materialized_inputs.jsonl")).length, TASKS * 4);
    const metrics = JSON.parse(readFileSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json"), "utf8"));
    assert.deepEqual(metrics[0].agent_ref, { name: AGENT });
    // Both workers ran jobs, and the status line names them with their counts.
    const finalStatus = [...run.output.matchAll(/^Queue rollouts-\w+: .*$/gm)].at(-1)![0];
    assert.match(finalStatus, /0 waiting, 0 active, 20\/20 done \| w1: 0 active, [1-9]\d* done; w2: 0 active, [1-9]\d* done/);
    // Nothing of the run is left in Redis once it is done.
    const redis = new Redis(REDIS_URL);
    const prefix = new URL(queue).searchParams.get("prefix")!;
    assert.deepEqual((await redis.keys(`${prefix}:rollouts-*`)).length, 0);
    redis.disconnect();
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
});

test("a worker SIGKILLed mid-run: its jobs are taken over by the other (stalled-job check), none lost, none written twice", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const queue = freshQueue();
  const repeats = 16;
  const [w1, w2] = [startWorker(queue, "w1"), startWorker(queue, "w2")];
  try {
    const output = join(mkdtempSync(join(tmpdir(), "gym-queue-")), "out.jsonl");
    const coordinator = startGym(coordinatorArgs(queue, output, repeats));
    await untilLines(output, 12, coordinator);
    w1.child.kill("SIGKILL");
    const killedAfter = lineCount(output);
    // What the dead worker holds: jobs still active under its name, locked until the stalled-job check frees them.
    const [, queueName] = /\(queue (rollouts-\w+)\)/.exec(coordinator.output())!;
    const inspect = new Queue(queueName!, { connection: { host: new URL(REDIS_URL).hostname, port: Number(new URL(REDIS_URL).port || 6379) }, prefix: new URL(queue).searchParams.get("prefix")! });
    const heldByKilled = (await inspect.getJobs(["active"])).filter((job) => job?.processedBy === "w1").length;
    await inspect.close();
    assert.ok(heldByKilled > 0, "w1 had jobs in flight when it was killed");
    const { code } = await coordinator.exited;
    assert.equal(code, 0, coordinator.output());
    const figures = countRollouts(output, TASKS, repeats);
    t.diagnostic(`worker kill: ${JSON.stringify({ ...figures, writtenWhenKilled: killedAfter, heldByKilled })}`);
    assert.deepEqual(figures, { rollouts: TASKS * repeats, lines: TASKS * repeats, lost: 0, duplicated: 0 });
    // w1 had jobs in flight when it died (4 at a time), and w2 finished the run.
    const finalStatus = [...coordinator.output().matchAll(/^Queue rollouts-\w+: .*$/gm)].at(-1)![0];
    const w2Done = Number(/w2: 0 active, (\d+) done/.exec(finalStatus)![1]);
    const w1Done = Number(/w1: \d+ active, (\d+) done/.exec(finalStatus)?.[1] ?? 0);
    assert.equal(w1Done + w2Done, TASKS * repeats);
    assert.ok(w2Done > TASKS * repeats - killedAfter, `w2 ran the rest and what w1 held: ${finalStatus}`);
  } finally {
    await Promise.all([w1.stop(), w2.stop()]);
  }
});

test("the coordinator SIGKILLed mid-run: --resume continues from the files and the queue, each rollout written once", { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const queue = freshQueue();
  const repeats = 16;
  const worker = startWorker(queue, "w1", 8);
  try {
    const output = join(mkdtempSync(join(tmpdir(), "gym-queue-")), "out.jsonl");
    const first = startGym(coordinatorArgs(queue, output, repeats));
    await untilLines(output, 12, first);
    first.child.kill("SIGKILL");
    await first.exited;
    const writtenWhenKilled = lineCount(output);
    // The worker goes on meanwhile: its results wait in the queue for the resumed coordinator. One of them is of a
    // rollout already in the files, as when a coordinator dies between writing a result and removing its job.
    const [, queueName] = /\(queue (rollouts-\w+)\)/.exec(first.output())!;
    const inspect = new Queue(queueName!, { connection: { host: new URL(REDIS_URL).hostname, port: Number(new URL(REDIS_URL).port || 6379) }, prefix: new URL(queue).searchParams.get("prefix")! });
    const written = readRows(output)[0]!;
    const row = readRows(output.replace(/\.jsonl$/, "_materialized_inputs.jsonl")).find((r) => r._ng_task_index === written._ng_task_index && r._ng_rollout_index === written._ng_rollout_index);
    const again = await inspect.add("rollout", { row, earlierFailures: 0 }, { jobId: `${written._ng_task_index}-${written._ng_rollout_index}` });
    while ((await again.getState()) !== "completed") await new Promise((resolve) => setTimeout(resolve, 50));
    // That one, and any result the killed coordinator wrote but had not yet taken off the queue (the kill can land
    // between the two): each is of a rollout already in the files, so each is dropped.
    const inFiles = new Set(readRows(output).map((r) => `${r._ng_task_index}-${r._ng_rollout_index}`));
    const alreadyWritten = (await inspect.getJobs(["completed"])).filter((job) => job?.id !== undefined && inFiles.has(job.id)).length;
    await inspect.close();
    assert.ok(alreadyWritten >= 1, "the result added again waits in the queue");
    const resumed = await runGym([...coordinatorArgs(queue, output, repeats), "--resume"]);
    assert.equal(resumed.code, 0, resumed.output);
    assert.match(resumed.output, new RegExp(`\\b${alreadyWritten} results of rollouts already in .*out\\.jsonl were dropped \\(written once\\)`));
    assert.match(resumed.output, /Resuming .*out\.jsonl:\n- 80 materialized rollouts\n- \d+ already done/);
    const figures = countRollouts(output, TASKS, repeats);
    t.diagnostic(`coordinator kill: ${JSON.stringify({ ...figures, writtenWhenKilled })}`);
    assert.deepEqual(figures, { rollouts: TASKS * repeats, lines: TASKS * repeats, lost: 0, duplicated: 0 });
    assert.ok(existsSync(output.replace(/\.jsonl$/, "_aggregate_metrics.json")));
  } finally {
    await worker.stop();
  }
});

test("a worker stopped with SIGINT gives its jobs back at once: another worker runs them well before their locks would expire", { timeout: TEST_TIMEOUT_MS }, async () => {
  const queue = freshQueue();
  const lockSeconds = 30;
  const w1 = startGym(["eval", "worker", "--queue", queue, "--name", "w1", "--concurrency", "4", "--lock-duration", String(lockSeconds), head()]);
  let w2: GymProcess | undefined;
  try {
    const output = join(mkdtempSync(join(tmpdir(), "gym-queue-")), "out.jsonl");
    const coordinator = startGym(coordinatorArgs(queue, output, 8));
    await untilLines(output, 8, coordinator);
    const stoppedAt = Date.now();
    assert.equal((await w1.stop("SIGINT")).code, 0, w1.output());
    assert.match(w1.output(), /given back: the worker is stopping/);
    w2 = startGym(["eval", "worker", "--queue", queue, "--name", "w2", "--concurrency", "4", "--lock-duration", String(lockSeconds), head()]);
    assert.equal((await coordinator.exited).code, 0, coordinator.output());
    assert.ok(Date.now() - stoppedAt < (lockSeconds / 2) * 1000, `finished ${Date.now() - stoppedAt} ms after the stop`);
    assert.deepEqual(countRollouts(output, TASKS, 8), { rollouts: TASKS * 8, lines: TASKS * 8, lost: 0, duplicated: 0 });
  } finally {
    await Promise.all([w1.stop(), w2?.stop()]);
  }
});

test("--queue with a URL that is not Redis, or a Redis that does not answer, is one line naming the flag", { timeout: TEST_TIMEOUT_MS }, async () => {
  const output = join(mkdtempSync(join(tmpdir(), "gym-queue-")), "out.jsonl");
  const notRedis = await runGym(["eval", "run", "--no-serve", "--agent", AGENT, "--input", INPUT, "--output", output, "--queue", "http://127.0.0.1:6379", head()]);
  assert.notEqual(notRedis.code, 0);
  assert.match(notRedis.stderr, /--queue http:\/\/127\.0\.0\.1:6379: not a Redis URL \(http:\); give redis:\/\//);
  const unreachable = await runGym(["eval", "worker", "--queue", "redis://127.0.0.1:1", head()]);
  assert.notEqual(unreachable.code, 0);
  assert.match(unreachable.stderr, /--queue redis:\/\/127\.0\.0\.1:1: cannot reach Redis \(connect ECONNREFUSED 127\.0\.0\.1:1\)/);
  assert.equal(unreachable.stderr.trim().split("\n").length, 1, unreachable.stderr);
});
