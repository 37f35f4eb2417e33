// One queued rollout on a worker, attempt after attempt as a local run does it (attempt.ts: the same loop, its
// typed failures, its budget and backoff, outages not counted): the failure lines and the rollout line are
// returned as the job's result for the coordinator to write, never written here.
import type { ServerClient } from "../../client/index.ts";
import { attemptUntilDone } from "../attempt.ts";
import { OutageWatch, type StackHealth } from "../outage.ts";
import type { Row } from "../jsonl.ts";
import type { QueuedRunSettings, RolloutJobData, RolloutJobResult } from "./jobs.ts";

export interface RunJobOptions {
  client: ServerClient;
  settings: QueuedRunSettings;
  health: StackHealth | undefined;
  worker: string;
  warn: (line: string) => void;
  /** Aborted when the worker shuts down: the job is then given back (thrown), not finished. */
  signal: AbortSignal;
}

/** Thrown when the job could not be brought to an end here (the worker stops, or its servers stayed down): BullMQ retries it, on any worker. */
export class JobGivenBackError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "JobGivenBackError";
  }
}

export async function runRolloutJob(data: RolloutJobData, options: RunJobOptions): Promise<RolloutJobResult> {
  const { settings } = options;
  const stop = new AbortController();
  const onStop = () => stop.abort(options.signal.reason);
  options.signal.addEventListener("abort", onStop, { once: true });
  const watch = new OutageWatch({
    health: options.health,
    waitMs: settings.outageWaitMs,
    warn: options.warn,
    stopRun: (reason) => stop.abort(new Error(reason)),
    stopSignal: stop.signal,
  });
  const failureLines: Row[] = [];
  let outageAttempts = 0;
  const done = (end: RolloutJobResult["end"]): RolloutJobResult => ({ worker: options.worker, failureLines, outageAttempts, end });
  try {
    const end = await attemptUntilDone({
      client: options.client,
      row: data.row,
      deadlineMs: settings.rolloutDeadlineMs ?? undefined,
      signal: stop.signal,
      watch,
      maxAttempts: settings.maxAttempts,
      retryBackoffMs: settings.retryBackoffMs,
      earlierFailures: data.earlierFailures,
      failed(line, counted) {
        failureLines.push(line);
        if (!counted) outageAttempts++;
      },
      stopEndsUnrecorded: true,
    });
    if (end.kind === "stopped") throw new JobGivenBackError(String(stop.signal.reason?.message ?? stop.signal.reason));
    if (end.kind === "result") return done({ kind: "result", line: end.line });
    if (end.kind === "dropped") return done({ kind: "dropped" });
    const { failureClass, message, answeredBy } = end.failure;
    return done({ kind: "failed", failureClass, message, ...(answeredBy ? { answeredBy } : {}) });
  } finally {
    options.signal.removeEventListener("abort", onStop);
  }
}
