// `gym eval aggregate` (NeMo Gym's ng_aggregate_rollouts): rollout shards in, one merged rollouts file and
// one `<stem>_aggregate_metrics.json` out. Shards are merged by (task, rollout) key — the first line of a
// key wins, later duplicates are dropped and counted — and sorted by that key; metrics come from each
// agent's /aggregate_metrics or, offline, from the default computation in metrics.ts.
import { resolve } from "node:path";
import type { ServerClient } from "../client/index.ts";
import { AggregateMetricsResponseSchema } from "../protocol/index.ts";
import { expandGlobs } from "./glob.ts";
import { agentNameOf, InputError, readJsonl, type Row } from "./jsonl.ts";
import { writeAggregateMetrics, writeRolloutLines } from "./output-files.ts";
import { computeAggregateMetrics, stripForAggregation, type AggregateMetrics, type VerifyRecord } from "../metrics/index.ts";

export interface ShardLine {
  path: string;
  lineNumber: number;
  /** The line as read: the merged file repeats it byte for byte. */
  text: string;
  row: Row;
  taskIndex: number;
  rolloutIndex: number;
}

/** Every line of every shard, in shard order; a line without integer indices is an error naming it. */
export function loadShards(paths: string[]): ShardLine[] {
  const lines: ShardLine[] = [];
  for (const path of paths) {
    for (const { lineNumber, text, row } of readJsonl(path)) {
      const taskIndex = row._ng_task_index;
      const rolloutIndex = row._ng_rollout_index;
      if (!Number.isInteger(taskIndex) || !Number.isInteger(rolloutIndex)) {
        throw new InputError(`${path}:${lineNumber}: a rollout line needs integer _ng_task_index and _ng_rollout_index to be merged (got ${JSON.stringify(taskIndex)}, ${JSON.stringify(rolloutIndex)})`);
      }
      lines.push({ path, lineNumber, text, row, taskIndex: taskIndex as number, rolloutIndex: rolloutIndex as number });
    }
  }
  return lines;
}

export interface MergedShards {
  /** One line per (task, rollout) key, sorted by task then rollout. */
  lines: ShardLine[];
  /** Lines dropped because an earlier line had their key. */
  duplicates: ShardLine[];
}

export function mergeShards(lines: ShardLine[]): MergedShards {
  const firstByKey = new Map<string, ShardLine>();
  const duplicates: ShardLine[] = [];
  for (const line of lines) {
    const key = `${line.taskIndex}:${line.rolloutIndex}`;
    if (firstByKey.has(key)) duplicates.push(line);
    else firstByKey.set(key, line);
  }
  const merged = [...firstByKey.values()].sort((a, b) => a.taskIndex - b.taskIndex || a.rolloutIndex - b.rolloutIndex);
  return { lines: merged, duplicates };
}

/** Where one agent's metrics come from: its server's /aggregate_metrics, or the default local computation. */
export type MetricsSource = (agentName: string, verifyResponses: VerifyRecord[]) => Promise<AggregateMetrics>;

/** NeMo Gym's default /aggregate_metrics, computed here: no environment hooks (compute_metrics, key metrics). */
export const offlineMetrics: MetricsSource = (_agentName, verifyResponses) => computeAggregateMetrics(verifyResponses);

/** A server answered /aggregate_metrics with an error (e.g. duplicate rollout keys): the command cannot go on. */
export class AggregateMetricsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AggregateMetricsError";
  }
}

/** POST /aggregate_metrics to the server `serverFor(agentName)` names (the agent itself, or its resources server). */
export function serverMetrics(client: ServerClient, serverFor: (agentName: string) => string, deadlineMs?: number): MetricsSource {
  return async (agentName, verifyResponses) => {
    const server = serverFor(agentName);
    const answer = await client.post(server, "/aggregate_metrics", { json: { verify_responses: verifyResponses }, deadlineMs });
    if (!answer.ok) throw new AggregateMetricsError(`${server}/aggregate_metrics answered ${answer.status}: ${answer.text.slice(0, 1000)}`);
    const parsed = AggregateMetricsResponseSchema.safeParse(answer.json());
    if (!parsed.success) throw new AggregateMetricsError(`${server}/aggregate_metrics answered an unexpected body: ${answer.text.slice(0, 1000)}`);
    return parsed.data;
  };
}

/** One entry of `<stem>_aggregate_metrics.json`, as rollout collection writes it. */
export interface AgentMetricsEntry {
  agent_ref: { name: string };
  agent_metrics: Record<string, unknown>;
  key_metrics: Record<string, unknown>;
  group_level_metrics: unknown[];
}

export interface AgentMetricsResult {
  entries: AgentMetricsEntry[];
  /** Lines without agent_ref.name: not attributable to an agent, so left out (as NeMo Gym does). */
  withoutAgent: number;
}

/** Metrics per agent (agents in order of first appearance), over rollout lines stripped as collection strips them. */
export async function metricsByAgent(rolloutLines: Row[], source: MetricsSource): Promise<AgentMetricsResult> {
  const byAgent = new Map<string, VerifyRecord[]>();
  let withoutAgent = 0;
  for (const line of rolloutLines) {
    const name = agentNameOf(line);
    if (name === undefined) {
      withoutAgent++;
      continue;
    }
    if (!byAgent.has(name)) byAgent.set(name, []);
    byAgent.get(name)!.push(stripForAggregation(line));
  }
  const entries: AgentMetricsEntry[] = [];
  for (const [name, verifyResponses] of byAgent) {
    const metrics = await source(name, verifyResponses);
    entries.push({ agent_ref: { name }, agent_metrics: metrics.agent_metrics, key_metrics: metrics.key_metrics, group_level_metrics: metrics.group_level_metrics });
  }
  return { entries, withoutAgent };
}

/** The shards a glob names, read and merged: what `aggregateShards` works from (read first, before any server starts). */
export interface ShardSet extends MergedShards {
  shards: string[];
  loaded: number;
}

export function readShards(inputGlob: string, cwd?: string): ShardSet {
  const shards = expandGlobs(inputGlob, cwd);
  if (shards.length === 0) throw new InputError(`no file matches input_glob '${inputGlob}'`);
  const loaded = loadShards(shards.map((shard) => (cwd ? resolve(cwd, shard) : shard)));
  return { shards, loaded: loaded.length, ...mergeShards(loaded) };
}

export interface AggregateShardsOptions {
  /** The merged rollouts (when `mergeShards`); `<stem>_aggregate_metrics.json` goes next to it. None: nothing is written. */
  outputPath?: string | null;
  mergeShards?: boolean;
  metrics: MetricsSource;
  print?: (line: string) => void;
}

export interface AggregateSummary {
  shards: string[];
  loaded: number;
  merged: number;
  duplicatesDropped: number;
  withoutAgent: number;
  mergedPath: string | null;
  aggregateMetricsPath: string | null;
  entries: AgentMetricsEntry[];
}

export async function aggregateShards(set: ShardSet, options: AggregateShardsOptions): Promise<AggregateSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  print(`Aggregating ${set.shards.length} shard(s):`);
  for (const shard of set.shards) print(`  - ${shard}`);
  print(`Loaded ${set.loaded} rollout line(s); ${set.lines.length} distinct (task, rollout) keys.`);
  if (set.duplicates.length > 0) {
    const examples = set.duplicates.slice(0, 5).map((d) => `${d.path}:${d.lineNumber} (${d.taskIndex}:${d.rolloutIndex})`);
    print(`Dropped ${set.duplicates.length} duplicate line(s), keeping the first of each key: ${examples.join(", ")}${set.duplicates.length > 5 ? ", …" : ""}`);
  }

  let mergedPath: string | null = null;
  if (options.outputPath && options.mergeShards !== false) {
    writeRolloutLines(options.outputPath, set.lines.map((line) => line.text));
    mergedPath = options.outputPath;
  }

  const { entries, withoutAgent } = await metricsByAgent(set.lines.map((line) => line.row), options.metrics);
  if (withoutAgent > 0) print(`${withoutAgent} line(s) have no agent_ref.name and are left out of the metrics.`);
  const metricsPath = options.outputPath && entries.length > 0 ? writeAggregateMetrics(options.outputPath, entries) : null;
  print(formatKeyMetrics(entries));
  print(`\nFinished rollout aggregation! View results at:\nMerged rollouts: ${mergedPath ?? "<not merged>"}\nAggregate metrics: ${metricsPath ?? "<not written>"}`);
  return {
    shards: set.shards,
    loaded: set.loaded,
    merged: set.lines.length,
    duplicatesDropped: set.duplicates.length,
    withoutAgent,
    mergedPath,
    aggregateMetricsPath: metricsPath,
    entries,
  };
}

/** Both steps: read and merge the shards, then write and aggregate. */
export async function aggregateRollouts(options: AggregateShardsOptions & { inputGlob: string; cwd?: string }): Promise<AggregateSummary> {
  return aggregateShards(readShards(options.inputGlob, options.cwd), options);
}

function formatNumber(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(4)) : JSON.stringify(value);
}

export function formatKeyMetrics(entries: AgentMetricsEntry[]): string {
  const lines: string[] = [];
  for (const { agent_ref, key_metrics } of entries) {
    lines.push(``, `Key metrics for ${agent_ref.name}:`);
    const width = Math.max(...Object.keys(key_metrics).map((k) => k.length), 6);
    for (const [key, value] of Object.entries(key_metrics)) lines.push(`  ${key.padEnd(width)}  ${formatNumber(value)}`);
  }
  return lines.join("\n");
}
