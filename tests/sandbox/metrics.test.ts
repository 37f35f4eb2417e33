// Sandbox runs and kills as Prometheus counters on the process registry (which every server's GET /metrics appends):
// a clean exit, a non-zero exit, a crash of the program's own, and a run the wall-clock limit kills.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { BubblewrapSandbox } from "../../src/sandbox/index.ts";
import { processRegistry } from "../../src/metrics/process-metrics.ts";

let sandbox: BubblewrapSandbox;
before(async () => {
  sandbox = new BubblewrapSandbox({ maxConcurrent: 2 });
  await sandbox.ensureAvailable();
});
after(() => sandbox.close());

async function valueOf(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await processRegistry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const series = metric?.values.find((value) => Object.entries(labels).every(([key, expected]) => value.labels[key] === expected));
  return series?.value ?? 0;
}

test("each run is counted by how it ended, and a run the time limit ends is a kill", async () => {
  assert.equal((await sandbox.run({ command: ["python3", "-c", "pass"] })).exitCode, 0);
  assert.equal((await sandbox.run({ command: ["python3", "-c", "raise SystemExit(3)"] })).exitCode, 3);
  await sandbox.run({ command: ["python3", "-c", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"] });
  const slow = await sandbox.run({ command: ["python3", "-c", "import time\ntime.sleep(10 ** 6)"], limits: { wallMs: 500 } });
  assert.equal(slow.timedOut, true, JSON.stringify(slow));

  const provider = "bubblewrap";
  assert.equal(await valueOf("gym_sandbox_runs_total", { provider, outcome: "exited" }), 1);
  assert.equal(await valueOf("gym_sandbox_runs_total", { provider, outcome: "nonzero_exit" }), 1);
  assert.equal(await valueOf("gym_sandbox_runs_total", { provider, outcome: "crashed" }), 1);
  assert.equal(await valueOf("gym_sandbox_runs_total", { provider, outcome: "killed" }), 1);
  assert.equal(await valueOf("gym_sandbox_kills_total", { provider, reason: "time_limit" }), 1);
});
