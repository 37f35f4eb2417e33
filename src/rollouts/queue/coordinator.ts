// `gym eval run --queue redis://…`: the rollouts of a run become BullMQ jobs (one per (task, rollout), its id
// the key, so BullMQ never holds two), workers on any machine run them, and this process writes the same files a
// local run writes. The completed jobs are an outbox: each result is appended to the files, then its job is
// removed. A result whose rollout is already in the files (a coordinator killed between the two steps, then
// resumed) is dropped — so every (task, rollout) is written exactly once.
import { CollectorMetrics } from "../collector-metrics.ts";
import { Queue, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { stripForAggregation } from "../../metrics/index.ts";
import { DEFAULT_OUTAGE_WAIT_MS, defaultMaxAttempts, finishRun, materializeInput, planRun, type CollectOptions, type CollectSummary, type FailureClass } from "../collect.ts";
import type { Row } from "../jsonl.ts";
import { rowSourceOf } from "../materialize.ts";
import { RolloutOutputFiles } from "../output-files.ts";
import { createProgress } from "../progress.ts";
import { rolloutKey, runFingerprint } from "../resume.ts";
import { bullmqConnection, connectRedis, type QueueAddress } from "./connection.ts";
import { jobIdOf, queueNameOf, registryKey, rolloutKeyOfJob, settingsKey, type QueuedRunSettings, type RolloutJobData, type RolloutJobResult } from "./jobs.ts";

export interface QueueCollectOptions extends CollectOptions {
  queue: QueueAddress;
  /** How often the outbox of completed jobs is read. */
  pollMs?: number;
  /** How often a line of queue counts (waiting / active / done per worker) is printed. */
  statusEveryMs?: number;
}

/** BullMQ's retries of a job whose worker gave it back (stopped, or its servers stayed down): not rollout failures. */
const JOB_ATTEMPTS = 10;

type RolloutJob = Job<RolloutJobData, RolloutJobResult, "rollout">;
const ENQUEUE_CHUNK = 500;
const OUTBOX_CHUNK = 500;

export async function collectOverQueue(options: QueueCollectOptions): Promise<CollectSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { queue: address } = options;
  const files = new RolloutOutputFiles(options.outputPath);
  const rows = rowSourceOf(options.rows ?? materializeInput(options));
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts();
  const fingerprint = runFingerprint(options.runConfig ?? {});
  const redis: Redis = await connectRedis(address, (error) => warn(`gym eval run: Redis at ${address.display}: ${error.message}; reconnecting`));
  const { todo, firstAttempt, previous } = planRun(options, rows, files, maxAttempts, print);
  const queueName = queueNameOf(options.outputPath, fingerprint);
  const queue = new Queue<RolloutJobData, RolloutJobResult, "rollout">(queueName, { connection: bullmqConnection(address), prefix: address.prefix });
  const seenErrors = new Set<string>();
  queue.on("error", (error) => {
    if (seenErrors.has(error.message)) return;
    seenErrors.add(error.message);
    warn(`gym eval run: queue ${queueName}: ${error.message}`);
  });

  const output = files.openAppenders();
  const progress = createProgress(todo.length, "Collecting rollouts", options.progressStream);
  const persisted: Row[] = (previous?.persisted ?? []).map(stripForAggregation);
  // Keys only: the rows themselves are built when enqueued, a chunk at a time, and then live in Redis.
  const pending = new Set(todo.map((index) => rows.keyAt(index)));
  const doneByWorker = new Map<string, number>();
  const failedKeys = new Set<string>();
  const failureClasses = new Map<FailureClass, { rollouts: number; example: { message: string; answeredBy?: string } }>();
  let retried = 0;
  let dropped = 0;
  let outageAttempts = 0;
  let duplicatesDropped = 0;
  let stopped: string | null = null;
  const givenUp = new Set<string>();
  // The same Prometheus file as a local run (attempt latencies are the workers' and stay out of it).
  const figures = new CollectorMetrics();

  /** One finished job: its failed attempts, then its rollout line or final failure, appended; the job removed after. */
  const record = (job: RolloutJob) => {
    const key = rolloutKeyOfJob(job.id!);
    // Already in the files (or not this run's): written once, never again.
    if (!pending.has(key)) return void duplicatesDropped++;
    const result = job.returnvalue;
    const agent = String((job.data.row.agent_ref as { name?: unknown } | undefined)?.name ?? "");
    for (const line of result.failureLines) {
      output.appendFailure(line);
      figures.counted(agent, "failed", String(line._ng_failure_class ?? ""));
    }
    outageAttempts += result.outageAttempts;
    const end = result.end;
    if (end.kind === "result") {
      output.appendRollout(end.line);
      persisted.push(stripForAggregation(end.line));
      figures.counted(agent, "succeeded", "");
      figures.finished(agent, "succeeded");
    } else if (end.kind === "dropped") {
      dropped++;
      figures.counted(agent, "dropped", "");
      figures.finished(agent, "dropped");
    } else {
      figures.finished(agent, "failed", end.failureClass);
      failedKeys.add(key);
      const seen = failureClasses.get(end.failureClass);
      if (seen) seen.rollouts++;
      else failureClasses.set(end.failureClass, { rollouts: 1, example: end });
    }
    retried += result.failureLines.length - result.outageAttempts - (end.kind === "failed" ? 1 : 0);
    pending.delete(key);
    doneByWorker.set(result.worker, (doneByWorker.get(result.worker) ?? 0) + 1);
    progress.tick(end.kind === "failed" ? "failed" : "ok");
  };

  /** A job no worker could bring to an end (given back JOB_ATTEMPTS times): left for --resume, counted against nothing. */
  const recordGivenUp = (job: RolloutJob) => {
    const key = rolloutKeyOfJob(job.id!);
    if (!pending.has(key)) return;
    const row = job.data.row;
    output.appendFailure({
      _ng_task_index: row._ng_task_index,
      _ng_rollout_index: row._ng_rollout_index,
      agent_ref: row.agent_ref,
      _ng_attempt_index: row._ng_attempt_index ?? 0,
      _ng_failure_class: "worker_gave_up",
      _ng_will_retry: true,
      _ng_outage: true,
      error: `no worker could run it (${job.attemptsMade} tries): ${job.failedReason}`,
    });
    outageAttempts++;
    pending.delete(key);
    givenUp.add(key);
  };

  const drainOutbox = async () => {
    for (;;) {
      const completed = (await queue.getJobs(["completed"], 0, OUTBOX_CHUNK - 1, true)).filter(Boolean) as RolloutJob[];
      const failed = (await queue.getJobs(["failed"], 0, OUTBOX_CHUNK - 1, true)).filter(Boolean) as RolloutJob[];
      const finished = [...completed, ...failed];
      if (finished.length === 0) return;
      for (const job of completed) record(job);
      for (const job of failed) recordGivenUp(job);
      // Removed only once its lines are in the files: a crash in between leaves it here, and the resume drops it.
      await Promise.all(finished.map((job) => job.remove().catch(() => undefined)));
    }
  };

  let lastStatus = "";
  const printStatus = async () => {
    const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed");
    const activeByWorker = new Map<string, number>();
    for (const job of await queue.getJobs(["active"], 0, -1)) if (job?.processedBy) activeByWorker.set(job.processedBy, (activeByWorker.get(job.processedBy) ?? 0) + 1);
    const workers = [...new Set([...doneByWorker.keys(), ...activeByWorker.keys()])].sort();
    const done = todo.length - pending.size;
    const status =
      `Queue ${queueName}: ${counts.waiting! + counts.delayed! + counts.prioritized!} waiting, ${counts.active} active, ${done}/${todo.length} done` +
      (workers.length > 0 ? ` | ${workers.map((worker) => `${worker}: ${activeByWorker.get(worker) ?? 0} active, ${doneByWorker.get(worker) ?? 0} done`).join("; ")}` : " | no worker yet");
    if (status !== lastStatus) warn(status);
    lastStatus = status;
  };

  const onExternalStop = () => (stopped ??= String(options.stopSignal!.reason?.message ?? options.stopSignal!.reason ?? "stopped"));
  if (options.stopSignal?.aborted) onExternalStop();
  options.stopSignal?.addEventListener("abort", onExternalStop, { once: true });
  try {
    // A fresh run starts from an empty queue; a resume keeps what the killed coordinator left (waiting, running, done).
    if (!previous) await queue.obliterate({ force: true });
    const settings: QueuedRunSettings = {
      outputPath: options.outputPath,
      fingerprint,
      maxAttempts,
      retryBackoffMs: options.retryBackoffMs ?? 1000,
      rolloutDeadlineMs: options.rolloutDeadlineMs ?? null,
      outageWaitMs: options.outageWaitMs ?? DEFAULT_OUTAGE_WAIT_MS,
    };
    await redis.set(settingsKey(address.prefix, queueName), JSON.stringify(settings));
    // Results the killed coordinator did not write yet come first; those already in the files are dropped.
    await drainOutbox();
    const toEnqueue = todo.filter((index) => pending.has(rows.keyAt(index)));
    const rowAt = (index: number): Row => {
      const resumedAt = firstAttempt.get(index);
      return resumedAt === undefined ? rows.at(index) : { ...rows.at(index), _ng_attempt_index: resumedAt };
    };
    for (let start = 0; start < toEnqueue.length; start += ENQUEUE_CHUNK) {
      // A job id that is in the queue already (waiting or running since before the resume) is not added twice.
      await queue.addBulk(
        toEnqueue.slice(start, start + ENQUEUE_CHUNK).map((index) => {
          const row = rowAt(index);
          return {
            name: "rollout" as const,
            data: { row, earlierFailures: previous?.attempts.get(rolloutKey(row)) ?? 0 },
            opts: { jobId: jobIdOf(row), attempts: JOB_ATTEMPTS, backoff: { type: "exponential" as const, delay: 1000 } },
          };
        }),
      );
    }
    await redis.sadd(registryKey(address.prefix), queueName);
    print(`Queued ${toEnqueue.length} rollouts on ${address.display} (queue ${queueName}); workers: gym eval worker --queue ${address.display}`);

    let lastStatusAt = 0;
    try {
      while (pending.size > 0 && stopped === null) {
        await drainOutbox();
        if (Date.now() - lastStatusAt >= (options.statusEveryMs ?? 2000)) {
          lastStatusAt = Date.now();
          await printStatus();
        }
        if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
      }
      await printStatus();
    } catch (error) {
      // Redis gone for good (after its reconnects): what is written stays consistent, the rest is for --resume.
      stopped = `the queue's Redis at ${address.display} failed: ${(error as Error).message}`;
    }
    // Done: the run leaves nothing in Redis. Stopped: its jobs stay for the --resume.
    if (pending.size === 0) {
      await redis.srem(registryKey(address.prefix), queueName);
      await redis.del(settingsKey(address.prefix, queueName));
      await queue.obliterate({ force: true });
    }
  } finally {
    options.stopSignal?.removeEventListener("abort", onExternalStop);
    progress.done();
    output.close();
    await queue.close();
    redis.disconnect();
  }
  if (givenUp.size > 0 && stopped === null) stopped = `${givenUp.size} rollouts could not be run by any worker (each given back ${JOB_ATTEMPTS} times; see the failures file)`;
  if (duplicatesDropped > 0) warn(`gym eval run: ${duplicatesDropped} results of rollouts already in ${options.outputPath} were dropped (written once)`);

  return finishRun(
    options,
    { files, rows, todo, previous },
    { persisted, failedKeys, failureClasses, retried, dropped, outageAttempts, unfinished: pending.size + givenUp.size, stopped, figures },
    print,
  );
}
