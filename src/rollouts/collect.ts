// Rollout collection: materialize the input rows, POST each to its agent's /run with a concurrency cap,
// append every finished rollout to the output as it completes, then aggregate metrics per agent.
// A rollout that could not be completed goes to the failures file with its failure class and attempt —
// never with a reward — and is retried a bounded number of times; `--resume` continues a killed run.
import { existsSync } from "node:fs";
import { DeadlineExceededError, TransportError, type HttpResponse, type ServerClient } from "../client/index.ts";
import { INNER_STATUS_HEADER } from "../protocol/errors.ts";
import { FAILURE_CLASS_HEADER, isInfrastructureFailureClass } from "../protocol/failures.ts";
import { formatKeyMetrics, metricsByAgent, serverMetrics, type AgentMetricsEntry } from "./aggregate.ts";
import { rolloutOutputPaths, RolloutOutputFiles } from "./output-files.ts";
import { stripForAggregation } from "../metrics/index.ts";
import { runConcurrently } from "./run-concurrently.ts";
import { materializeRows, readJsonl, type MaterializeOptions, type Row } from "./materialize.ts";
import { createProgress } from "./progress.ts";
import { checkSameConfig, checkSameInputs, loadPreviousRun, rolloutKey, runFingerprint, type PreviousRun } from "./resume.ts";

export interface CollectOptions extends MaterializeOptions {
  client: ServerClient;
  inputPath: string;
  /** Rows already materialized from `inputPath` (so callers can validate the input before starting servers). */
  rows?: Row[];
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
  progressStream?: NodeJS.WriteStream;
}

/** Ours, plus any class an agent reports itself in `_ng_failure_class`. */
export type FailureClass = "transport" | "timeout" | "environment_unavailable" | "invalid_inner_answer" | "agent_error" | "bad_request" | "not_implemented" | "invalid_result" | (string & {});

export interface CollectSummary {
  materializedPath: string;
  outputPath: string;
  failuresPath: string;
  aggregateMetricsPath: string | null;
  total: number;
  succeeded: number;
  /** Rollouts that ended without a result (each attempt is a line of the failures file). */
  failed: number;
  /** Failed attempts that were retried. */
  retried: number;
  /** Rollouts an agent asked not to persist (`_ng_no_persist`). */
  dropped: number;
  resumed: boolean;
  keyMetrics: Record<string, Record<string, unknown>>;
}


export function defaultMaxAttempts(): number {
  const fromEnv = Number(process.env.NEMO_GYM_MAX_ROLLOUT_ATTEMPTS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 3;
}

interface Failure {
  failureClass: FailureClass;
  message: string;
  status?: number;
  /** Retrying cannot help: the request itself is wrong, or the agent said so. */
  terminal: boolean;
  /** Extra fields an agent reported with its own failure. */
  reported?: Row;
}

type Outcome = { result: Row } | { failure: Failure } | { dropped: true };

const isClientError = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * A /run that answered an error. A 4xx is the row's fault and final. An agent's 500 that relays an inner server's
 * 4xx (the environment refused the row) or 501 (it cannot score such a row) is final too: no attempt can change it.
 */
function failureOfStatus(answer: HttpResponse): Failure {
  const message = answer.text.slice(0, 4000);
  if (isClientError(answer.status)) return { failureClass: "bad_request", status: answer.status, message, terminal: true };
  // The agent typed an infrastructure failure (a reset, a deadline, an answer that was not the server's): retried as such.
  const reported = answer.headers[FAILURE_CLASS_HEADER];
  if (answer.status >= 500 && isInfrastructureFailureClass(reported)) return { failureClass: reported, status: answer.status, message, terminal: false };
  const inner = Number(answer.headers[INNER_STATUS_HEADER]);
  if (answer.status === 500 && isClientError(inner)) return { failureClass: "bad_request", status: answer.status, message: `an inner server answered ${inner}: ${message}`, terminal: true };
  if (answer.status === 500 && inner === 501) return { failureClass: "not_implemented", status: answer.status, message: `an inner server answered 501: ${message}`, terminal: true };
  return { failureClass: "agent_error", status: answer.status, message, terminal: false };
}

async function attemptRun(client: ServerClient, row: Row, deadlineMs: number | undefined): Promise<Outcome> {
  const agent = (row.agent_ref as { name: string }).name;
  try {
    // Transport retries happen here, one attempt at a time, so that each is counted and recorded.
    const answer = await client.post(agent, "/run", { json: row, deadlineMs, maxRetries: 0 });
    if (!answer.ok) return { failure: failureOfStatus(answer) };
    let result: unknown;
    try {
      result = answer.json();
    } catch {
      return { failure: { failureClass: "invalid_result", message: `/run answered with a body that is not JSON: ${answer.text.slice(0, 1000)}`, terminal: false } };
    }
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      return { failure: { failureClass: "invalid_result", message: `/run answered something that is not an object: ${answer.text.slice(0, 1000)}`, terminal: false } };
    }
    const verified = result as Row;
    if (verified._ng_no_persist === true) return { dropped: true };
    if (typeof verified._ng_failure_class === "string") {
      const { _ng_failure_class, _ng_failure_terminal, ...reported } = verified;
      return { failure: { failureClass: _ng_failure_class, message: String(reported.error ?? reported.message ?? "reported by the agent"), terminal: _ng_failure_terminal === true, reported } };
    }
    if (typeof verified.reward !== "number" || !Number.isFinite(verified.reward)) {
      return { failure: { failureClass: "invalid_result", message: `/run answered without a numeric reward: ${answer.text.slice(0, 1000)}`, terminal: false } };
    }
    return { result: verified };
  } catch (error) {
    if (error instanceof DeadlineExceededError) return { failure: { failureClass: "timeout", message: error.message, terminal: false } };
    if (error instanceof TransportError) return { failure: { failureClass: "transport", message: error.message, terminal: false } };
    return { failure: { failureClass: "invalid_result", message: (error as Error).message, terminal: false } };
  }
}

/** NeMo Gym's rollout line: the verify response, then the row's bookkeeping keys. */
function rolloutLine(row: Row, result: Row): Row {
  const line: Row = { ...result, _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, agent_ref: row.agent_ref };
  if (row._ng_attempt_index !== undefined) line._ng_attempt_index = row._ng_attempt_index;
  return line;
}

function failureLine(row: Row, failure: Failure, willRetry: boolean): Row {
  return {
    ...failure.reported,
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    agent_ref: row.agent_ref,
    _ng_attempt_index: row._ng_attempt_index ?? 0,
    _ng_failure_class: failure.failureClass,
    ...(failure.terminal ? { _ng_failure_terminal: true } : {}),
    _ng_will_retry: willRetry,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    error: failure.message,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backoffMs = (baseMs: number, retry: number) => Math.min(30_000, baseMs * 2 ** retry) * (0.8 + Math.random() * 0.4);

export function materializeInput(options: Pick<CollectOptions, "inputPath"> & MaterializeOptions): Row[] {
  return materializeRows(readJsonl(options.inputPath, options.limit), options, options.inputPath);
}

/** Refuses a resume whose inputs changed before any server is started for it. */
export function precheckResume(options: Pick<CollectOptions, "outputPath" | "resume">, rows: Row[]): void {
  const materialized = rolloutOutputPaths(options.outputPath).materializedInputs;
  if (options.resume && existsSync(materialized) && existsSync(options.outputPath)) checkSameInputs(materialized, rows);
}

interface Plan {
  todo: Row[];
  previous: PreviousRun | undefined;
}

/** Fresh start, or — with resume and an earlier run's files present — what is left of that run. */
function planRun(options: CollectOptions, rows: Row[], files: RolloutOutputFiles, maxAttempts: number, print: (line: string) => void): Plan {
  const { paths } = files;
  const fingerprint = runFingerprint(options.runConfig ?? {});
  if (options.resume) {
    const missing = [paths.materializedInputs, options.outputPath].filter((path) => !existsSync(path));
    if (missing.length === 0) {
      checkSameInputs(paths.materializedInputs, rows);
      const configCheck = checkSameConfig(paths.fingerprint, fingerprint);
      const previous = loadPreviousRun(options.outputPath, paths.failures);
      const maxedOut = [...previous.attempts].filter(([key, attempts]) => attempts >= maxAttempts && !previous.done.has(key)).length;
      const todo: Row[] = [];
      for (const row of rows) {
        const key = rolloutKey(row);
        const attempts = previous.attempts.get(key) ?? 0;
        if (previous.done.has(key) || previous.terminal.has(key) || attempts >= maxAttempts) continue;
        todo.push(attempts > 0 ? { ...row, _ng_attempt_index: attempts } : row);
      }
      print(
        [
          `Resuming ${options.outputPath}:`,
          `- ${rows.length} materialized rollouts`,
          `- ${previous.done.size} already done`,
          `- ${[...previous.attempts.values()].reduce((a, b) => a + b, 0)} earlier failed attempts (${previous.attempts.size} rollouts)`,
          `- ${[...previous.terminal].filter((key) => !previous.done.has(key)).length} failed for good (bad request or agent-terminal), ${maxedOut} out of attempts (max ${maxAttempts}): not retried`,
          `- ${todo.length} to run`,
          ...(previous.tornTailBytes > 0 ? [`- cut ${previous.tornTailBytes} bytes of a line torn by the interruption`] : []),
          ...(configCheck === "no fingerprint" ? [`- no config fingerprint from the first run: only the inputs were checked`] : []),
        ].join("\n"),
      );
      return { todo, previous };
    }
    print(`Not resuming: ${missing.join(" and ")} ${missing.length === 1 ? "does" : "do"} not exist; starting a fresh run.`);
  }
  files.startFresh(rows, fingerprint);
  return { todo: rows, previous: undefined };
}

export async function collectRollouts(options: CollectOptions): Promise<CollectSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const files = new RolloutOutputFiles(options.outputPath);
  const rows = options.rows ?? materializeInput(options);
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts();
  const retryBackoffMs = options.retryBackoffMs ?? 1000;

  const { todo, previous } = planRun(options, rows, files, maxAttempts, print);

  const output = files.openAppenders();
  const progress = createProgress(todo.length, "Collecting rollouts", options.progressStream);
  // Only what aggregation reads is kept: a 100k-rollout run must not hold every response in memory.
  const persisted: Row[] = (previous?.persisted ?? []).map(stripForAggregation);
  let retried = 0;
  let dropped = 0;
  const failedKeys = new Set<string>();

  /** One rollout, attempt after attempt, until it has a result, fails for good, or is out of attempts. */
  const runRollout = async (row: Row) => {
    for (let attempt = (row._ng_attempt_index as number | undefined) ?? 0; ; attempt++) {
      const attemptRow = attempt > 0 ? { ...row, _ng_attempt_index: attempt } : row;
      const outcome = await attemptRun(options.client, attemptRow, options.rolloutDeadlineMs);
      if ("result" in outcome) {
        const line = rolloutLine(attemptRow, outcome.result);
        // Appended and flushed one line at a time: a crash loses at most the rollouts still in flight.
        output.appendRollout(line);
        persisted.push(stripForAggregation(line));
        return progress.tick("ok");
      }
      if ("dropped" in outcome) {
        dropped++;
        return progress.tick("ok");
      }
      const willRetry = !outcome.failure.terminal && attempt + 1 < maxAttempts;
      output.appendFailure(failureLine(attemptRow, outcome.failure, willRetry));
      if (!willRetry) {
        failedKeys.add(rolloutKey(row));
        return progress.tick("failed");
      }
      retried++;
      await sleep(backoffMs(retryBackoffMs, attempt - ((row._ng_attempt_index as number | undefined) ?? 0)));
    }
  };

  try {
    await runConcurrently(todo, options.concurrency, runRollout);
  } finally {
    progress.done();
    output.close();
  }

  // Earlier failures that were not retried this time (out of attempts, terminal) still count as failed.
  const doneKeys = new Set(persisted.map(rolloutKey));
  for (const key of previous?.attempts.keys() ?? []) if (!doneKeys.has(key)) failedKeys.add(key);

  let aggregateMetricsPath: string | null = null;
  let metrics: AgentMetricsEntry[] = [];
  if (!options.disableAggregation && persisted.length > 0) {
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
    total: rows.length,
    succeeded: persisted.length,
    failed: failedKeys.size,
    retried,
    dropped,
    resumed: previous !== undefined,
    keyMetrics: Object.fromEntries(metrics.map((entry) => [entry.agent_ref.name, entry.key_metrics])),
  };
  print(formatSummary(summary, metrics));
  return summary;
}

export function formatSummary(summary: CollectSummary, metrics: AgentMetricsEntry[] = []): string {
  const extras = [
    summary.retried > 0 ? `${summary.retried} failed attempts retried` : "",
    summary.dropped > 0 ? `${summary.dropped} not persisted at the agent's request` : "",
  ].filter(Boolean);
  const lines = [``, `Collected ${summary.succeeded} of ${summary.total} rollouts (${summary.failed} failed${extras.length ? `; ${extras.join("; ")}` : ""}).`];
  if (metrics.length > 0) lines.push(formatKeyMetrics(metrics));
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
