// One queued rollout on a worker, attempt after attempt as a local run does it (collect.ts's attempt, its
// typed failures, its budget and backoff, outages not counted): the failure lines and the rollout line are
// returned as the job's result for the coordinator to write, never written here.
import type { ServerClient } from "../../client/index.ts";
import { attemptRun, backoffMs, failureLine, rolloutLine, sleepUnless } from "../collect.ts";
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
  let ownFailures = data.earlierFailures;
  let retriesHere = 0;
  const row = data.row;
  try {
    for (let attempt = (row._ng_attempt_index as number | undefined) ?? 0; ; attempt++) {
      if (!(await watch.untilUp())) throw new JobGivenBackError(String(stop.signal.reason?.message ?? stop.signal.reason));
      const attemptRow = attempt > 0 ? { ...row, _ng_attempt_index: attempt } : row;
      const outcome = await attemptRun(options.client, attemptRow, settings.rolloutDeadlineMs ?? undefined, stop.signal);
      if ("result" in outcome) return { worker: options.worker, failureLines, outageAttempts, end: { kind: "result", line: rolloutLine(attemptRow, outcome.result) } };
      if ("dropped" in outcome) return { worker: options.worker, failureLines, outageAttempts, end: { kind: "dropped" } };
      if (stop.signal.aborted) throw new JobGivenBackError(String(stop.signal.reason?.message ?? stop.signal.reason));
      if (!outcome.failure.terminal && (await watch.failedDuringOutage())) {
        outageAttempts++;
        failureLines.push(failureLine(attemptRow, outcome.failure, true, watch.down.map((server) => server.name)));
        continue;
      }
      ownFailures++;
      const willRetry = !outcome.failure.terminal && ownFailures < settings.maxAttempts;
      failureLines.push(failureLine(attemptRow, outcome.failure, willRetry));
      if (!willRetry) {
        const { failureClass, message, answeredBy } = outcome.failure;
        return { worker: options.worker, failureLines, outageAttempts, end: { kind: "failed", failureClass, message, ...(answeredBy ? { answeredBy } : {}) } };
      }
      await sleepUnless(backoffMs(settings.retryBackoffMs, retriesHere++), stop.signal);
    }
  } finally {
    options.signal.removeEventListener("abort", onStop);
  }
}
