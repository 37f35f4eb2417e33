// One rollout's attempts, as a local run (collect.ts) and a queue worker (queue/run-job.ts) make them: a /run per
// attempt, its answer read as a result, a drop, or a typed failure (a fault is never scored); failed attempts retried
// with backoff up to the rollout's budget, a failure while a server is down recorded but not counted, and the next
// attempt waiting until the servers answer again.
import { DeadlineExceededError, TransportError, type HttpResponse, type ServerClient } from "../client/index.ts";
import { INNER_STATUS_HEADER } from "../protocol/errors.ts";
import { FAILURE_CLASS_HEADER, isInfrastructureFailureClass } from "../protocol/failures.ts";
import { UserError } from "../config/errors.ts";
import type { Row } from "./materialize.ts";
import type { OutageWatch } from "./outage.ts";

/** Ours, plus any class an agent reports itself in `_ng_failure_class`. */
export type FailureClass = "transport" | "timeout" | "environment_unavailable" | "invalid_inner_answer" | "agent_error" | "bad_request" | "not_implemented" | "invalid_result" | (string & {});

export interface Failure {
  failureClass: FailureClass;
  message: string;
  status?: number;
  /** Retrying cannot help: the request itself is wrong, or the agent said so. */
  terminal: boolean;
  /** Extra fields an agent reported with its own failure. */
  reported?: Row;
  /** The server whose answer `message` is (the agent, for an error status), for display. */
  answeredBy?: string;
}

export type Outcome = { result: Row } | { failure: Failure } | { dropped: true };

export const outcomeName = (outcome: Outcome) => ("result" in outcome ? "succeeded" : "dropped" in outcome ? "dropped" : "failed");

const isClientError = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * A /run that answered an error. A 4xx is the row's fault and final. An agent's 500 that relays an inner server's
 * 4xx (the environment refused the row) or 501 (it cannot score such a row) is final too: no attempt can change it.
 */
function failureOfStatus(answer: HttpResponse, agent: string): Failure {
  return { ...statusFailure(answer), answeredBy: agent };
}

function statusFailure(answer: HttpResponse): Failure {
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

export async function attemptRun(client: ServerClient, row: Row, deadlineMs: number | undefined, signal: AbortSignal): Promise<Outcome> {
  const agent = (row.agent_ref as { name: string }).name;
  try {
    // Transport retries happen here, one attempt at a time, so that each is counted and recorded.
    const answer = await client.post(agent, "/run", { json: row, deadlineMs, maxRetries: 0, signal });
    if (!answer.ok) return { failure: failureOfStatus(answer, agent) };
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
      return { failure: { failureClass: _ng_failure_class, message: String(reported.error ?? reported._ng_failure_judge_error ?? reported.message ?? "reported by the agent"), terminal: _ng_failure_terminal === true, reported } };
    }
    if (typeof verified.reward !== "number" || !Number.isFinite(verified.reward)) {
      return { failure: { failureClass: "invalid_result", message: `/run answered without a numeric reward: ${answer.text.slice(0, 1000)}`, terminal: false } };
    }
    return { result: verified };
  } catch (error) {
    if (signal.aborted) return { failure: { failureClass: "interrupted", message: `the run stopped: ${String(signal.reason?.message ?? signal.reason)}`, terminal: false } };
    if (error instanceof DeadlineExceededError) return { failure: { failureClass: "timeout", message: error.message, terminal: false } };
    if (error instanceof TransportError) return { failure: { failureClass: "transport", message: error.message, terminal: false } };
    // A configuration mistake (an agent the client cannot address) fails every attempt alike: the run stops at once.
    if (error instanceof UserError) throw error;
    return { failure: { failureClass: "invalid_result", message: (error as Error).message, terminal: false } };
  }
}

/** NeMo Gym's rollout line: the verify response, then the row's bookkeeping keys. */
export function rolloutLine(row: Row, result: Row): Row {
  const line: Row = { ...result, _ng_task_index: row._ng_task_index, _ng_rollout_index: row._ng_rollout_index, agent_ref: row.agent_ref };
  if (row._ng_attempt_index !== undefined) line._ng_attempt_index = row._ng_attempt_index;
  return line;
}

/** `outage`: the servers known down when the attempt failed (such an attempt is not counted). */
export function failureLine(row: Row, failure: Failure, willRetry: boolean, outage?: string[]): Row {
  return {
    ...failure.reported,
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    agent_ref: row.agent_ref,
    _ng_attempt_index: row._ng_attempt_index ?? 0,
    _ng_failure_class: failure.failureClass,
    ...(failure.terminal ? { _ng_failure_terminal: true } : {}),
    _ng_will_retry: willRetry,
    ...(outage ? { _ng_outage: true, ...(outage.length > 0 ? { _ng_down_servers: outage } : {}) } : {}),
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    error: failure.message,
  };
}

export const backoffMs = (baseMs: number, retry: number) => Math.min(30_000, baseMs * 2 ** retry) * (0.8 + Math.random() * 0.4);
/** Sleeps `ms`, or less if `signal` aborts. */
export const sleepUnless = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export interface AttemptLoopOptions {
  client: ServerClient;
  /** The rollout's row (carrying `_ng_attempt_index` when a resumed run or a retried job starts past attempt 0). */
  row: Row;
  deadlineMs: number | undefined;
  /** The run's stop signal. */
  signal: AbortSignal;
  watch: OutageWatch;
  maxAttempts: number;
  retryBackoffMs: number;
  /** This rollout's failures counted before (an earlier run's, or the job's on other workers). */
  earlierFailures: number;
  /** Each failed attempt's line; `counted` is false for one that failed while a server was down. */
  failed(line: Row, counted: boolean): void;
  /** Makes one attempt (default attemptRun): the collector wraps it in its span and its figures. */
  attempt?(attemptRow: Row, attempt: number): Promise<Outcome>;
  /** A queue worker's: an attempt the stop cut short ends the rollout unrecorded (the job is given back). */
  stopEndsUnrecorded?: boolean;
}

export type AttemptLoopEnd =
  | { kind: "result"; line: Row }
  | { kind: "dropped" }
  | { kind: "failed"; failure: Failure }
  /** The run stopped (or its servers stayed down) before the rollout was done. */
  | { kind: "stopped" };

/** One rollout, attempt after attempt, until it has a result, fails for good, is out of attempts, or the run stops. */
export async function attemptUntilDone(options: AttemptLoopOptions): Promise<AttemptLoopEnd> {
  const { row, watch, signal } = options;
  const attemptOnce = options.attempt ?? ((attemptRow: Row) => attemptRun(options.client, attemptRow, options.deadlineMs, signal));
  let ownFailures = options.earlierFailures;
  let retriesHere = 0;
  for (let attempt = (row._ng_attempt_index as number | undefined) ?? 0; ; attempt++) {
    if (!(await watch.untilUp())) return { kind: "stopped" };
    const attemptRow = attempt > 0 ? { ...row, _ng_attempt_index: attempt } : row;
    const outcome = await attemptOnce(attemptRow, attempt);
    if ("result" in outcome) return { kind: "result", line: rolloutLine(attemptRow, outcome.result) };
    if ("dropped" in outcome) return { kind: "dropped" };
    if (options.stopEndsUnrecorded && signal.aborted) return { kind: "stopped" };
    if (!outcome.failure.terminal && (await watch.failedDuringOutage())) {
      options.failed(failureLine(attemptRow, outcome.failure, true, watch.down.map((server) => server.name)), false);
      continue;
    }
    ownFailures++;
    const willRetry = !outcome.failure.terminal && ownFailures < options.maxAttempts;
    options.failed(failureLine(attemptRow, outcome.failure, willRetry), true);
    if (!willRetry) return { kind: "failed", failure: outcome.failure };
    await sleepUnless(backoffMs(options.retryBackoffMs, retriesHere++), signal);
  }
}
