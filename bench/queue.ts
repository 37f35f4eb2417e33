// Collection over machines, on one machine: one graph (example_single_tool_call + simple_agent +
// scripted_model, one process each, started by the launcher), `gym eval worker` child processes against it
// through its head server, and the coordinator (`collectOverQueue`) in this process. For 1, 2 and 4 workers:
// rollouts/s from the first job enqueued to the last line written, and the CPU each party spent per rollout
// (coordinator, workers, graph servers, redis-server), which says what limits the figure here. A local run
// (`collectRollouts`) at the 1-worker level's and the 4-worker level's concurrency is the reference.
//
// `BENCH_QUEUE_ROLLOUTS=4000` (default 1000), `BENCH_QUEUE_CONCURRENCY=32` (in flight per worker, default 16),
// `BENCH_QUEUE_WORKERS=1,2,4`, `BENCH_QUEUE_ROUNDS=3` (levels alternated, the median round shown); Redis from NEMO_GYM_TEST_REDIS_URL (default redis://127.0.0.1:6379).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { fetchGraphConfig, ServerClient } from "../src/client/index.ts";
import { loadGlobalConfig, PROJECT_ROOT } from "../src/config/index.ts";
import { launchServers } from "../src/cli/launcher.ts";
import { collectRollouts } from "../src/rollouts/collect.ts";
import { collectOverQueue, parseQueueUrl } from "../src/rollouts/queue/index.ts";
import { startGym, type GymProcess } from "../src/testing/child-process.ts";
import { fixed, formatTable } from "./measure.ts";
import { processCpuMs } from "./proc-stats.ts";

const CONFIGS = ["resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "responses_api_models/scripted_model/configs/scripted_model.yaml"];
const AGENT = "example_single_tool_call_simple_agent";
const INPUT = join(PROJECT_ROOT, "resources_servers/example_single_tool_call/data/example.jsonl");

export interface QueueLevel {
  mode: string;
  workers: number;
  /** Rollouts in flight at most: workers × per worker, or the local run's concurrency. */
  inFlight: string;
  rollouts: number;
  written: number;
  duplicated: number;
  failed: number;
  seconds: number;
  rolloutsPerSecond: number;
  /** CPU ms per rollout, by party. */
  /** rollouts/s of every round (the level's figures are its median round's). */
  rounds?: number[];
  cpuMsPerRollout: { coordinator: number; workers: number | null; graph: number; redis: number | null };
}

export interface QueueBenchResult {
  levels: QueueLevel[];
}

const status = (line: string) => process.stderr.write(`[queue] ${line}\n`);
const silent = () => Object.assign(new Writable({ write: (_c, _e, done) => done() }), { isTTY: false }) as unknown as NodeJS.WriteStream;
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);
const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

function redisPid(): number | null {
  try {
    return Number(execFileSync("pgrep", ["-x", "redis-server"], { encoding: "utf8" }).trim().split("\n")[0]) || null;
  } catch {
    return null;
  }
}

function duplicatesIn(path: string): { written: number; duplicated: number } {
  const keys = readFileSync(path, "utf8").split("\n").filter(Boolean).map((text) => {
    const line = JSON.parse(text) as { _ng_task_index: number; _ng_rollout_index: number };
    return `${line._ng_task_index}:${line._ng_rollout_index}`;
  });
  return { written: keys.length, duplicated: keys.length - new Set(keys).size };
}

export async function queueBench(): Promise<QueueBenchResult> {
  const rollouts = Number(process.env.BENCH_QUEUE_ROLLOUTS ?? 1000);
  const perWorker = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 16);
  const rounds = Number(process.env.BENCH_QUEUE_ROUNDS ?? 1);
  const workerCounts = (process.env.BENCH_QUEUE_WORKERS ?? "1,2,4").split(",").map(Number);
  const redisUrl = process.env.NEMO_GYM_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const prefix = `bench-queue-${randomUUID().slice(0, 8)}`;
  const queueUrl = `${redisUrl}?prefix=${prefix}`;
  const dir = mkdtempSync(join(tmpdir(), "bench-queue-"));
  const input = join(dir, "in.jsonl");
  const rows = readFileSync(INPUT, "utf8").trim().split("\n");
  writeFileSync(input, Array.from({ length: rollouts }, (_, i) => rows[i % rows.length]).join("\n") + "\n");

  const { raw, resolved } = await loadGlobalConfig({ configPaths: CONFIGS, overrides: ["++head_server.port=0"], envYamlPath: null, requireServers: true, logger: { warn: status } });
  const running = await launchServers({ raw, resolved, log: () => undefined });
  const graphPids = running.instances.map((instance) => instance.pid!).filter(Boolean);
  const headPort = String((running.resolved.head_server as { port: number }).port);
  // The coordinator sees the graph as the workers do, through its head server: the same fingerprint.
  const runConfig = await fetchGraphConfig({ port: Number(headPort) });
  const client = new ServerClient({ globalConfig: runConfig });
  const levels: QueueLevel[] = [];
  const redisProcess = redisPid();

  const measure = async (mode: string, workers: number, inFlight: string, run: (output: string) => Promise<{ failed: number }>, workerPids: () => number[]) => {
    const output = join(dir, `${mode}-${workers}-${levels.length}.jsonl`);
    const before = { self: selfCpuMs(), workers: cpuOf(workerPids()), graph: cpuOf(graphPids), redis: redisProcess ? (processCpuMs(redisProcess) ?? 0) : 0 };
    const start = performance.now();
    const { failed } = await run(output);
    const seconds = (performance.now() - start) / 1000;
    const per = (ms: number) => ms / rollouts;
    const { written, duplicated } = duplicatesIn(output);
    const level: QueueLevel = {
      mode,
      workers,
      inFlight,
      rollouts,
      written,
      duplicated,
      failed,
      seconds,
      rolloutsPerSecond: written / seconds,
      cpuMsPerRollout: {
        coordinator: per(selfCpuMs() - before.self),
        workers: workers > 0 ? per(cpuOf(workerPids()) - before.workers) : null,
        graph: per(cpuOf(graphPids) - before.graph),
        redis: redisProcess ? per((processCpuMs(redisProcess) ?? 0) - before.redis) : null,
      },
    };
    status(`${mode} ${workers} workers: ${fixed(level.rolloutsPerSecond, 1)} rollouts/s`);
    levels.push(level);
  };

  try {
    const common = { client, inputPath: input, agentName: AGENT, disableAggregation: true, runConfig, print: () => undefined, progressStream: silent() };
    // Warm-up (not measured): the servers' first rollouts pay for JIT compilation.
    await collectRollouts({ ...common, outputPath: join(dir, "warmup.jsonl"), limit: 100, concurrency: perWorker });
    for (let round = 1; round <= rounds; round++) {
      // The same in flight as the 1-worker level and as the largest one: what the queue costs at equal concurrency.
      for (const concurrency of [...new Set([perWorker, perWorker * Math.max(...workerCounts)])]) {
        await measure("local", 0, String(concurrency), async (output) => collectRollouts({ ...common, outputPath: output, concurrency }), () => []);
      }
      for (const count of workerCounts) {
        const workers: GymProcess[] = Array.from({ length: count }, (_, i) =>
          startGym(["eval", "worker", "--queue", queueUrl, "--name", `w${i + 1}`, "--concurrency", String(perWorker), `++head_server.port=${headPort}`]),
        );
        try {
          await Promise.all(workers.map((worker) => worker.waitFor(/: 0 done, 0 active/)));
          const pids = () => workers.map((worker) => worker.child.pid!);
          await measure("queue", count, `${count}×${perWorker}`, (output) => collectOverQueue({ ...common, outputPath: output, queue: parseQueueUrl(queueUrl), warn: () => undefined }), pids);
        } finally {
          await Promise.all(workers.map((worker) => worker.stop()));
        }
      }
    }
  } finally {
    await client.close();
    await running.stop();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
  // Per level, the round with the median rollouts/s (this machine is shared: single rounds swing).
  const byLevel = new Map<string, QueueLevel[]>();
  for (const level of levels) byLevel.set(`${level.mode} ${level.inFlight}`, [...(byLevel.get(`${level.mode} ${level.inFlight}`) ?? []), level]);
  const medians = [...byLevel.values()].map((runs) => ({ ...[...runs].sort((a, b) => a.rolloutsPerSecond - b.rolloutsPerSecond)[Math.floor(runs.length / 2)]!, rounds: runs.map((run) => run.rolloutsPerSecond) }));
  return { levels: medians };
}

export function formatQueue(result: QueueBenchResult): string {
  const none = (value: number | null) => (value === null ? "-" : fixed(value, 1));
  return formatTable(
    ["mode", "workers", "in flight", "rollouts", "written", "dup", "failed", "s", "rollouts/s", "rounds", "CPU ms/rollout: coordinator", "workers", "graph", "redis", "cores busy"],
    result.levels.map((level) => [
      level.mode,
      level.workers || "-",
      level.inFlight,
      level.rollouts,
      level.written,
      level.duplicated,
      level.failed,
      fixed(level.seconds, 1),
      fixed(level.rolloutsPerSecond, 1),
      (level.rounds ?? [level.rolloutsPerSecond]).map((value) => fixed(value, 0)).join(" "),
      fixed(level.cpuMsPerRollout.coordinator, 1),
      none(level.cpuMsPerRollout.workers),
      fixed(level.cpuMsPerRollout.graph, 1),
      none(level.cpuMsPerRollout.redis),
      // Of this machine's cores, how many the run kept busy: near their number, CPU is what limits it.
      fixed((Object.values(level.cpuMsPerRollout).reduce<number>((sum, ms) => sum + (ms ?? 0), 0) * level.rolloutsPerSecond) / 1000, 2),
    ]),
  );
}
