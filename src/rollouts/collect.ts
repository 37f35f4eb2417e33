// Rollout collection: materialize the input rows, POST each to its agent's /run with a concurrency cap,
// append every finished rollout to the output as it completes, then aggregate metrics per agent.
// A rollout that could not be completed goes to the failures file with its failure class and attempt —
// never with a reward — and is retried a bounded number of times; `--resume` continues a killed run.
import { existsSync } from "node:fs";
import type { ServerClient } from "../client/index.ts";
import { attemptRun, attemptUntilDone, outcomeName, type Failure, type FailureClass } from "./attempt.ts";
import { failureChain, formatFailureChain, type FailureLink } from "../protocol/failure-chain.ts";
import { UserError } from "../config/errors.ts";
import { formatKeyMetrics, metricsByAgent, serverMetrics, type AgentMetricsEntry } from "./aggregate.ts";
import { rolloutOutputPaths, RolloutOutputFiles } from "./output-files.ts";
import { stripForAggregation } from "../metrics/index.ts";
import { runConcurrently } from "./run-concurrently.ts";
import { materializeLazily, readJsonl, rowSourceOf, type MaterializedRows, type MaterializeOptions, type Row, type RowSource } from "./materialize.ts";
import { createProgress } from "./progress.ts";
import { checkSameConfig, checkSameInputs, loadPreviousRun, rolloutKey, runFingerprint, type PreviousRun } from "./resume.ts";
import { livenessProbe, OutageWatch, serversUsedBy, type StackHealth } from "./outage.ts";
import { CollectorMetrics } from "./collector-metrics.ts";
import { flushTracing, inRootSpan, startTracingFromConfig } from "../metrics/tracing.ts";

export interface CollectOptions extends MaterializeOptions {
  client: ServerClient;
  inputPath: string;
  /** Rows already materialized from `inputPath` (so callers can validate the input before starting servers). */
  rows?: readonly Row[] | RowSource;
  outputPath: string;
  /** In-flight /run calls at most; null = all at once (NeMo Gym's default). */
  concurrency?: number | null;
  /** Deadline for one /run attempt. */
  rolloutDeadlineMs?: number;
  disableAggregation?: boolean;
  /** Continue an interrupted run: keep its rollouts, retry its failures, refuse if inputs or config changed. */
  resume?: boolean;
  /** Attempts per rollout over this run and all its resumes (NeMo Gym: NEMO_GYM_MAX_ROLLOUT_ATTEMPTS, default 3). */
  maxAttempts?: number;
  /** First wait before a retry; doubled per attempt (with jitter), at most 30 s. */
  retryBackoffMs?: number;
  /** The global config the servers run with: a resumed run must use the same one. */
  runConfig?: Record<string, unknown>;
  /** Where human-readable lines go (stdout by default). */
  print?: (line: string) => void;
  /** Where outage notices go (stderr by default). */
  warn?: (line: string) => void;
  /**
   * Liveness of the servers the run uses, probed after a failed attempt: while one is down, dispatch pauses and
   * failed attempts are not counted against their rollout. Default: `GET /` of the rows' agents and every server
   * they reference; null: never probe (every failure counts).
   */
  health?: StackHealth | null;
  /** How long a paused run waits for the servers to come back before it stops (default 120 s). */
  outageWaitMs?: number;
  /** Aborted when a server is known dead for good (the launcher saw it exit): the run stops at once, files consistent. */
  stopSignal?: AbortSignal;
  progressStream?: NodeJS.WriteStream;
}

export type { FailureClass } from "./attempt.ts";

export interface CollectSummary {
  materializedPath: string;
  outputPath: string;
  failuresPath: string;
  aggregateMetricsPath: string | null;
  /** `<out>_metrics.prom`: the run's Prometheus figures (attempts and rollouts by outcome, /run latency). */
  metricsPath: string;
  total: number;
  succeeded: number;
  /** Rollouts that ended without a result (each attempt is a line of the failures file). */
  failed: number;
  /** Failed attempts that were retried. */
  retried: number;
  /** Rollouts an agent asked not to persist (`_ng_no_persist`). */
  dropped: number;
  /** Failed attempts lost to an outage of the stack (not counted against any rollout). */
  outageAttempts: number;
  /** Rollouts neither done nor failed for good when the run stopped: what a `--resume` runs. */
  unfinished: number;
  /** Why the run stopped before every rollout was done (a server died, or an outage outlasted the wait). */
  stopped: string | null;
  resumed: boolean;
  keyMetrics: Record<string, Record<string, unknown>>;
  /** The rollouts of this run that failed for good, by the class of their last failure, each class with one message. */
  failureClasses: FailureClassCount[];
}

export interface FailureClassCount {
  failureClass: FailureClass;
  rollouts: number;
  /** One of the class's messages, unwrapped: the innermost cause first, then each server it passed through. */
  example: FailureLink[];
}


export function defaultMaxAttempts(): number {
  const fromEnv = Number(process.env.NEMO_GYM_MAX_ROLLOUT_ATTEMPTS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 3;
}

/** The run's /run requests, built one at a time as they are sent (see MaterializedRows). */
export function materializeInput(options: Pick<CollectOptions, "inputPath"> & MaterializeOptions): MaterializedRows {
  return materializeLazily(readJsonl(options.inputPath, options.limit), options, options.inputPath);
}

/** Refuses a resume whose inputs changed before any server is started for it. */
export function precheckResume(options: Pick<CollectOptions, "outputPath" | "resume">, rows: readonly Row[] | RowSource): void {
  const materialized = rolloutOutputPaths(options.outputPath).materializedInputs;
  if (options.resume && existsSync(materialized) && existsSync(options.outputPath)) checkSameInputs(materialized, rowSourceOf(rows));
}

export interface Plan {
  /** Indices into the rows, in order. */
  todo: number[];
  /** The attempt a resumed rollout continues at (absent: 0). */
  firstAttempt: Map<number, number>;
  previous: PreviousRun | undefined;
}

/** Fresh start, or — with resume and an earlier run's files present — what is left of that run. */
export function planRun(options: CollectOptions, rows: RowSource, files: RolloutOutputFiles, maxAttempts: number, print: (line: string) => void): Plan {
  const { paths } = files;
  const fingerprint = runFingerprint(options.runConfig ?? {});
  if (options.resume) {
    const missing = [paths.materializedInputs, options.outputPath].filter((path) => !existsSync(path));
    if (missing.length === 0) {
      checkSameInputs(paths.materializedInputs, rows);
      const configCheck = checkSameConfig(paths.fingerprint, fingerprint);
      const previous = loadPreviousRun(options.outputPath, paths.failures);
      const maxedOut = [...previous.attempts].filter(([key, attempts]) => attempts >= maxAttempts && !previous.done.has(key)).length;
      const todo: number[] = [];
      const firstAttempt = new Map<number, number>();
      for (let index = 0; index < rows.length; index++) {
        const key = rows.keyAt(index);
        const attempts = previous.attempts.get(key) ?? 0;
        if (previous.done.has(key) || previous.terminal.has(key) || attempts >= maxAttempts) continue;
        const next = previous.nextAttemptIndex.get(key) ?? 0;
        if (next > 0) firstAttempt.set(index, next);
        todo.push(index);
      }
      print(
        [
          `Resuming ${options.outputPath}:`,
          `- ${rows.length} materialized rollouts`,
          `- ${previous.done.size} already done`,
          `- ${[...previous.attempts.values()].reduce((a, b) => a + b, 0)} earlier failed attempts (${previous.attempts.size} rollouts)`,
          `- ${[...previous.terminal].filter((key) => !previous.done.has(key)).length} failed for good (bad request or agent-terminal), ${maxedOut} out of attempts (max ${maxAttempts}): not retried`,
          `- ${todo.length} to run`,
          ...(previous.outageAttempts > 0 ? [`- ${previous.outageAttempts} earlier attempts lost to an outage of the servers: not counted against their rollouts`] : []),
          ...(previous.judgeFailedAttempts > 0 ? [`- ${previous.judgeFailedAttempts} earlier attempts whose judge call failed: retried with a fresh budget`] : []),
          ...(previous.tornTailBytes > 0 ? [`- cut ${previous.tornTailBytes} bytes of a line torn by the interruption`] : []),
          ...(configCheck === "no fingerprint" ? [`- no config fingerprint from the first run: only the inputs were checked`] : []),
        ].join("\n"),
      );
      return { todo, firstAttempt, previous };
    }
    print(`Not resuming: ${missing.join(" and ")} ${missing.length === 1 ? "does" : "do"} not exist; starting a fresh run.`);
  }
  files.startFresh(rows, fingerprint);
  return { todo: Array.from({ length: rows.length }, (_, index) => index), firstAttempt: new Map(), previous: undefined };
}

export const DEFAULT_OUTAGE_WAIT_MS = 120_000;


export async function collectRollouts(options: CollectOptions): Promise<CollectSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const files = new RolloutOutputFiles(options.outputPath);
  const rows = rowSourceOf(options.rows ?? materializeInput(options));
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts();
  const retryBackoffMs = options.retryBackoffMs ?? 1000;
  const figures = new CollectorMetrics();
  // A trace per rollout attempt when an OTLP endpoint is configured (the collector's span is its root).
  await startTracingFromConfig(options.runConfig ?? options.client.config, "collector");

  const { todo, firstAttempt, previous } = planRun(options, rows, files, maxAttempts, print);

  // Stopping aborts every in-flight attempt; each is then recorded as lost to the outage, to be retried by --resume.
  const stop = new AbortController();
  let stopped: string | null = null;
  const stopRun = (reason: string) => {
    if (stop.signal.aborted) return;
    stopped = reason;
    stop.abort(new Error(reason));
  };
  const onExternalStop = () => stopRun(String(options.stopSignal!.reason?.message ?? options.stopSignal!.reason ?? "stopped"));
  if (options.stopSignal?.aborted) onExternalStop();
  options.stopSignal?.addEventListener("abort", onExternalStop, { once: true });
  const ownHealth = options.health === undefined ? livenessProbe(options.client, serversUsedBy(options.client.config, new Set(todo.map((index) => rows.agentAt(index))))) : undefined;
  const watch = new OutageWatch({ health: options.health ?? ownHealth, waitMs: options.outageWaitMs ?? DEFAULT_OUTAGE_WAIT_MS, warn, stopRun, stopSignal: stop.signal });

  const output = files.openAppenders();
  const progress = createProgress(todo.length, "Collecting rollouts", options.progressStream);
  // Only what aggregation reads is kept: a 100k-rollout run must not hold every response in memory.
  const persisted: Row[] = (previous?.persisted ?? []).map(stripForAggregation);
  let retried = 0;
  let dropped = 0;
  let outageAttempts = 0;
  const failedKeys = new Set<string>();
  const failureClasses = new Map<FailureClass, { rollouts: number; example: Failure }>();
  const finishedKeys = new Set<string>();

  /**
   * One rollout, attempt after attempt, until it has a result, fails for good, is out of attempts, or the run stops.
   * The budget counts the rollout's own failures; an attempt that failed while a server was down is recorded but not
   * counted, and the next one waits until the servers answer again.
   */
  const runRollout = async (index: number) => {
    // Built when it is sent, dropped when it is done: the collector holds only the rows in flight.
    const resumedAt = firstAttempt.get(index);
    const row = resumedAt === undefined ? rows.at(index) : { ...rows.at(index), _ng_attempt_index: resumedAt };
    const key = rolloutKey(row);
    const agent = (row.agent_ref as { name: string }).name;
    const end = await attemptUntilDone({
      client: options.client,
      row,
      deadlineMs: options.rolloutDeadlineMs,
      signal: stop.signal,
      watch,
      maxAttempts,
      retryBackoffMs,
      earlierFailures: previous?.attempts.get(key) ?? 0,
      failed(line, counted) {
        // Appended and flushed one line at a time, as rollouts are.
        output.appendFailure(line);
        if (!counted) outageAttempts++;
        else if (line._ng_will_retry === true) retried++;
      },
      async attempt(attemptRow, attempt) {
        const started = performance.now();
        const outcome = await inRootSpan(
          "rollout",
          { "gym.agent": agent, "gym.task_index": String(row._ng_task_index), "gym.rollout_index": String(row._ng_rollout_index), "gym.attempt": attempt },
          () => attemptRun(options.client, attemptRow, options.rolloutDeadlineMs, stop.signal),
          outcomeName,
        );
        figures.attempt(agent, outcomeName(outcome), "failure" in outcome ? outcome.failure.failureClass : "", (performance.now() - started) / 1000);
        return outcome;
      },
    });
    if (end.kind === "stopped") return;
    finishedKeys.add(key);
    if (end.kind === "result") {
      figures.finished(agent, "succeeded");
      // Appended and flushed one line at a time: a crash loses at most the rollouts still in flight.
      output.appendRollout(end.line);
      persisted.push(stripForAggregation(end.line));
      return progress.tick("ok");
    }
    if (end.kind === "dropped") {
      figures.finished(agent, "dropped");
      dropped++;
      return progress.tick("ok");
    }
    figures.finished(agent, "failed", end.failure.failureClass);
    const seen = failureClasses.get(end.failure.failureClass);
    if (seen) seen.rollouts++;
    else failureClasses.set(end.failure.failureClass, { rollouts: 1, example: end.failure });
    failedKeys.add(key);
    return progress.tick("failed");
  };

  // A configuration mistake fails every rollout alike: the first one stops the run, and is the run's error.
  let configError: UserError | undefined;
  const runOrStop = async (index: number) => {
    try {
      await runRollout(index);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      configError ??= error;
      stopRun(error.message);
    }
  };
  try {
    await runConcurrently(todo, options.concurrency, runOrStop);
  } finally {
    options.stopSignal?.removeEventListener("abort", onExternalStop);
    progress.done();
    output.close();
    await ownHealth?.close();
  }
  if (configError) throw configError;
  // Each rollout of the plan finishes at most once, under its own key.
  const unfinished = todo.length - finishedKeys.size;

  return finishRun(options, { files, rows, todo, previous }, { persisted, failedKeys, failureClasses, retried, dropped, outageAttempts, unfinished, stopped, figures }, print);
}

/** What a run counted while it ran (locally, or as a queue's coordinator). */
export interface RunTally {
  /** Lines stripped for aggregation: this run's and a resumed run's earlier ones. */
  persisted: Row[];
  failedKeys: Set<string>;
  failureClasses: Map<FailureClass, { rollouts: number; example: { message: string; answeredBy?: string } }>;
  retried: number;
  dropped: number;
  outageAttempts: number;
  unfinished: number;
  stopped: string | null;
  figures: CollectorMetrics;
}

/**
 * The end of a run: earlier failures that were not retried count as failed, the metrics are aggregated through the
 * agents (unless the run stopped), the sidecars written, and the summary printed and returned.
 */
export async function finishRun(
  options: CollectOptions,
  run: { files: RolloutOutputFiles; rows: RowSource; todo: readonly number[]; previous: PreviousRun | undefined },
  tally: RunTally,
  print: (line: string) => void,
): Promise<CollectSummary> {
  const { files, rows, todo, previous } = run;
  const { persisted, failedKeys, failureClasses } = tally;
  // Earlier failures that were not retried this time (out of attempts, terminal) still count as failed.
  const doneKeys = new Set(persisted.map(rolloutKey));
  const todoKeys = new Set(todo.map((index) => rows.keyAt(index)));
  for (const key of previous?.attempts.keys() ?? []) if (!doneKeys.has(key) && !todoKeys.has(key)) failedKeys.add(key);

  let aggregateMetricsPath: string | null = null;
  let metrics: AgentMetricsEntry[] = [];
  // A stopped run is not aggregated: its servers are gone or going, and the --resume that completes it aggregates.
  if (!options.disableAggregation && persisted.length > 0 && tally.stopped === null) {
    // NeMo Gym posts each agent's rollouts in (task, rollout) order; the agent proxies to its environment.
    const lines = persisted.sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number) || (a._ng_rollout_index as number) - (b._ng_rollout_index as number));
    metrics = (await metricsByAgent(lines, serverMetrics(options.client, (agent) => agent))).entries;
    aggregateMetricsPath = files.writeAggregateMetrics(metrics);
  }

  const summary: CollectSummary = {
    materializedPath: files.paths.materializedInputs,
    outputPath: options.outputPath,
    failuresPath: files.paths.failures,
    aggregateMetricsPath,
    metricsPath: await tally.figures.write(options.outputPath),
    total: rows.length,
    succeeded: persisted.length,
    failed: failedKeys.size,
    retried: tally.retried,
    dropped: tally.dropped,
    outageAttempts: tally.outageAttempts,
    unfinished: tally.unfinished,
    stopped: tally.stopped,
    resumed: previous !== undefined,
    keyMetrics: Object.fromEntries(metrics.map((entry) => [entry.agent_ref.name, entry.key_metrics])),
    failureClasses: [...failureClasses]
      .sort(([, a], [, b]) => b.rollouts - a.rollouts)
      .map(([failureClass, { rollouts, example }]) => ({ failureClass, rollouts, example: failureChain(example.message, example.answeredBy) })),
  };
  print(formatSummary(summary, metrics));
  await flushTracing();
  return summary;
}

export function formatSummary(summary: CollectSummary, metrics: AgentMetricsEntry[] = []): string {
  const extras = [
    summary.retried > 0 ? `${summary.retried} failed attempts retried` : "",
    summary.dropped > 0 ? `${summary.dropped} not persisted at the agent's request` : "",
    summary.outageAttempts > 0 ? `${summary.outageAttempts} attempts lost to an outage, not counted` : "",
  ].filter(Boolean);
  const lines = [``, `Collected ${summary.succeeded} of ${summary.total} rollouts (${summary.failed} failed${extras.length ? `; ${extras.join("; ")}` : ""}).`];
  if (summary.stopped !== null) {
    lines.push(`Stopped early: ${summary.stopped}. ${summary.unfinished} rollouts are unfinished (not in the failures file, or there with _ng_will_retry true); run the same command with --resume to finish them.`);
  }
  if (metrics.length > 0) lines.push(formatKeyMetrics(metrics));
  if (summary.failureClasses.length > 0) lines.push(``, ...formatFailureTable(summary.failureClasses));
  lines.push(
    ``,
    summary.stopped === null ? `Finished rollout collection! View results at:` : `Stopped rollout collection early. What it wrote:`,
    `Fully materialized inputs: ${summary.materializedPath}`,
    `Rollouts: ${summary.outputPath}`,
    ...(summary.failed > 0 || summary.outageAttempts > 0 ? [`Failures: ${summary.failuresPath}`] : []),
    `Aggregate metrics: ${summary.aggregateMetricsPath ?? "(none)"}`,
    `Prometheus figures: ${summary.metricsPath}`,
  );
  return lines.join("\n");
}

/** Failure class, count, one message of the class unwrapped (innermost cause first, then each server it passed through). */
export function formatFailureTable(classes: readonly FailureClassCount[]): string[] {
  const classWidth = Math.max("class".length, ...classes.map((entry) => entry.failureClass.length));
  const countWidth = "rollouts".length;
  const indent = " ".repeat(2 + classWidth + 2 + countWidth + 2);
  const lines = [`Failed rollouts by class:`, `  ${"class".padEnd(classWidth)}  ${"rollouts"}  one message (innermost cause first, then each server it passed through)`];
  for (const entry of classes) {
    const [first, ...rest] = formatFailureChain(entry.example);
    lines.push(`  ${entry.failureClass.padEnd(classWidth)}  ${String(entry.rollouts).padStart(countWidth)}  ${first ?? ""}`, ...rest.map((line) => `${indent}${line}`));
  }
  return lines;
}
