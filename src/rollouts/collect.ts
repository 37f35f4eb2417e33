// Rollout collection: materialize the input rows, POST each to its agent's /run with a concurrency cap,
// append every finished rollout to the output as it completes, then aggregate metrics per agent.
// A rollout that could not be completed goes to the failures file with its failure class — never a reward.
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join, parse } from "node:path";
import { DeadlineExceededError, TransportError, type ServerClient } from "../client/index.ts";
import { toPythonJson } from "../server/json.ts";
import { stripForAggregation } from "./metrics.ts";
import { materializeRows, readJsonl, type MaterializeOptions, type Row } from "./materialize.ts";
import { createProgress } from "./progress.ts";

export interface CollectOptions extends MaterializeOptions {
  client: ServerClient;
  inputPath: string;
  /** Rows already materialized from `inputPath` (so callers can validate the input before starting servers). */
  rows?: Row[];
  outputPath: string;
  /** In-flight /run calls at most; null = all at once (NeMo Gym's default). */
  concurrency?: number | null;
  /** Deadline for one /run call. */
  rolloutDeadlineMs?: number;
  disableAggregation?: boolean;
  /** Where human-readable lines go (stdout by default). */
  print?: (line: string) => void;
  progressStream?: NodeJS.WriteStream;
}

export type FailureClass = "transport" | "timeout" | "agent_error" | "bad_request" | "invalid_result";

export interface CollectSummary {
  materializedPath: string;
  outputPath: string;
  failuresPath: string;
  aggregateMetricsPath: string | null;
  total: number;
  succeeded: number;
  failed: number;
  keyMetrics: Record<string, Record<string, unknown>>;
}

export function sidecarPath(outputPath: string, suffix: string, extension = ".jsonl"): string {
  const { dir, name } = parse(outputPath);
  return join(dir, `${name}${suffix}${extension}`);
}

interface Outcome {
  row: Row;
  result?: Row;
  failure?: { failureClass: FailureClass; message: string; status?: number };
}

async function runOne(client: ServerClient, row: Row, deadlineMs: number | undefined): Promise<Outcome> {
  const agent = (row.agent_ref as { name: string }).name;
  try {
    const answer = await client.post(agent, "/run", { json: row, deadlineMs });
    if (!answer.ok) {
      return { row, failure: { failureClass: answer.status >= 500 ? "agent_error" : "bad_request", status: answer.status, message: answer.text.slice(0, 4000) } };
    }
    const result = answer.json<Row>();
    if (result === null || typeof result !== "object" || typeof result.reward !== "number") {
      return { row, failure: { failureClass: "invalid_result", message: `/run answered without a numeric reward: ${answer.text.slice(0, 1000)}` } };
    }
    return { row, result };
  } catch (error) {
    if (error instanceof DeadlineExceededError) return { row, failure: { failureClass: "timeout", message: error.message } };
    if (error instanceof TransportError) return { row, failure: { failureClass: "transport", message: error.message } };
    return { row, failure: { failureClass: "invalid_result", message: (error as Error).message } };
  }
}

/** NeMo Gym's rollout line: the verify response, then the row's bookkeeping keys. */
function rolloutLine(row: Row, result: Row): Row {
  const line: Row = { ...result, _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, agent_ref: row.agent_ref };
  if (row._ng_attempt_index !== undefined) line._ng_attempt_index = row._ng_attempt_index;
  return line;
}

function failureLine(row: Row, failure: NonNullable<Outcome["failure"]>): Row {
  return {
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    agent_ref: row.agent_ref,
    _ng_attempt_index: row._ng_attempt_index ?? 0,
    _ng_failure_class: failure.failureClass,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    error: failure.message,
  };
}

export function materializeInput(options: Pick<CollectOptions, "inputPath"> & MaterializeOptions): Row[] {
  return materializeRows(readJsonl(options.inputPath, options.limit), options, options.inputPath);
}

export async function collectRollouts(options: CollectOptions): Promise<CollectSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const materializedPath = sidecarPath(options.outputPath, "_materialized_inputs");
  const failuresPath = sidecarPath(options.outputPath, "_failures");
  const rows = options.rows ?? materializeInput(options);

  mkdirSync(dirname(options.outputPath) || ".", { recursive: true });
  writeFileSync(materializedPath, rows.map((row) => JSON.stringify(row) + "\n").join(""));
  rmSync(options.outputPath, { force: true });
  rmSync(failuresPath, { force: true });

  const outputFd = openSync(options.outputPath, "a");
  let failuresFd: number | undefined;
  const progress = createProgress(rows.length, "Collecting rollouts", options.progressStream);
  const persisted: { row: Row; result: Row }[] = [];
  let failed = 0;

  const concurrency = Math.max(1, Math.min(options.concurrency ?? rows.length, rows.length || 1));
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const outcome = await runOne(options.client, rows[next++]!, options.rolloutDeadlineMs);
      if (outcome.result) {
        const line = rolloutLine(outcome.row, outcome.result);
        // Appended and flushed one line at a time: a crash loses at most the rollouts still in flight.
        writeSync(outputFd, toPythonJson(line) + "\n");
        persisted.push({ row: outcome.row, result: line });
        progress.tick("ok");
      } else {
        failuresFd ??= openSync(failuresPath, "a");
        writeSync(failuresFd, JSON.stringify(failureLine(outcome.row, outcome.failure!)) + "\n");
        failed++;
        progress.tick("failed");
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    progress.done();
    closeSync(outputFd);
    if (failuresFd !== undefined) closeSync(failuresFd);
  }

  let aggregateMetricsPath: string | null = null;
  const keyMetrics: Record<string, Record<string, unknown>> = {};
  if (!options.disableAggregation && persisted.length > 0) {
    aggregateMetricsPath = sidecarPath(options.outputPath, "_aggregate_metrics", ".json");
    const entries = await aggregateByAgent(options.client, persisted);
    for (const entry of entries) keyMetrics[entry.agent_ref.name] = entry.key_metrics;
    writeFileSync(aggregateMetricsPath, JSON.stringify(entries, null, 2) + "\n");
  }

  const summary: CollectSummary = {
    materializedPath,
    outputPath: options.outputPath,
    failuresPath,
    aggregateMetricsPath,
    total: rows.length,
    succeeded: persisted.length,
    failed,
    keyMetrics,
  };
  print(formatSummary(summary));
  return summary;
}

interface AgentMetricsEntry {
  agent_ref: { name: string };
  agent_metrics: Record<string, unknown>;
  key_metrics: Record<string, unknown>;
  group_level_metrics: unknown[];
}

async function aggregateByAgent(client: ServerClient, persisted: { row: Row; result: Row }[]): Promise<AgentMetricsEntry[]> {
  const byAgent = new Map<string, Row[]>();
  const sorted = [...persisted].sort((a, b) => (a.row._ng_task_index as number) - (b.row._ng_task_index as number) || (a.row._ng_rollout_index as number) - (b.row._ng_rollout_index as number));
  for (const { row, result } of sorted) {
    const name = (row.agent_ref as { name: string }).name;
    if (!byAgent.has(name)) byAgent.set(name, []);
    byAgent.get(name)!.push(stripForAggregation(result));
  }
  const entries: AgentMetricsEntry[] = [];
  for (const [name, verifyResponses] of byAgent) {
    const answer = await client.post(name, "/aggregate_metrics", { json: { verify_responses: verifyResponses } });
    if (!answer.ok) throw new Error(`${name}/aggregate_metrics answered ${answer.status}: ${answer.text.slice(0, 1000)}`);
    const metrics = answer.json<Omit<AgentMetricsEntry, "agent_ref">>();
    entries.push({ agent_ref: { name }, agent_metrics: metrics.agent_metrics, key_metrics: metrics.key_metrics, group_level_metrics: metrics.group_level_metrics });
  }
  return entries;
}

function formatNumber(value: unknown): string {
  return typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(4)) : JSON.stringify(value);
}

export function formatSummary(summary: CollectSummary): string {
  const lines = [``, `Collected ${summary.succeeded} of ${summary.total} rollouts (${summary.failed} failed).`];
  for (const [agent, metrics] of Object.entries(summary.keyMetrics)) {
    lines.push(``, `Key metrics for ${agent}:`);
    const width = Math.max(...Object.keys(metrics).map((k) => k.length), 6);
    for (const [key, value] of Object.entries(metrics)) lines.push(`  ${key.padEnd(width)}  ${formatNumber(value)}`);
  }
  lines.push(
    ``,
    `Finished rollout collection! View results at:`,
    `Fully materialized inputs: ${summary.materializedPath}`,
    `Rollouts: ${summary.outputPath}`,
    ...(summary.failed > 0 ? [`Failures: ${summary.failuresPath}`] : []),
    `Aggregate metrics: ${summary.aggregateMetricsPath ?? "(none)"}`,
  );
  return lines.join("\n");
}
