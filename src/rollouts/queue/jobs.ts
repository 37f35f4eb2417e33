// What the coordinator and the workers of a queued collection agree on: the run's queue name and its entry
// in the registry of runs (how a worker started with only `--queue redis://…` finds the work), the run's
// settings (the retry policy and the config fingerprint a worker's graph must match), and the shape of
// one job (a materialized row) and of its result (the rollout line, or the failure, plus every failed attempt).
import { createHash } from "node:crypto";
import type { Row } from "../jsonl.ts";
import type { RunFingerprint } from "../resume.ts";

/** The settings a worker runs a run's rollouts with: the coordinator's, so a job behaves as in a local run. */
export interface QueuedRunSettings {
  outputPath: string;
  fingerprint: RunFingerprint;
  maxAttempts: number;
  retryBackoffMs: number;
  rolloutDeadlineMs: number | null;
  outageWaitMs: number;
}

export interface RolloutJobData {
  row: Row;
  /** The rollout's own failed attempts in earlier runs (what a `--resume` carries over): counted against maxAttempts. */
  earlierFailures: number;
}

/** How the rollout ended for good on a worker; `failure` names its class and one message, as the summary shows it. */
export type RolloutJobEnd =
  | { kind: "result"; line: Row }
  | { kind: "dropped" }
  | { kind: "failed"; failureClass: string; message: string; answeredBy?: string };

export interface RolloutJobResult {
  /** The worker that ran it (`--name`, default host:pid). */
  worker: string;
  /** One failures-file line per failed attempt, in order (the last one too when the rollout failed for good). */
  failureLines: Row[];
  /** Attempts lost to an outage of the worker's servers (lines with `_ng_outage`, not counted against the rollout). */
  outageAttempts: number;
  end: RolloutJobEnd;
}

/** BullMQ ids may not contain ':' nor be integers: `<task>-<rollout>`, one job per (task, rollout). */
export const jobIdOf = (row: Row) => `${row._ng_task_index}-${row._ng_rollout_index}`;

/** The job id back as rolloutKey's `<task>:<rollout>`. */
export const rolloutKeyOfJob = (jobId: string) => jobId.replace("-", ":");

/** One queue per run: the output file and the servers' fingerprint name it, so a resume finds its own jobs. */
export function queueNameOf(outputPath: string, fingerprint: RunFingerprint): string {
  const sorted = Object.fromEntries(Object.entries(fingerprint).sort(([a], [b]) => a.localeCompare(b)));
  return `rollouts-${createHash("sha256").update(JSON.stringify([outputPath, sorted])).digest("hex").slice(0, 16)}`;
}

/** The set of queue names whose coordinator wants workers. */
export const registryKey = (prefix: string) => `${prefix}:ng-runs`;
/** A run's settings, JSON. */
export const settingsKey = (prefix: string, queueName: string) => `${prefix}:ng-run:${queueName}`;

/** The parts of two fingerprints that differ (empty: the same servers). */
export function fingerprintDifferences(a: RunFingerprint, b: RunFingerprint): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((part) => a[part] !== b[part]).sort();
}
