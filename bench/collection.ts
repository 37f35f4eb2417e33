// Rollout collection end to end, as `gym env start` + `gym eval run --no-serve` run it: the environment,
// simple_agent and scripted_model (heuristic) each in its own child process started by the launcher, and
// `collectRollouts` in this process. For each concurrency level: rollouts/s, the latency of one /run
// (median, p99), CPU per rollout of every process, peak RSS of every process, peak open descriptors, and
// failures (which must be 0). Rows are the environment's 5 example rows repeated (num_repeats).
//
// `BENCH_COLLECTION_SCALE=0.1 npm run bench collection` runs a tenth of the rollouts (a quick check);
// `BENCH_COLLECTION_65536=1` adds a level with all of a 65,536-rollout run in flight at once;
// `BENCH_COLLECTION_ONLY=example_multi_step` runs one environment's levels; `BENCH_COLLECTION_OVERRIDES`
// adds space-separated Hydra overrides to the config (e.g. `++global_aiohttp_connector_limit_per_host=128`);
// `BENCH_COLLECTION_TRACE=/tmp/trace` writes each level's /run start and latency (ms) to /tmp/trace-<level>.tsv.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ServerClient, type HttpResponse, type RequestOptions } from "../src/client/index.ts";
import { loadGlobalConfig, PROJECT_ROOT } from "../src/config/index.ts";
import { launchServers, type RunningServers } from "../src/cli/launcher.ts";
import { collectRollouts } from "../src/rollouts/collect.ts";
import { fixed, formatTable, percentile } from "./measure.ts";
import { openFileLimit, peakRssBytes, processCpuMs, processTree, resetPeakRss, rssBytes, sumOver, tcpCounters } from "./proc-stats.ts";
import type { SamplerPeaks, SamplerRequest } from "./sampler-child.ts";

const MODEL_CONFIG = "responses_api_models/scripted_model/configs/scripted_model.yaml";

interface EnvironmentSpec {
  name: string;
  /** `co_located: true`: the three servers in one process (or `processes` such), calling each other in-process. */
  coLocated?: { processes: number };
  config: string;
  agent: string;
  input: string;
  /** `unscaled`: BENCH_COLLECTION_SCALE does not shrink it (a level about how many are in flight). */
  levels: { concurrency: number; rollouts: number; unscaled?: boolean }[];
}

/** An example environment's name, config, simple_agent and example rows, by the repository's layout. */
const example = (name: string) => ({
  name,
  config: `resources_servers/${name}/configs/${name}.yaml`,
  agent: `${name}_simple_agent`,
  input: `resources_servers/${name}/data/example.jsonl`,
});

const ENVIRONMENTS: EnvironmentSpec[] = [
  {
    ...example("example_single_tool_call"),
    levels: [
      { concurrency: 1, rollouts: 200 },
      { concurrency: 64, rollouts: 2_000 },
      { concurrency: 1024, rollouts: 10_000 },
      { concurrency: 16384, rollouts: 32_768 },
      // BENCH_COLLECTION_65536=1: every rollout of a 65,536-rollout run in flight at once (~2 min here).
      ...(process.env.BENCH_COLLECTION_65536 === "1" ? [{ concurrency: 65_536, rollouts: 65_536, unscaled: true }] : []),
    ],
  },
  // The same graph co-located: agent, model and environment in one process, then one such process per core
  // (co_located_processes; README: when to use it).
  ...[1, availableParallelism()].map((processes) => ({
    ...example("example_single_tool_call"),
    coLocated: { processes },
    levels: [
      { concurrency: 64, rollouts: 2_000 },
      { concurrency: 1024, rollouts: 10_000 },
    ],
  })),
  {
    ...example("example_multi_step"),
    levels: [
      { concurrency: 1, rollouts: 100 },
      { concurrency: 1024, rollouts: 10_000 },
    ],
  },
];

const ROLES = ["collector", "agent", "model", "environment"] as const;
type Role = (typeof ROLES)[number];
type PerRole<T> = Record<Role, T>;

export interface CollectionLevel {
  environment: string;
  /** How the servers ran: each in its own process (absent in older results), or co-located (in `processes` processes). */
  mode?: "separate" | "co-located";
  processes?: number;
  concurrency: number;
  rollouts: number;
  succeeded: number;
  /** Rollouts without a result after every attempt: must be 0. */
  failed: number;
  /** Failed /run attempts, including those retried successfully (lines of the failures file). */
  failedAttempts: number;
  /** /run calls made: rollouts + retried attempts. */
  runCalls: number;
  /** Failed attempts by class and message (numbers and ports masked), most frequent first. */
  failureKinds: { kind: string; count: number; example: string }[];
  /** Wall time of the whole collectRollouts call (materialization, every /run, writing, aggregation). */
  seconds: number;
  rolloutsPerSecond: number;
  /** Time from POST /run to its 2xx answer, as collectRollouts sees it (queueing in the client pool included). */
  latencyMs: { median: number; p99: number; max: number };
  aggregateMetricsMs: number | null;
  cpuMsPerRollout: { total: number } & PerRole<number | null>;
  peakRssMb: PerRole<number | null>;
  /** The collector's RSS when the level began (after a full GC), and its JS heap's peak during the level. */
  collectorRssAtStartMb: number | null;
  collectorPeakHeapMb: number;
  peakOpenFds: PerRole<number | null>;
  /** Most connections seen waiting in a server's accept queue (sampled every 250 ms). */
  peakAcceptQueue: PerRole<number | null>;
  /** Sockets per origin of every HTTP client (collector and servers). */
  connectionsPerOrigin: number;
  /** Machine-wide during the level: connections dropped by a full accept queue, SYNs retransmitted. */
  tcp: { listenOverflows: number; synRetransmits: number } | null;
  toolCallsPerRollout: number;
  meanReward: number;
}

export interface CollectionResult {
  openFileLimit: number | null;
  processes: Record<string, { role: Role; instance: string; pid: number }[]>;
  levels: CollectionLevel[];
}

/** ServerClient that times every /run (and /aggregate_metrics) that collectRollouts sends through it. */
class TimedServerClient extends ServerClient {
  /** Latencies of /run calls answered 2xx. */
  readonly runMs: number[] = [];
  /** When each of those calls started (ms since the client was created). */
  readonly runStartMs: number[] = [];
  private readonly createdAt = performance.now();
  /** Every /run call (attempt), whatever its outcome. */
  runCalls = 0;
  aggregateMs: number | null = null;

  override async request(serverName: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    if (path !== "/run" && path !== "/aggregate_metrics") return super.request(serverName, path, options);
    if (path === "/run") this.runCalls++;
    const start = performance.now();
    const answer = await super.request(serverName, path, options);
    const ms = performance.now() - start;
    if (path === "/aggregate_metrics") this.aggregateMs = (this.aggregateMs ?? 0) + ms;
    else {
      if (answer.ok) {
        this.runMs.push(ms);
        this.runStartMs.push(start - this.createdAt);
      }
    }
    return answer;
  }
}

/** A full GC between levels, so that one level's garbage does not count as the next one's memory. */
const collectGarbage: () => void = (() => {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as (() => void) | undefined;
    if (typeof gc === "function") return gc;
  } catch {
    // not available: the figures then include what earlier levels left behind
  }
  return () => undefined;
})();

const silentStream = () => Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { isTTY: false }) as unknown as NodeJS.WriteStream;
const status = (line: string) => process.stderr.write(`[collection] ${line}\n`);
/** Set once the servers are being stopped: what they print while going down (callers gone) is noise. */
let stopping = false;
const roleOf = (serverType: string): Role =>
  serverType === "responses_api_agents" ? "agent" : serverType === "responses_api_models" ? "model" : "environment";

async function startStack(spec: EnvironmentSpec): Promise<{ running: RunningServers; pids: PerRole<number>; ports: Partial<PerRole<number>>; output: string[] }> {
  const { raw, resolved } = await loadGlobalConfig({
    configPaths: [spec.config, MODEL_CONFIG],
    // Any free port for the head server, so the bench never collides with a running `gym env start`.
    overrides: ["++head_server.port=0", ...(spec.coLocated ? ["++co_located=true", `++co_located_processes=${spec.coLocated.processes}`] : []), ...(process.env.BENCH_COLLECTION_OVERRIDES?.split(/\s+/).filter(Boolean) ?? [])],
    envYamlPath: null,
    requireServers: true,
    logger: { warn: (message) => status(`WARNING ${message}`) },
  });
  const output: string[] = [];
  // Servers' INFO lines are kept for a failure report; anything else (warnings, errors) is shown as it comes.
  const log = (line: string) => {
    output.push(line);
    if (output.length > 2000) output.splice(0, 1000);
    if (!stopping && !/^\([^)]*\) INFO /.test(line) && !line.startsWith("(launcher)")) status(line);
  };
  const running = await launchServers({ raw, resolved, log });
  const pids = { collector: process.pid } as PerRole<number>;
  const ports: Partial<PerRole<number>> = {};
  for (const instance of running.instances) {
    if (instance.pid === null || instance.port === null) throw new Error(`${instance.process_name} has no pid or port`);
    pids[roleOf(instance.server_type)] = instance.pid;
    ports[roleOf(instance.server_type)] = instance.port;
  }
  return { running, pids, ports, output };
}

function failureKinds(lines: string[]): CollectionLevel["failureKinds"] {
  const kinds = new Map<string, { kind: string; count: number; example: string }>();
  for (const text of lines) {
    let line: { _ng_failure_class?: string; status?: number; error?: string };
    try {
      line = JSON.parse(text);
    } catch {
      line = { error: text };
    }
    const message = String(line.error ?? "").replace(/\d+/g, "N").slice(0, 160);
    const kind = `${line._ng_failure_class ?? "?"}${line.status !== undefined ? ` ${line.status}` : ""}: ${message}`;
    const entry = kinds.get(kind) ?? { kind, count: 0, example: text.slice(0, 1000) };
    entry.count++;
    kinds.set(kind, entry);
  }
  return [...kinds.values()].sort((a, b) => b.count - a.count);
}

function countLines(path: string): number {
  return readFileSync(path, "utf8").split("\n").filter((line) => line.trim()).length;
}

/** Tool calls and rewards, read back from the rollouts file (after the timed part). */
function readRollouts(path: string): { toolCalls: number; rewardSum: number; lines: number } {
  let toolCalls = 0;
  let rewardSum = 0;
  let lines = 0;
  for (const text of readFileSync(path, "utf8").split("\n")) {
    if (!text.trim()) continue;
    const line = JSON.parse(text) as { reward: number; response?: { output?: { type: string }[] } };
    lines++;
    rewardSum += line.reward;
    toolCalls += (line.response?.output ?? []).filter((item) => item.type === "function_call").length;
  }
  return { toolCalls, rewardSum, lines };
}

interface Sampler {
  start(pids: Record<string, number>, ports: Record<string, number>): Promise<void>;
  stop(): Promise<SamplerPeaks>;
  close(): void;
}

/** The /proc sampler runs as a child process (see sampler-child.ts): its CPU is not the collector's. */
async function startSampler(intervalMs = 250): Promise<Sampler> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./sampler-child.ts", import.meta.url))], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit").then(() => {
    throw new Error("the /proc sampler process exited");
  });
  exited.catch(() => undefined);
  const next = () => Promise.race([once(child, "message").then(([message]) => message as { type: string }), exited]);
  await next(); // "ready"
  const send = (request: SamplerRequest) => child.send(request);
  return {
    async start(pids, ports) {
      send({ type: "start", pids, ports, intervalMs });
    },
    async stop() {
      const answer = next();
      send({ type: "stop" });
      return (await answer) as SamplerPeaks;
    },
    close: () => void child.kill(),
  };
}

async function runLevel(
  spec: EnvironmentSpec,
  stack: { running: RunningServers; pids: PerRole<number>; ports: Partial<PerRole<number>> },
  sampler: Sampler,
  level: { concurrency: number; rollouts: number },
  directory: string,
  tag: string,
): Promise<CollectionLevel> {
  const { running, pids, ports } = stack;
  const inputPath = join(PROJECT_ROOT, spec.input);
  const numRepeats = Math.max(1, Math.round(level.rollouts / countLines(inputPath)));
  const outputPath = join(directory, `${tag}.jsonl`);
  const client = new TimedServerClient({ globalConfig: running.resolved });

  collectGarbage();
  const collectorRssAtStart = rssBytes(process.pid);
  // A server role's figures are its process's and its descendants' (a co-located group over several processes is a
  // cluster primary and its workers); the collector's are this process's alone (its descendants are the servers).
  const processesOf = (role: Role) => (role === "collector" ? [pids[role]] : processTree(pids[role]));
  const cpuOf = (role: Role) => sumOver(processesOf(role), processCpuMs);
  for (const role of ROLES) processesOf(role).forEach(resetPeakRss);
  await sampler.start(pids, ports);
  // The collector's JS heap, sampled in-process (cheap: no /proc read).
  let peakHeap = getHeapStatistics().used_heap_size;
  const heapSampler = setInterval(() => (peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size)), 250);
  const cpuBefore = Object.fromEntries(ROLES.map((role) => [role, cpuOf(role)])) as PerRole<number | null>;
  const selfBefore = process.cpuUsage();
  const tcpBefore = tcpCounters();
  const start = performance.now();
  let summary;
  try {
    summary = await Promise.race([
      collectRollouts({
        client,
        inputPath,
        outputPath,
        agentName: spec.agent,
        numRepeats,
        concurrency: level.concurrency,
        print: () => undefined,
        progressStream: silentStream(),
      }),
      running.firstExit.then((exit) => {
        throw new Error(`server ${exit.instanceName} exited (${exit.signal ?? `code ${exit.code}`}) during collection`);
      }),
    ]);
  } finally {
    clearInterval(heapSampler);
    await client.close();
  }
  const seconds = (performance.now() - start) / 1000;
  const self = process.cpuUsage(selfBefore);
  const tcpAfter = tcpCounters();
  const peaks = await sampler.stop();
  const cpuMs = {} as PerRole<number | null>;
  // A role in the same process as an earlier one (co-located) has no figures of its own: they are that role's.
  const sharesProcess = (role: Role) => ROLES.slice(0, ROLES.indexOf(role)).some((earlier) => pids[earlier] === pids[role]);
  for (const role of ROLES) {
    const after = role === "collector" ? null : cpuOf(role);
    cpuMs[role] = sharesProcess(role) ? null : role === "collector" ? (self.user + self.system) / 1000 : after === null || cpuBefore[role] === null ? null : after - cpuBefore[role]!;
  }
  const peakRssMb = Object.fromEntries(ROLES.map((role) => [role, sharesProcess(role) ? NaN : (sumOver(processesOf(role), peakRssBytes) ?? NaN) / 2 ** 20])) as PerRole<number | null>;
  for (const role of ROLES) if (Number.isNaN(peakRssMb[role])) peakRssMb[role] = null;

  const total = summary.total;
  if (client.runCalls < total) {
    throw new Error(`saw ${client.runCalls} /run calls for ${total} rollouts: collectRollouts no longer posts /run through client.request`);
  }
  const sorted = [...client.runMs].sort((a, b) => a - b);
  if (process.env.BENCH_COLLECTION_TRACE) {
    writeFileSync(`${process.env.BENCH_COLLECTION_TRACE}-${tag}.tsv`, client.runMs.map((ms, i) => `${client.runStartMs[i]!.toFixed(1)}\t${ms.toFixed(1)}\n`).join(""));
  }
  const read = readRollouts(outputPath);
  // One line per failed attempt (retried or not).
  const failureLines = existsSync(summary.failuresPath) ? readFileSync(summary.failuresPath, "utf8").split("\n").filter(Boolean) : [];
  const perRollout = (ms: number | null) => (ms === null ? null : ms / total);
  const cpuTotal = ROLES.reduce((sum, role) => sum + (cpuMs[role] ?? 0), 0);
  return {
    environment: spec.name,
    mode: spec.coLocated ? "co-located" : "separate",
    ...(spec.coLocated ? { processes: spec.coLocated.processes } : {}),
    concurrency: level.concurrency,
    rollouts: total,
    succeeded: summary.succeeded,
    failed: summary.failed,
    failedAttempts: failureLines.length,
    runCalls: client.runCalls,
    failureKinds: failureKinds(failureLines),
    seconds,
    rolloutsPerSecond: total / seconds,
    latencyMs: { median: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! },
    aggregateMetricsMs: client.aggregateMs,
    cpuMsPerRollout: { total: cpuTotal / total, ...(Object.fromEntries(ROLES.map((role) => [role, perRollout(cpuMs[role])])) as PerRole<number | null>) },
    peakRssMb,
    collectorRssAtStartMb: collectorRssAtStart === null ? null : collectorRssAtStart / 2 ** 20,
    collectorPeakHeapMb: peakHeap / 2 ** 20,
    peakOpenFds: Object.fromEntries(ROLES.map((role) => [role, peaks.openFds[role] ?? null])) as PerRole<number | null>,
    peakAcceptQueue: Object.fromEntries(ROLES.map((role) => [role, peaks.acceptQueue[role] ?? null])) as PerRole<number | null>,
    connectionsPerOrigin: client.http.options.connectionsPerOrigin,
    tcp:
      tcpBefore && tcpAfter
        ? { listenOverflows: tcpAfter.listenOverflows - tcpBefore.listenOverflows, synRetransmits: tcpAfter.synRetransmits - tcpBefore.synRetransmits }
        : null,
    toolCallsPerRollout: read.lines > 0 ? read.toolCalls / read.lines : 0,
    meanReward: read.lines > 0 ? read.rewardSum / read.lines : 0,
  };
}

export async function collectionBench(options: { scale?: number } = {}): Promise<CollectionResult> {
  const scale = options.scale ?? Number(process.env.BENCH_COLLECTION_SCALE ?? 1);
  const directory = mkdtempSync(join(tmpdir(), "gym-bench-collection-"));
  const result: CollectionResult = { openFileLimit: openFileLimit(), processes: {}, levels: [] };
  let current: RunningServers | undefined;
  // At 16384 in flight the agent holds ~4-5k sockets (1024 per origin: collector → agent, agent → itself,
  // → environment, → model); below that the servers would fail with EMFILE.
  if (result.openFileLimit !== null && result.openFileLimit < 8192) {
    status(`WARNING: the open-file limit is ${result.openFileLimit}; the servers need ~5000 descriptors at high concurrency (raise it with ulimit -n 65536)`);
  }
  const sampler = await startSampler();
  // Ctrl-C / SIGTERM: stop the servers before leaving (they also stop on their own when this process dies).
  const onSignal = (signal: NodeJS.Signals) => {
    status(`${signal}: stopping the servers`);
    stopping = true;
    sampler.close();
    void (current?.stop() ?? Promise.resolve()).finally(() => {
      rmSync(directory, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const only = process.env.BENCH_COLLECTION_ONLY;
    for (const spec of ENVIRONMENTS.filter((e) => !only || e.name === only)) {
      status(`${spec.name}: starting the environment, simple_agent and scripted_model (${spec.coLocated ? `co-located: ${spec.coLocated.processes} process(es)` : "one process each"})`);
      const stack = await startStack(spec);
      current = stack.running;
      try {
        result.processes[`${spec.name}${spec.coLocated ? ` (co-located ×${spec.coLocated.processes})` : ""}`] = stack.running.instances.map((i) => ({ role: roleOf(i.server_type), instance: i.process_name, pid: i.pid! }));
        // Warm-up (not reported): JIT, connection pools.
        await runLevel(spec, stack, sampler, { concurrency: 32, rollouts: 200 }, directory, `${spec.name}-warmup`);
        for (const level of spec.levels) {
          const scaled = { concurrency: level.concurrency, rollouts: level.unscaled ? level.rollouts : Math.max(5, Math.round(level.rollouts * scale)) };
          status(`${spec.name}: concurrency ${scaled.concurrency}, ${scaled.rollouts} rollouts…`);
          const measured = await runLevel(spec, stack, sampler, scaled, directory, `${spec.name}-c${level.concurrency}`);
          status(
            `  ${fixed(measured.seconds, 1)} s, ${fixed(measured.rolloutsPerSecond, 1)} rollouts/s, ${measured.failed} failed, ${measured.failedAttempts} failed attempts, ` +
              `p99 ${fixed(measured.latencyMs.p99, 0)} ms, max ${fixed(measured.latencyMs.max, 0)} ms, accept-queue drops ${measured.tcp?.listenOverflows ?? "?"}` +
              measured.failureKinds.map((k) => `\n    ${k.count} × ${k.kind}`).join(""),
          );
          result.levels.push(measured);
        }
      } catch (error) {
        status(`last server output:\n${stack.output.slice(-30).join("\n")}`);
        throw error;
      } finally {
        stopping = true;
        await stack.running.stop();
        stopping = false;
        current = undefined;
      }
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    sampler.close();
    rmSync(directory, { recursive: true, force: true });
  }
  return result;
}

const mb = (value: number | null) => (value === null ? "—" : fixed(value, 0));
/** The environment column: its name, and how its servers ran when co-located. */
export const levelName = (level: CollectionLevel) => `${level.environment}${level.mode === "co-located" ? ` (co-located ×${level.processes ?? 1})` : ""}`;
const ms = (value: number | null) => (value === null ? "—" : fixed(value, 2));

export function formatCollection(result: CollectionResult): string {
  const throughput = formatTable(
    ["environment", "concurrency", "rollouts", "wall s", "rollouts/s", "latency median ms", "p99 ms", "max ms", "tool calls/rollout", "mean reward", "failed", "failed attempts"],
    result.levels.map((l) => [
      levelName(l),
      l.concurrency,
      l.rollouts,
      fixed(l.seconds, 1),
      fixed(l.rolloutsPerSecond, 1),
      fixed(l.latencyMs.median),
      fixed(l.latencyMs.p99),
      fixed(l.latencyMs.max),
      fixed(l.toolCallsPerRollout),
      fixed(l.meanReward, 3),
      l.failed,
      l.failedAttempts,
    ]),
  );
  const cpu = formatTable(
    ["environment", "concurrency", "CPU ms/rollout: all processes", "collector", "agent", "model", "environment"],
    result.levels.map((l) => [levelName(l), l.concurrency, ms(l.cpuMsPerRollout.total), ...ROLES.map((role) => ms(l.cpuMsPerRollout[role]))]),
  );
  const memory = formatTable(
    ["environment", "concurrency", "peak RSS MB: collector", "agent", "model", "environment", "collector RSS at start MB", "collector peak JS heap MB"],
    result.levels.map((l) => [levelName(l), l.concurrency, ...ROLES.map((role) => mb(l.peakRssMb[role])), mb(l.collectorRssAtStartMb), mb(l.collectorPeakHeapMb)]),
  );
  const count = (value: number | null | undefined) => (value === null || value === undefined ? "—" : String(value));
  const sockets = formatTable(
    ["environment", "concurrency", "peak open fds: collector", "agent", "model", "environment", "peak accept queue: agent", "model", "environment", "accept-queue drops", "SYN retransmits"],
    result.levels.map((l) => [
      levelName(l),
      l.concurrency,
      ...ROLES.map((role) => count(l.peakOpenFds[role])),
      count(l.peakAcceptQueue.agent),
      count(l.peakAcceptQueue.model),
      count(l.peakAcceptQueue.environment),
      count(l.tcp?.listenOverflows),
      count(l.tcp?.synRetransmits),
    ]),
  );
  const failures = result.levels
    .filter((l) => l.failedAttempts > 0)
    .map(
      (l) =>
        `failed attempts, ${levelName(l)} at concurrency ${l.concurrency}: ${l.failedAttempts} (${l.failed} rollouts failed for good)\n` +
        l.failureKinds.map((k) => `  ${k.count} × ${k.kind}\n    e.g. ${k.example.slice(0, 600)}`).join("\n"),
    );
  const notes = [
    `open-file limit of this process (children inherit it): ${result.openFileLimit ?? "unknown"}; HTTP clients: ${result.levels[0]?.connectionsPerOrigin ?? "?"} sockets per origin, requests beyond wait in the pool`,
    `latency: POST /run to its answer as collectRollouts sees it (successful attempts; at high concurrency, waiting in the client pool included)`,
    `CPU: utime + stime of each server process (/proc) and of this process (collector and head server; the /proc sampling runs in a process of its own); peak RSS: VmHWM, reset before each level`,
    `accept queue: connections a server has not yet accepted (sampled every 250 ms); drops and SYN retransmits: this machine's TCP counters over the level`,
    `co-located ×N: agent, model and environment in one process, or N such processes sharing the ports (co_located: true, co_located_processes: N): their CPU, RSS (summed over the processes) and descriptors are in the agent column`,
  ];
  const totals = `failures in total: ${result.levels.reduce((sum, l) => sum + l.failed, 0)} rollouts, ${result.levels.reduce((sum, l) => sum + l.failedAttempts, 0)} failed attempts`;
  return [notes.join("\n"), throughput, cpu, memory, sockets, ...failures, totals].join("\n\n");
}
