// One run as `gym view` shows it: a rollouts file and the files a collection writes next to it (its
// `_failures.jsonl`, its `_aggregate_metrics.json`), each read again when it changed, so a collection still writing
// them is watched live. Metrics are derived once per change of the files, not per request.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { rolloutOutputPaths } from "../../rollouts/output-files.ts";
import type { LineKind } from "./line-summary.ts";
import { runMetrics, type RunMetrics } from "./run-metrics.ts";
import { TailedJsonl } from "./tailed-jsonl.ts";

/** `<stem>_failures.jsonl` and the other sidecars: given with a glob (`results/*.jsonl`), they are not runs of their own. */
const SIDECAR_SUFFIXES = ["_failures.jsonl", "_materialized_inputs.jsonl"];

/** The rollouts files among `paths`: a sidecar whose rollouts file is given too, or exists, is left out. */
export function runPathsOf(paths: readonly string[]): string[] {
  const given = new Set(paths);
  return paths.filter((path) => {
    const suffix = SIDECAR_SUFFIXES.find((ending) => path.endsWith(ending));
    if (!suffix) return true;
    const rollouts = path.slice(0, -suffix.length) + ".jsonl";
    return !(given.has(rollouts) || existsSync(rollouts));
  });
}

export interface RunOverview {
  id: number;
  name: string;
  path: string;
  /** The rollouts file exists yet (a collection just started may not have written it). */
  exists: boolean;
  /** Bumped on every change of the run's files; the page refetches what it shows when it moves. */
  version: string;
  /** When a file of the run last changed (ms since the epoch). */
  modifiedMs: number | null;
  unreadableLines: number;
  metrics: RunMetrics;
  /** `key_metrics` of each agent in `_aggregate_metrics.json`, when the run wrote it. */
  keyMetrics: { agent: string; metrics: Record<string, unknown> }[] | null;
}

export class ViewedRun {
  readonly rollouts: TailedJsonl;
  readonly failures: TailedJsonl;
  /** Read only when the playground asks for a row: the table and the plots never need it. */
  readonly inputs: TailedJsonl;
  private readonly aggregatePath: string;
  private aggregate: { mtimeMs: number; keyMetrics: RunOverview["keyMetrics"] } | null = null;
  private cached: { version: string; metrics: RunMetrics } | null = null;

  constructor(
    readonly id: number,
    readonly path: string,
  ) {
    const paths = rolloutOutputPaths(path);
    this.rollouts = new TailedJsonl(paths.rollouts, "rollout");
    this.failures = new TailedJsonl(paths.failures, "failure");
    this.inputs = new TailedJsonl(paths.materializedInputs, "input");
    this.aggregatePath = paths.aggregateMetrics;
  }

  file(kind: LineKind): TailedJsonl {
    return kind === "rollout" ? this.rollouts : kind === "failure" ? this.failures : this.inputs;
  }

  /**
   * The row a session is seeded with for task/repeat: its materialized input (the dataset fields verify needs, which
   * a rollout line may not echo back), else the rollout line without what the run added to it.
   */
  seedRow(task: number, repeat: number): { source: "materialized inputs" | "rollout line"; row: Record<string, unknown> } | null {
    this.inputs.refresh();
    const matching = (file: TailedJsonl) => file.lines.find((line) => line.task === task && line.repeat === repeat);
    const input = matching(this.inputs);
    const rollout = input ? undefined : matching(this.rollouts);
    const line = input ? this.inputs.readLine(input.index) : rollout ? this.rollouts.readLine(rollout.index) : null;
    if (line === null) return null;
    const row = Object.fromEntries(Object.entries(line).filter(([key]) => !key.startsWith("_ng_") && key !== "agent_ref" && key !== "response" && key !== "reward"));
    return { source: input ? "materialized inputs" : "rollout line", row };
  }

  refresh(): void {
    this.rollouts.refresh();
    this.failures.refresh();
    this.refreshAggregate();
  }

  private refreshAggregate(): void {
    if (!existsSync(this.aggregatePath)) {
      this.aggregate = null;
      return;
    }
    const { mtimeMs } = statSync(this.aggregatePath);
    if (this.aggregate?.mtimeMs === mtimeMs) return;
    let keyMetrics: RunOverview["keyMetrics"] = null;
    try {
      const entries = JSON.parse(readFileSync(this.aggregatePath, "utf8")) as { agent_ref?: { name?: string }; key_metrics?: Record<string, unknown> }[];
      if (Array.isArray(entries)) keyMetrics = entries.map((entry) => ({ agent: entry.agent_ref?.name ?? "?", metrics: entry.key_metrics ?? {} }));
    } catch {
      // Written atomically by the collection; anything else (a hand edit) is shown as absent rather than failing the page.
    }
    this.aggregate = { mtimeMs, keyMetrics };
  }

  get version(): string {
    return `${this.rollouts.version}.${this.failures.version}.${this.aggregate?.mtimeMs ?? 0}`;
  }

  metrics(): RunMetrics {
    const version = this.version;
    if (this.cached?.version !== version) this.cached = { version, metrics: runMetrics(this.rollouts.lines, this.failures.lines) };
    return this.cached.metrics;
  }

  overview(): RunOverview {
    const modified = [this.rollouts.path, this.failures.path, this.aggregatePath].filter((path) => existsSync(path)).map((path) => statSync(path).mtimeMs);
    return {
      id: this.id,
      name: basename(this.path, ".jsonl"),
      path: this.path,
      exists: this.rollouts.exists,
      version: this.version,
      modifiedMs: modified.length > 0 ? Math.max(...modified) : null,
      unreadableLines: this.rollouts.unreadable + this.failures.unreadable,
      metrics: this.metrics(),
      keyMetrics: this.aggregate?.keyMetrics ?? null,
    };
  }
}
