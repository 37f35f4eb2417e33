// A/B of the collection benchmark in one run: the same suite of another commit (a git worktree of it, sharing this
// tree's node_modules) and of this tree, run alternately as child processes — A, B, A, B… — so that both see the
// same machine at the same time; a shared, noisy machine moves both. Each child is that commit's own
// `bench/run.ts collection` (its servers, its driver), so A is "main as it was", not this driver over old servers.
//
// `npm run bench collection -- --ab <rev> [--rounds N]`; BENCH_COLLECTION_SCALE and BENCH_COLLECTION_ONLY reach
// both children. The table: per environment and concurrency, rollouts/s, p50/p99 ms and CPU ms per rollout (all
// processes) of A and B (the median over rounds) and B/A, and the peak RSS of the collector and of the servers.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { levelName, type CollectionLevel, type CollectionResult } from "./collection.ts";
import { fixed, formatTable } from "./measure.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));

export interface AbSide {
  label: string;
  commit: string;
  runs: CollectionResult[];
}
export interface AbResult {
  a: AbSide;
  b: AbSide;
  rounds: number;
  scale: string;
}

export function git(args: string[], cwd = HERE): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** A detached worktree of `rev` whose node_modules is this tree's (the dependencies a commit of today needs). */
export function worktreeOf(rev: string): { dir: string; commit: string; remove: () => void } {
  const commit = git(["rev-parse", "--verify", `${rev}^{commit}`]);
  const dir = mkdtempSync(join(tmpdir(), `gym-ab-${commit.slice(0, 8)}-`));
  git(["worktree", "add", "--detach", "--force", dir, commit]);
  symlinkSync(join(HERE, "node_modules"), join(dir, "node_modules"));
  return {
    dir,
    commit,
    remove: () => {
      try {
        git(["worktree", "remove", "--force", dir]);
      } catch {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** One `bench/run.ts collection` in `dir`; its stderr (progress) goes through, its result is its last-run.json. */
function runCollection(dir: string, label: string): Promise<CollectionResult> {
  return new Promise((resolve, reject) => {
    process.stderr.write(`\n[ab] ${label}: npm run bench collection in ${dir}\n`);
    const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts", "collection"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, BENCH_AB_CHILD: "1" } });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${label}: the collection benchmark exited with ${code}`));
      const path = join(dir, "bench", "last-run.json");
      if (!existsSync(path)) return reject(new Error(`${label}: no ${path}`));
      resolve((JSON.parse(readFileSync(path, "utf8")) as { collection: CollectionResult }).collection);
    });
  });
}

export async function abCollection(rev: string, rounds: number): Promise<AbResult> {
  const base = worktreeOf(rev);
  const a: AbSide = { label: `A ${rev} (${base.commit.slice(0, 10)})`, commit: base.commit, runs: [] };
  const b: AbSide = { label: `B this tree (${git(["rev-parse", "HEAD"]).slice(0, 10)}${git(["status", "--porcelain"]) ? " + changes" : ""})`, commit: git(["rev-parse", "HEAD"]), runs: [] };
  try {
    for (let round = 1; round <= rounds; round++) {
      a.runs.push(await runCollection(base.dir, `${a.label}, round ${round}/${rounds}`));
      b.runs.push(await runCollection(HERE, `${b.label}, round ${round}/${rounds}`));
    }
  } finally {
    base.remove();
  }
  return { a, b, rounds, scale: process.env.BENCH_COLLECTION_SCALE ?? "1" };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const SERVER_ROLES = ["agent", "model", "environment"] as const;

const levelKey = (level: CollectionLevel) => `${levelName(level)}@${level.concurrency}`;
/** The separate-process twin of a co-located key: what a side without co-located rows (main before them) is compared by. */
const separateKey = (key: string) => key.replace(/ \(co-located ×\d+\)@/, "@");

function medianOf(side: AbSide, key: string, pick: (level: CollectionLevel) => number): number | undefined {
  const values = side.runs.flatMap((run) => run.levels.filter((level) => levelKey(level) === key).map(pick));
  return values.length ? median(values) : undefined;
}

/** A's figure for `key`; a co-located row that A has not is compared with A's separate processes at that concurrency. */
function baselineOf(side: AbSide, key: string, pick: (level: CollectionLevel) => number): number | undefined {
  return medianOf(side, key, pick) ?? medianOf(side, separateKey(key), pick);
}

export function formatAb(result: AbResult): string {
  const keys = [...new Set([...result.a.runs, ...result.b.runs].flatMap((run) => run.levels.map(levelKey)))];
  const cell = (value: number | undefined, digits = 0) => (value === undefined ? "—" : fixed(value, digits));
  const ratio = (b: number | undefined, a: number | undefined) => (a === undefined || b === undefined || a === 0 ? "—" : `${fixed(b / a, 2)}×`);
  const rows = keys.map((key) => {
    const [name, concurrency] = key.split("@");
    const environment = key !== separateKey(key) && !result.a.runs.some((run) => run.levels.some((level) => levelKey(level) === key)) ? `${name} (B) vs separate (A)` : name;
    const metric = (pick: (level: CollectionLevel) => number) => [baselineOf(result.a, key, pick), medianOf(result.b, key, pick)] as const;
    const [rpsA, rpsB] = metric((l) => l.rolloutsPerSecond);
    const [p50A, p50B] = metric((l) => l.latencyMs.median);
    const [p99A, p99B] = metric((l) => l.latencyMs.p99);
    const [cpuA, cpuB] = metric((l) => l.cpuMsPerRollout.total);
    const [failA, failB] = metric((l) => l.failed);
    const [collectorA, collectorB] = metric((l) => l.peakRssMb.collector ?? NaN);
    const [serversA, serversB] = metric((l) => SERVER_ROLES.reduce((sum, role) => sum + (l.peakRssMb[role] ?? 0), 0));
    return [
      environment!, concurrency!, cell(rpsA, 1), cell(rpsB, 1), ratio(rpsB, rpsA), cell(p50A), cell(p50B), cell(p99A), cell(p99B), ratio(p99B, p99A),
      cell(cpuA, 2), cell(cpuB, 2), ratio(cpuB, cpuA), `${cell(collectorA)} / ${cell(collectorB)}`, `${cell(serversA)} / ${cell(serversB)}`, `${cell(failA)}/${cell(failB)}`,
    ];
  });
  return [
    `A = ${result.a.label}; B = ${result.b.label}; ${result.rounds} round(s) each, alternating; medians over rounds; BENCH_COLLECTION_SCALE=${result.scale}`,
    "",
    formatTable(
      ["environment", "concurrency", "A rollouts/s", "B rollouts/s", "B/A", "A p50 ms", "B p50 ms", "A p99 ms", "B p99 ms", "p99 B/A", "A CPU ms/rollout", "B CPU ms/rollout", "CPU B/A", "collector peak RSS MB A / B", "servers' peak RSS MB (sum) A / B", "failed A/B"],
      rows,
    ),
    "",
    "CPU ms/rollout: every process (collector, agent, model, environment); peak RSS: VmHWM of each process over the level, the three servers' summed",
    "a co-located row (the three servers in one process) that A has not is compared with A's separate processes at the same concurrency",
  ].join("\n");
}
