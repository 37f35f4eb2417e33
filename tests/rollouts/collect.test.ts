// Rollout collection against a fake agent that fails, hangs, rejects and answers 5xx on chosen rows: the run
// always finishes, every rollout ends in exactly one of output / failures, no reward is ever invented, and a
// collector killed with SIGKILL resumes to exactly the rollouts an unbroken run collects.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectRollouts, type CollectOptions } from "../../src/rollouts/collect.ts";
import { ResumeRefusedError } from "../../src/rollouts/resume.ts";
import { serversUsedBy, type StackHealth } from "../../src/rollouts/outage.ts";
import { PROJECT_ROOT } from "../../src/config/index.ts";
import type { InProcessGraph } from "../../src/testing/in-process.ts";
import { startServers } from "../../src/testing/servers.ts";
import { attemptsSeen, fakeAgent, type Behavior } from "./fake-agent.ts";

let graph: InProcessGraph;
before(async () => {
  graph = await startServers({ agent: [fakeAgent] });
});
after(() => graph.close());
beforeEach(() => attemptsSeen.clear());

const tempDir = () => mkdtempSync(join(tmpdir(), "gym-collect-"));
type Line = Record<string, any>;
const readLines = (path: string): Line[] => {
  try {
    return readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};
const key = (line: Line) => `${line._ng_task_index}:${line._ng_rollout_index}`;

function writeInput(dir: string, behaviors: (Behavior | Record<string, unknown>)[]): string {
  const path = join(dir, "input.jsonl");
  const rows = behaviors.map((b, i) => ({ responses_create_params: { input: `task ${i}` }, ...(typeof b === "string" ? { behavior: b } : b) }));
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

function collect(dir: string, inputPath: string, extra: Partial<CollectOptions> = {}) {
  const printed: string[] = [];
  const options: CollectOptions = {
    client: graph.client,
    inputPath,
    outputPath: join(dir, "out.jsonl"),
    agentName: "agent",
    retryBackoffMs: 5,
    disableAggregation: true,
    print: (line) => printed.push(line),
    progressStream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
    runConfig: graph.config,
    ...extra,
  };
  return collectRollouts(options).then((summary) => ({ summary, printed: printed.join("\n"), output: readLines(options.outputPath), failures: readLines(join(dir, "out_failures.jsonl")) }));
}

test("failing, hanging, rejected and 5xx rollouts end as typed failures; the rest complete; no reward is invented", async () => {
  const dir = tempDir();
  const behaviors: (Behavior | Record<string, unknown>)[] = ["ok", "fail", "hang", { behavior: "flaky", failures: 1 }, "reject", "no_reward", "report_failure", "no_persist", { behavior: "flaky", failures: 5 }, "ok"];
  const { summary, output, failures, printed } = await collect(dir, writeInput(dir, behaviors), { concurrency: 4, rolloutDeadlineMs: 1500, maxAttempts: 3 });

  assert.deepEqual(output.map(key).sort(), ["0:0", "3:0", "9:0"]);
  assert.ok(output.every((line) => line.reward === 1));
  assert.equal(output.find((l) => key(l) === "3:0")!._ng_attempt_index, 1, "the retry that succeeded says which attempt it was");
  for (const failure of failures) assert.equal("reward" in failure, false, `no reward on ${JSON.stringify(failure)}`);

  const finalFailure = new Map<string, Line>();
  for (const failure of failures) finalFailure.set(key(failure), failure);
  const classes = Object.fromEntries([...finalFailure].map(([k, f]) => [k, [f._ng_failure_class, f._ng_attempt_index, f._ng_failure_terminal ?? false]]));
  assert.deepEqual(classes, {
    "1:0": ["agent_error", 2, false],
    "2:0": ["timeout", 2, false],
    "3:0": ["agent_error", 0, false],
    "4:0": ["bad_request", 0, true],
    "5:0": ["invalid_result", 2, false],
    "6:0": ["sandbox_crashed", 0, true],
    "8:0": ["agent_error", 2, false],
  });
  assert.equal(finalFailure.get("6:0")!.error, "sandbox of 6:0 died");
  assert.deepEqual(attemptsSeen.get("4:0"), 1, "a rejected request is not retried");
  assert.deepEqual(attemptsSeen.get("1:0"), 3, "a 500 is retried up to the attempt limit");

  // Every rollout ends in exactly one place: output, failed for good, or dropped at the agent's request.
  const outputKeys = new Set(output.map(key));
  const failedKeys = new Set([...finalFailure].filter(([k, f]) => !outputKeys.has(k) && f._ng_will_retry === false).map(([k]) => k));
  assert.deepEqual([...outputKeys].filter((k) => failedKeys.has(k)), []);
  assert.equal(outputKeys.size + failedKeys.size + 1, behaviors.length);
  assert.deepEqual([summary.succeeded, summary.failed, summary.dropped, summary.total], [3, 6, 1, 10]);
  assert.match(printed, /Collected 3 of 10 rollouts \(6 failed; \d+ failed attempts retried; 1 not persisted/);
});

test("an agent's 500 relaying an inner server's 4xx or 501 is final: typed, recorded once, not retried", async () => {
  const dir = tempDir();
  const { failures, output } = await collect(dir, writeInput(dir, ["inner_refused", "inner_unsupported", "fail", "ok"]), { maxAttempts: 3 });
  assert.deepEqual(output.map(key), ["3:0"]);
  const last = new Map(failures.map((f) => [key(f), f]));
  assert.deepEqual([last.get("0:0")!._ng_failure_class, last.get("0:0")!._ng_failure_terminal, attemptsSeen.get("0:0")], ["bad_request", true, 1]);
  assert.deepEqual([last.get("1:0")!._ng_failure_class, last.get("1:0")!._ng_failure_terminal, attemptsSeen.get("1:0")], ["not_implemented", true, 1]);
  assert.match(String(last.get("1:0")!.error), /^an inner server answered 501: .*cannot be scored here/);
  assert.deepEqual([last.get("2:0")!._ng_failure_class, attemptsSeen.get("2:0")], ["agent_error", 3], "a plain 500 is still retried");
  for (const failure of failures) assert.equal("reward" in failure, false);
});

test("--resume refuses changed inputs or a changed server config, and retries earlier failures up to the limit", async () => {
  const dir = tempDir();
  const input = writeInput(dir, ["ok", { behavior: "flaky", failures: 1 }, "reject", "ok"]);
  const first = await collect(dir, input, { maxAttempts: 1 });
  assert.deepEqual([first.summary.succeeded, first.summary.failed], [2, 2]);

  await assert.rejects(collect(dir, input, { resume: true, limit: 3 }), (error: unknown) => error instanceof ResumeRefusedError && /input rows or the collection settings/.test((error as Error).message));
  const otherConfig = { ...graph.config, agent: { responses_api_agents: { test: { entrypoint: "app.ts", something: "else" } } } };
  await assert.rejects(collect(dir, input, { resume: true, runConfig: otherConfig }), (error: unknown) => error instanceof ResumeRefusedError && /server agent differs/.test((error as Error).message));

  attemptsSeen.clear();
  attemptsSeen.set("1:0", 1); // the fake agent remembers: this rollout's next attempt succeeds
  const resumed = await collect(dir, input, { resume: true, maxAttempts: 3 });
  assert.match(resumed.printed, /Resuming .*\n- 4 materialized rollouts\n- 2 already done\n- 2 earlier failed attempts \(2 rollouts\)\n- 1 failed for good/);
  assert.deepEqual(resumed.output.map(key).sort(), ["0:0", "1:0", "3:0"]);
  assert.equal(resumed.output.find((l) => key(l) === "1:0")!._ng_attempt_index, 1);
  assert.equal(attemptsSeen.get("2:0"), undefined, "a terminal failure is not retried on resume");
  assert.equal(attemptsSeen.get("0:0"), undefined, "done rollouts are not run again");
  assert.deepEqual([resumed.summary.succeeded, resumed.summary.failed, resumed.summary.resumed], [3, 1, true]);
});

test("failures while a server is down are not counted: dispatch pauses, an outage longer than the wait stops the run, --resume continues the attempt numbering", async () => {
  const dir = tempDir();
  const input = writeInput(dir, ["fail", "fail", "ok"]);
  const warned: string[] = [];
  let probes = 0;
  const down: StackHealth = { probe: async () => (probes++, [{ name: "env", reason: "connect ECONNREFUSED 127.0.0.1:1" }]), close: async () => undefined };
  const startedAt = Date.now();
  const first = await collect(dir, input, { maxAttempts: 2, health: down, outageWaitMs: 0, concurrency: 1, warn: (line) => warned.push(line) });
  assert.ok(Date.now() - startedAt < 5000);
  assert.match(warned[0]!, /^gym eval run: server 'env' is down since \d\d:\d\d:\d\d \(connect ECONNREFUSED 127\.0\.0\.1:1\); dispatch paused, waiting up to 0 s \(--outage-wait\)/);
  assert.match(String(first.summary.stopped), /^server 'env' still down after \d+ s/);
  assert.deepEqual([first.summary.succeeded, first.summary.failed, first.summary.unfinished, first.summary.outageAttempts], [0, 0, 3, 1]);
  assert.deepEqual(attemptsSeen.get("1:0"), undefined, "nothing is dispatched while the server is down");
  assert.deepEqual(first.failures.map((f) => [key(f), f._ng_attempt_index, f._ng_outage, f._ng_will_retry, f._ng_down_servers]), [["0:0", 0, true, true, ["env"]]]);
  assert.match(first.printed, /Stopped early: server 'env' still down .* 3 rollouts are unfinished .* --resume/);

  // The servers are back: the lost attempt is not counted, so each failing rollout still gets its 2 own attempts.
  const resumed = await collect(dir, input, { maxAttempts: 2, resume: true, health: null });
  assert.match(resumed.printed, /- 3 to run\n- 1 earlier attempts lost to an outage of the servers: not counted against their rollouts/);
  assert.deepEqual([attemptsSeen.get("0:0"), attemptsSeen.get("1:0"), attemptsSeen.get("2:0")], [3, 2, 1]);
  const counted = resumed.failures.filter((f) => f._ng_outage !== true);
  assert.deepEqual(counted.map((f) => [key(f), f._ng_attempt_index, f._ng_will_retry]).sort(), [["0:0", 1, true], ["0:0", 2, false], ["1:0", 0, true], ["1:0", 1, false]]);
  assert.deepEqual([resumed.summary.succeeded, resumed.summary.failed, resumed.summary.unfinished, resumed.summary.stopped], [1, 2, 0, null]);
  assert.ok(probes >= 2, "a paused run probes again before it gives up");
});

test("a stop signal (a server known dead) ends the run at once: in-flight attempts are recorded as lost, nothing else is dispatched", async () => {
  const dir = tempDir();
  const stop = new AbortController();
  const running = collect(dir, writeInput(dir, ["hang", "hang", "ok", "ok"]), { concurrency: 2, health: null, stopSignal: stop.signal, rolloutDeadlineMs: 60_000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const stoppedAt = Date.now();
  stop.abort(new Error("server env exited (SIGKILL) while the command was running"));
  const { summary, failures, output } = await running;
  assert.ok(Date.now() - stoppedAt < 1000, `stopped after ${Date.now() - stoppedAt} ms`);
  assert.equal(summary.stopped, "server env exited (SIGKILL) while the command was running");
  assert.deepEqual(output, []);
  assert.deepEqual(failures.map((f) => [key(f), f._ng_failure_class, f._ng_outage, f._ng_will_retry]).sort(), [["0:0", "interrupted", true, true], ["1:0", "interrupted", true, true]]);
  assert.deepEqual([summary.unfinished, summary.failed, attemptsSeen.get("2:0")], [4, 0, undefined]);
});

test("the servers a run depends on: its agents and every server they reference, transitively", () => {
  const config = {
    env: { resources_servers: { x: { entrypoint: "app.py", domain: "other", judge: { type: "responses_api_models", name: "judge" } } } },
    judge: { responses_api_models: { m: { entrypoint: "app.py" } } },
    policy: { responses_api_models: { m: { entrypoint: "app.py" } } },
    unused: { responses_api_models: { m: { entrypoint: "app.py" } } },
    agent: { responses_api_agents: { a: { entrypoint: "app.py", resources_server: { type: "resources_servers", name: "env" }, model_server: { type: "responses_api_models", name: "policy" } } } },
  };
  assert.deepEqual(serversUsedBy(config, ["agent"]), ["agent", "env", "judge", "policy"]);
  assert.deepEqual(serversUsedBy(config, ["not_configured"]), []);
});

test("a collector killed with SIGKILL mid-run resumes to exactly the rollouts an unbroken run collects", async () => {
  const rows = Array.from({ length: 120 }, (_, i) => ({ behavior: "slow", delay_ms: 15 + (i % 7) * 5 }));
  const unbrokenDir = tempDir();
  const unbroken = await collect(unbrokenDir, writeInput(unbrokenDir, rows), { concurrency: 8, numRepeats: 2 });
  const expectedKeys = unbroken.output.map(key).sort();
  assert.equal(expectedKeys.length, 240);

  const dir = tempDir();
  const input = writeInput(dir, rows);
  const outputPath = join(dir, "out.jsonl");
  const childOptions = { inputPath: input, outputPath, agentName: "agent", concurrency: 8, numRepeats: 2, disableAggregation: true, retryBackoffMs: 5 };
  const runChild = (options: object) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "tests/rollouts/collect-child.ts")], {
      env: { ...process.env, COLLECT_CHILD: JSON.stringify({ globalConfig: graph.config, options }) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.stderr.on("data", (chunk) => (text += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    return { child, exited, output: () => text };
  };

  const victim = runChild(childOptions);
  // Kill it once a good part of the rollouts are on disk, while others are in flight.
  for (let i = 0; i < 400 && readLines(outputPath).length < 60; i++) await new Promise((r) => setTimeout(r, 25));
  victim.child.kill("SIGKILL");
  await victim.exited;
  const before = readLines(outputPath).length;
  assert.ok(before > 0 && before < 240, `killed mid-run (${before} of 240 written)`);
  // As if the kill had torn the line being written.
  appendFileSync(outputPath, '{"responses_create_params":{"inp');

  const resumed = runChild({ ...childOptions, resume: true });
  assert.equal(await resumed.exited, 0, resumed.output());
  assert.match(resumed.output(), /cut 32 bytes of a line torn by the interruption/);
  const keys = readLines(outputPath).map(key);
  assert.equal(new Set(keys).size, keys.length, "no rollout is duplicated");
  assert.deepEqual(keys.sort(), expectedKeys);
});

test("an agent the client cannot address is a configuration error: the run stops with it, nothing is retried as invalid_result", async () => {
  const dir = tempDir();
  const input = writeInput(dir, ["ok", "ok", "ok"]);
  await assert.rejects(collect(dir, input, { agentName: "agnet", maxAttempts: 3 }), (error: Error) => {
    assert.equal(error.name, "ConfigError");
    assert.match(error.message, /No server instance named 'agnet' in the config\. Did you mean 'agent'\?/);
    return true;
  });
  assert.deepEqual(readLines(join(dir, "out_failures.jsonl")).filter((line) => line._ng_failure_class === "invalid_result"), []);
  assert.equal(attemptsSeen.size, 0, "no /run reached the agent");
});

test("a run with failures ends with a table: class, count, one message unwrapped", async () => {
  const dir = tempDir();
  const { summary, printed } = await collect(dir, writeInput(dir, ["ok", "fail", "fail", "inner_refused"]), { maxAttempts: 1 });
  assert.deepEqual(summary.failureClasses.map((entry) => [entry.failureClass, entry.rollouts]), [["agent_error", 2], ["bad_request", 1]]);
  const lines = printed.split("\n");
  const header = lines.indexOf("Failed rollouts by class:");
  assert.ok(header > 0, printed);
  // The agent's exception repr, and NeMo Gym's "Hit an exception … b'…'" unwrapped down to the inner server's detail.
  assert.match(lines[header + 2]!, /^  agent_error +2  agent: Error\('verify blew up for [12]:0'\)$/);
  assert.equal(lines[header + 3], "  bad_request         1  row 3:0 lacks a field");
  assert.match(lines[header + 4]!, /^ +← agent: an inner server answered with an error$/);
  assert.match(lines[header + 5]!, /^ +← agent: an inner server answered 422$/);
});
