// An outage is not the rollouts' fault: the resources server of a real example_session_state_mgmt + simple_agent +
// scripted_model graph (one process per server) is SIGKILLed mid-run. Against running servers (`--no-serve`) the
// collector pauses until the server is back and completes every rollout; with `--config` the run stops within about
// a second of the death, its files consistent, and `--resume` completes every rollout. Never a duplicate, never a
// rollout failed for good.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dumpYaml, parseConfigYaml, PROJECT_ROOT, type ConfigDict } from "../../src/config/index.ts";
import { startHeadServer } from "../../src/cli/head-server.ts";
import { processesWithMarker, runGym, startGym, waitUntilDead } from "../../src/testing/child-process.ts";
import { newGraphSecret } from "../../src/client/head-token.ts";

const RESOURCES = "example_session_state_mgmt_resources_server";
const AGENT = "example_session_state_mgmt_simple_agent";
const MODEL = "policy_model";
const CONFIG_FILES = ["resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml", "responses_api_models/scripted_model/configs/scripted_model.yaml"];
const INPUT = join(PROJECT_ROOT, "resources_servers/example_session_state_mgmt/data/example.jsonl");
const REPEATS = 40; // 5 rows × 40 = 200 rollouts
const TOTAL = 200;
const CHILD_MAIN = join(PROJECT_ROOT, "src/server/child-main.ts");

type Line = Record<string, any>;
const readLines = (path: string): Line[] => {
  try {
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    return [];
  }
};
const key = (line: Line) => `${line._ng_task_index}:${line._ng_rollout_index}`;
/** `task: rewards seen` — every repeat of a task should score alike. */
const rewardsByTask = (lines: Line[]) => {
  const byTask = new Map<number, Set<number>>();
  for (const line of lines) byTask.set(line._ng_task_index, (byTask.get(line._ng_task_index) ?? new Set()).add(line.reward));
  return [...byTask].sort(([a], [b]) => a - b).map(([task, rewards]) => `${task}: ${[...rewards].join("/")}`).join(", ");
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tempDir = () => mkdtempSync(join(tmpdir(), "gym-outage-"));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Per rollout: in the output (how often), and its failure lines. */
function audit(outputPath: string) {
  const output = readLines(outputPath);
  const failures = readLines(outputPath.replace(/\.jsonl$/, "_failures.jsonl"));
  const outputKeys = output.map(key);
  const done = new Set(outputKeys);
  const lastFailure = new Map<string, Line>();
  for (const failure of failures) lastFailure.set(key(failure), failure);
  const failedForGood = [...lastFailure].filter(([k, f]) => !done.has(k) && f._ng_will_retry !== true).map(([k]) => k);
  return {
    output,
    failures,
    done,
    duplicated: outputKeys.length - done.size,
    started: new Set([...outputKeys, ...lastFailure.keys()]).size,
    failedForGood,
    outageLines: failures.filter((f) => f._ng_outage === true).length,
    countedLines: failures.filter((f) => f._ng_outage !== true).length,
  };
}

const marker = `outage-${process.pid}`;
const spawned: ChildProcess[] = [];
after(async () => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  assert.deepEqual(await waitUntilDead(processesWithMarker(marker)), [], "no server is left running");
});

/** One server of `config` in its own process, as `gym env start` runs it but with no launcher to stop the others. */
async function startServerProcess(config: ConfigDict, instanceName: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD_MAIN], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, GYM_TEST_MARKER: marker, NEMO_GYM_CONFIG_DICT: dumpYaml(config), NEMO_GYM_CONFIG_PATH: instanceName },
    stdio: ["ignore", "ignore", "pipe"],
  });
  spawned.push(child);
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      if (/listening on/.test(stderr)) resolve();
    });
    child.on("exit", (code, signal) => reject(new Error(`${instanceName} exited (${signal ?? code}) before listening: ${stderr}`)));
  });
  return child;
}

function killAndWait(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  return exited;
}

test("--no-serve: the resources server is SIGKILLed and restarted mid-run; dispatch pauses, every rollout completes, none twice, none failed for good", async () => {
  const config: ConfigDict = {};
  for (const file of CONFIG_FILES) Object.assign(config, parseConfigYaml(readFileSync(join(PROJECT_ROOT, file), "utf8")));
  const fields = (instance: string, type: string, impl: string) => ((config[instance] as any)[type][impl] as Record<string, unknown>);
  const ports = { head: await freePort(), resources: await freePort(), agent: await freePort(), model: await freePort() };
  Object.assign(fields(RESOURCES, "resources_servers", "example_session_state_mgmt"), { host: "127.0.0.1", port: ports.resources });
  Object.assign(fields(AGENT, "responses_api_agents", "simple_agent"), { host: "127.0.0.1", port: ports.agent });
  Object.assign(fields(MODEL, "responses_api_models", "scripted_model"), { host: "127.0.0.1", port: ports.model });
  config.head_server = { host: "127.0.0.1", port: ports.head };

  const head = await startHeadServer({ rawConfig: () => config, instances: () => [], token: newGraphSecret() }, "127.0.0.1", ports.head);
  try {
    const [, , firstResources] = await Promise.all([startServerProcess(config, MODEL), startServerProcess(config, AGENT), startServerProcess(config, RESOURCES)]);
    const output = join(tempDir(), "out.jsonl");
    const run = startGym(
      ["eval", "run", "--no-serve", "--agent", AGENT, "--input", INPUT, "--output", output, "--num-repeats", String(REPEATS), "--concurrency", "16", "--retry-backoff", "0.05", "--outage-wait", "60", `++head_server.port=${ports.head}`],
      { env: { GYM_TEST_MARKER: marker } },
    );
    await until(() => readLines(output).length >= 40 || run.child.exitCode !== null, 90_000, "40 rollouts on disk");
    assert.equal(run.child.exitCode, null, `the run was still going when the server was killed:\n${run.output()}`);
    await killAndWait(firstResources);
    const killedAt = Date.now();
    await run.waitFor(/server 'example_session_state_mgmt_resources_server' is down since \d\d:\d\d:\d\d .*dispatch paused, waiting up to 60 s/, 10_000);
    const writtenWhileDown = readLines(output).length;
    await sleep(1500);
    const writtenAfterPause = readLines(output).length;
    await startServerProcess(config, RESOURCES);
    const restartedAfterMs = Date.now() - killedAt;
    const { code } = await run.exited;
    assert.equal(code, 0, run.output());
    assert.match(run.stderr(), /every server answers again after [\d.]+ s; dispatch resumed/);

    const result = audit(output);
    console.log(
      `--no-serve outage: ${TOTAL} rollouts, ${result.done.size} done, lost ${TOTAL - result.done.size}, duplicated ${result.duplicated}, failed for good ${result.failedForGood.length}; ` +
        `${result.outageLines} attempts lost to the outage (not counted), ${result.countedLines} counted failures; server down ${restartedAfterMs} ms; ` +
        `rewards by task ${rewardsByTask(result.output)}`,
    );
    assert.equal(writtenAfterPause - writtenWhileDown <= 16, true, "nothing new is dispatched while the server is down (only in-flight rollouts can finish)");
    assert.equal(result.done.size, TOTAL, "every rollout completes");
    assert.doesNotMatch(rewardsByTask(result.output), /\//, "every repeat of a task scores alike: the outage changed no reward");
    assert.equal(result.duplicated, 0, "no rollout is written twice");
    assert.deepEqual(result.failedForGood, []);
    assert.ok(result.outageLines > 0, "attempts failed while the server was down, and were recorded as such");
    for (const failure of result.failures.filter((f) => f._ng_outage === true)) {
      assert.equal(failure._ng_will_retry, true);
      assert.deepEqual(failure._ng_down_servers, [RESOURCES]);
      assert.equal("reward" in failure, false);
    }
    assert.match(run.stdout(), new RegExp(`Collected ${TOTAL} of ${TOTAL} rollouts \\(0 failed; .*\\d+ attempts lost to an outage, not counted`));
  } finally {
    await Promise.all(spawned.map((child) => (child.exitCode === null && child.signalCode === null ? killAndWait(child) : undefined)));
    await head.app.close();
  }
});

test("--config: a server's death stops the run within about a second, files consistent; --resume completes every rollout, none twice", async () => {
  const output = join(tempDir(), "out.jsonl");
  const args = ["eval", "run", ...CONFIG_FILES.flatMap((file) => ["--config", file]), "--agent", AGENT, "--input", INPUT, "--output", output, "--num-repeats", String(REPEATS), "--concurrency", "16", "--retry-backoff", "0.05", "++head_server.port=0"];
  const run = startGym(args, { env: { GYM_TEST_MARKER: marker } });
  const [, pid] = await run.waitFor(new RegExp(`\\(launcher\\)\\s+${RESOURCES} .* pid (\\d+)`), 90_000);
  await until(() => readLines(output).length >= 40 || run.child.exitCode !== null, 90_000, "40 rollouts on disk");
  assert.equal(run.child.exitCode, null, `the run was still going when the server was killed:\n${run.output()}`);
  const killedAt = Date.now();
  process.kill(Number(pid), "SIGKILL");
  const { code } = await run.exited;
  const stopMs = Date.now() - killedAt;
  assert.equal(code, 1, run.output());
  const stopLines = run.stderr().split("\n").filter((line) => line.startsWith("error:"));
  assert.deepEqual(stopLines.length, 1, run.stderr());
  assert.match(stopLines[0]!, new RegExp(`^error: rollout collection stopped: server ${RESOURCES} exited \\(SIGKILL\\) while the command was running; \\d+ unfinished rollouts are left for --resume`));
  assert.deepEqual(await waitUntilDead(processesWithMarker(marker).filter((p) => p !== run.child.pid)), [], "every server of the run is stopped");

  const stopped = audit(output);
  assert.equal(stopped.duplicated, 0);
  assert.deepEqual(stopped.failedForGood, [], "every started rollout is in the output, or in the failures with _ng_will_retry true");
  assert.ok(stopped.done.size < TOTAL, "the run stopped before the end");

  const resumed = await runGym([...args, "--resume"], { env: { GYM_TEST_MARKER: marker } });
  assert.equal(resumed.code, 0, resumed.output);
  const result = audit(output);
  console.log(
    `--config outage: ${TOTAL} rollouts; time from SIGKILL to the CLI's exit ${stopMs} ms; at the stop ${stopped.done.size} done, ${stopped.started - stopped.done.size} started and unfinished, ` +
      `${stopped.outageLines} attempts lost to the outage; after --resume ${result.done.size} done, lost ${TOTAL - result.done.size}, duplicated ${result.duplicated}, failed for good ${result.failedForGood.length}; rewards by task ${rewardsByTask(result.output)}`,
  );
  assert.ok(stopMs < 1500, `the run stopped ${stopMs} ms after the server's death`);
  assert.equal(result.done.size, TOTAL);
  assert.doesNotMatch(rewardsByTask(result.output), /\//, "every repeat of a task scores alike");
  assert.equal(result.duplicated, 0);
  assert.deepEqual(result.failedForGood, []);
  // A rollout whose attempts were lost continues its attempt numbering.
  const nextIndex = new Map<string, number>();
  for (const failure of stopped.failures) nextIndex.set(key(failure), Math.max(nextIndex.get(key(failure)) ?? 0, failure._ng_attempt_index + 1));
  for (const line of result.output) if (nextIndex.has(key(line)) && !stopped.done.has(key(line))) assert.equal(line._ng_attempt_index, nextIndex.get(key(line)), key(line));
  assert.match(resumed.stdout, new RegExp(`- ${stopped.done.size} already done\\n`));
});
