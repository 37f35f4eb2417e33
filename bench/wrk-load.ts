// `npm run bench wrk [-- --ab <rev> --rounds N]`: the speed issue's own measurement. A tree's own `gym env start`
// runs example_single_tool_call (or example_multi_step) + simple_agent + scripted_model, and wrk (C, from Debian's
// packages: its CPU is small and outside the graph) posts one fixed dataset row to the agent's /run at each
// concurrency. Per level: rollouts/s, wrk's p50/p99, CPU ms per rollout of the server processes (utime + stime from
// /proc over each server's process tree: a co-located group over several processes is a primary and its workers),
// their summed peak RSS, and errors (non-2xx answers, socket errors, timeouts), which must be 0.
//
// Modes: the servers each in their own process; co-located in one process (`co_located: true`); co-located as one
// process per core (`co_located_processes`). With --ab <rev>, that commit's tree (a worktree sharing node_modules,
// started with its own CLI) runs the same driver, alternating with this tree round by round; a mode it does not have
// (co-located, before it existed) is compared with its separate processes at the same concurrency.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { fixed, formatTable } from "./measure.ts";
import { peakRssBytes, processCpuMs, processTree, resetPeakRss, sumOver } from "./proc-stats.ts";
import { git, worktreeOf } from "./ab.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));
const MODEL_CONFIG = "responses_api_models/scripted_model/configs/scripted_model.yaml";
const SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 6);

interface Mode {
  name: string;
  environment: "example_single_tool_call" | "example_multi_step";
  overrides: string[];
  /** A tree without co-located mode has none of these. */
  coLocated: boolean;
  concurrency: number[];
}

const MODES: Mode[] = [
  { name: "separate", environment: "example_single_tool_call", overrides: [], coLocated: false, concurrency: [1, 16, 64, 256, 1024] },
  { name: "co-located ×1", environment: "example_single_tool_call", overrides: ["++co_located=true"], coLocated: true, concurrency: [64, 256, 1024] },
  {
    name: `co-located ×${availableParallelism()}`,
    environment: "example_single_tool_call",
    overrides: ["++co_located=true", `++co_located_processes=${availableParallelism()}`],
    coLocated: true,
    concurrency: [64, 256, 1024],
  },
  { name: "separate", environment: "example_multi_step", overrides: [], coLocated: false, concurrency: [64, 1024] },
];

export interface WrkLevel {
  mode: string;
  environment: string;
  concurrency: number;
  rolloutsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRollout: number | null;
  peakRssMb: number | null;
  errors: number;
}
export interface WrkSide {
  label: string;
  commit: string;
  runs: WrkLevel[][];
}
export interface WrkResult {
  a?: WrkSide;
  b: WrkSide;
  rounds: number;
  seconds: number;
}

const status = (line: string) => process.stderr.write(`[wrk] ${line}\n`);

/** wrk on PATH, installed from Debian's packages when missing and this is root (as scripts/ensure-deps.js does). */
function ensureWrk(): void {
  const has = () => {
    try {
      execFileSync("wrk", ["--version"], { stdio: "ignore" });
      return true;
    } catch (error) {
      // wrk --version exits 1 after printing its version
      return (error as { status?: number }).status === 1;
    }
  };
  if (has()) return;
  if (process.getuid?.() === 0) {
    status("installing wrk: apt-get install -y wrk");
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "wrk"], { stdio: "ignore" });
  }
  if (!has()) throw new Error("this suite needs wrk: apt-get install -y wrk");
}

/** A running graph of one tree: `gym env start` as a child, its agent's URL, its servers' pids. */
async function startGraph(tree: string, mode: Mode): Promise<{ agentUrl: string; pids: number[]; stop(): Promise<void> }> {
  const env = mode.environment;
  const gym = spawn(process.execPath, ["bin/gym.js", "env", "start", "--config", `resources_servers/${env}/configs/${env}.yaml`, "--config", MODEL_CONFIG, "++head_server.port=0", ...mode.overrides], {
    cwd: tree,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const headUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${tree}: no graph within 90 s:\n${output.slice(-20).join("\n")}`)), 90_000);
    const onLine = (line: string) => {
      output.push(line);
      const ready = /servers ready! Head server: (http:\/\/[\d.]+:\d+)/.exec(line);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    };
    createInterface({ input: gym.stdout! }).on("line", onLine);
    createInterface({ input: gym.stderr! }).on("line", onLine);
    gym.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${tree}: gym env start exited (${code}):\n${output.slice(-20).join("\n")}`));
    });
  });
  const instances = (await (await fetch(`${headUrl}/server_instances`)).json()) as { server_type: string; url: string; pid: number }[];
  const agent = instances.find((i) => i.server_type === "responses_api_agents")!;
  return {
    agentUrl: agent.url,
    pids: [...new Set(instances.map((i) => i.pid))],
    stop: () => stopGym(gym),
  };
}

function stopGym(gym: ChildProcess): Promise<void> {
  if (gym.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => gym.kill("SIGKILL"), 10_000);
    gym.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    gym.kill("SIGINT");
  });
}

/** wrk's figures: requests/s, latency percentiles (ms), and every kind of error it counts. */
function runWrk(url: string, script: string, concurrency: number, seconds: number): { rps: number; p50Ms: number; p99Ms: number; requests: number; errors: number } {
  const threads = Math.min(2, concurrency);
  const text = execFileSync("wrk", [`-t${threads}`, `-c${concurrency}`, `-d${seconds}s`, "--timeout", "120s", "--latency", "-s", script, `${url}/run`], { encoding: "utf8" });
  const ms = (value: string) => {
    const match = /([\d.]+)(us|ms|s|m)/.exec(value)!;
    const number = Number(match[1]);
    return match[2] === "us" ? number / 1000 : match[2] === "ms" ? number : match[2] === "s" ? number * 1000 : number * 60_000;
  };
  const percentile = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(text)![1]!);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)![1]),
    p50Ms: percentile("50"),
    p99Ms: percentile("99"),
    requests: Number(/(\d+) requests in/.exec(text)![1]),
    errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

/** The Lua script posting one fixed row (the environment's first example) to /run. */
function scriptFor(tree: string, environment: string, directory: string): string {
  const row = readFileSync(join(tree, "resources_servers", environment, "data", "example.jsonl"), "utf8").split("\n")[0]!;
  const path = join(directory, `${environment}.lua`);
  writeFileSync(path, `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ${JSON.stringify(row)}\n`);
  return path;
}

async function measureTree(tree: string, coLocatedModes: boolean, directory: string): Promise<WrkLevel[]> {
  const levels: WrkLevel[] = [];
  for (const mode of MODES.filter((m) => coLocatedModes || !m.coLocated)) {
    const script = scriptFor(tree, mode.environment, directory);
    const graph = await startGraph(tree, mode);
    try {
      runWrk(graph.agentUrl, script, 32, 3); // warm-up: JIT, connection pools
      for (const concurrency of mode.concurrency) {
        const processes = () => graph.pids.flatMap(processTree);
        processes().forEach(resetPeakRss);
        const before = sumOver(processes(), processCpuMs);
        const run = runWrk(graph.agentUrl, script, concurrency, SECONDS);
        const after = sumOver(processes(), processCpuMs);
        const level: WrkLevel = {
          mode: mode.name,
          environment: mode.environment,
          concurrency,
          rolloutsPerSecond: run.rps,
          p50Ms: run.p50Ms,
          p99Ms: run.p99Ms,
          cpuMsPerRollout: before === null || after === null || run.requests === 0 ? null : (after - before) / run.requests,
          peakRssMb: (sumOver(processes(), peakRssBytes) ?? NaN) / 2 ** 20 || null,
          errors: run.errors,
        };
        status(`  ${mode.environment} ${mode.name} c=${concurrency}: ${fixed(level.rolloutsPerSecond, 0)}/s, p99 ${fixed(level.p99Ms, 0)} ms, ${level.cpuMsPerRollout === null ? "?" : fixed(level.cpuMsPerRollout, 2)} ms CPU/rollout, ${level.errors} errors`);
        levels.push(level);
      }
    } finally {
      await graph.stop();
    }
  }
  return levels;
}

const hasCoLocatedMode = (tree: string) => {
  try {
    return readFileSync(join(tree, "src", "config", "co-located.ts"), "utf8").includes("co_located_processes");
  } catch {
    return false;
  }
};

export async function wrkBench(options: { ab?: string; rounds?: number } = {}): Promise<WrkResult> {
  ensureWrk();
  const rounds = options.ab ? (options.rounds ?? 2) : 1;
  const directory = mkdtempSync(join(tmpdir(), "gym-wrk-"));
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]) ? " + changes" : "";
  const b: WrkSide = { label: `B this tree (${git(["rev-parse", "HEAD"]).slice(0, 10)}${dirty})`, commit: git(["rev-parse", "HEAD"]), runs: [] };
  const base = options.ab ? worktreeOf(options.ab) : undefined;
  const a: WrkSide | undefined = base && { label: `A ${options.ab} (${base.commit.slice(0, 10)})`, commit: base.commit, runs: [] };
  try {
    for (let round = 1; round <= rounds; round++) {
      if (a && base) {
        status(`${a.label}, round ${round}/${rounds}`);
        a.runs.push(await measureTree(base.dir, hasCoLocatedMode(base.dir), directory));
      }
      status(`${b.label}, round ${round}/${rounds}`);
      b.runs.push(await measureTree(HERE, true, directory));
    }
  } finally {
    base?.remove();
    rmSync(directory, { recursive: true, force: true });
  }
  return { a, b, rounds, seconds: SECONDS };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? undefined : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function formatWrk(result: WrkResult): string {
  const key = (level: WrkLevel) => `${level.environment}|${level.mode}|${level.concurrency}`;
  const keys = [...new Set(result.b.runs.flat().map(key))];
  const pick = (side: WrkSide | undefined, wanted: string, read: (level: WrkLevel) => number | null) =>
    median((side?.runs.flat() ?? []).filter((level) => key(level) === wanted).map(read).filter((value): value is number => value !== null));
  const cell = (value: number | undefined, digits = 0) => (value === undefined ? "—" : fixed(value, digits));
  const ratio = (b: number | undefined, a: number | undefined) => (a === undefined || b === undefined || a === 0 ? "—" : `${fixed(b / a, 2)}×`);
  const rows = keys.map((wanted) => {
    const [environment, mode, concurrency] = wanted.split("|");
    // A co-located row A has not is compared with A's separate processes at the same concurrency.
    const aKey = result.a?.runs.flat().some((level) => key(level) === wanted) ? wanted : `${environment}|separate|${concurrency}`;
    const both = (read: (level: WrkLevel) => number | null) => [pick(result.a, aKey, read), pick(result.b, wanted, read)] as const;
    const [rpsA, rpsB] = both((l) => l.rolloutsPerSecond);
    const [p50A, p50B] = both((l) => l.p50Ms);
    const [p99A, p99B] = both((l) => l.p99Ms);
    const [cpuA, cpuB] = both((l) => l.cpuMsPerRollout);
    const [rssA, rssB] = both((l) => l.peakRssMb);
    const [errA, errB] = both((l) => l.errors);
    const vs = aKey === wanted ? mode! : `${mode} (A: separate)`;
    return result.a
      ? [environment!, vs, concurrency!, cell(rpsA), cell(rpsB), ratio(rpsB, rpsA), cell(p50A, 1), cell(p50B, 1), cell(p99A), cell(p99B), ratio(p99B, p99A), cell(cpuA, 2), cell(cpuB, 2), ratio(cpuB, cpuA), `${cell(rssA)} / ${cell(rssB)}`, `${cell(errA)}/${cell(errB)}`]
      : [environment!, mode!, concurrency!, cell(rpsB), cell(p50B, 1), cell(p99B), cell(cpuB, 2), cell(rssB), cell(errB)];
  });
  const header = result.a
    ? ["environment", "servers", "concurrency", "A rollouts/s", "B rollouts/s", "B/A", "A p50 ms", "B p50 ms", "A p99 ms", "B p99 ms", "p99 B/A", "A CPU ms/rollout", "B CPU ms/rollout", "CPU B/A", "servers' peak RSS MB A / B", "errors A/B"]
    : ["environment", "servers", "concurrency", "rollouts/s", "p50 ms", "p99 ms", "CPU ms/rollout (servers)", "servers' peak RSS MB", "errors"];
  return [
    result.a ? `A = ${result.a.label}; B = ${result.b.label}; ${result.rounds} round(s), alternating; medians over rounds; ${result.seconds} s per level` : `${result.b.label}; ${result.seconds} s per level`,
    "driver: wrk posting the environment's first example row to the agent's /run (wrk's CPU is not counted); CPU: the server processes' utime + stime per rollout",
    "",
    formatTable(header, rows),
  ].join("\n");
}
