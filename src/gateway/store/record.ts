// One trial as the store keeps it. Both backends hold it as flat string columns (SQLite columns, Redis hash
// fields) so a compare-and-set can test `phase`/`status` without decoding the rest.
import { PROTOCOL_VERSION, type CancelCause, type JsonObject, type TrialError, type TrialRequest, type TrialReward, type TrialSnapshot, type TrialStatus } from "../types.ts";

/**
 * The internal layer under the public status: `active` (queued or running), `cancelling` (capability revoked,
 * cleanup in progress), `terminal`. Every transition out of `active` is a compare-and-set, so the first wins.
 */
export type TrialPhase = "active" | "cancelling" | "terminal";

export interface TrialRecord {
  request_id: string;
  fingerprint: string;
  /** `<environment>\u0000<config>`: the admission and concurrency key. */
  env_key: string;
  rollout_id: string;
  phase: TrialPhase;
  status: TrialStatus;
  cause: CancelCause | null;
  reward: TrialReward;
  metrics: JsonObject;
  artifact_ref: string | null;
  error: TrialError | null;
  /** Credentials included: present while the trial is not terminal, dropped at the terminal transition. */
  request: TrialRequest | null;
  /** Wall-clock epoch milliseconds: they must mean the same after a restart and on another replica. */
  created_at: number;
  deadline_at: number;
  lease_expires_at: number;
  terminal_at: number | null;
  /** The process that started `/run` (null while queued). */
  driver: string | null;
}

export type TrialColumns = Record<keyof TrialRecord, string>;

const JSON_FIELDS = new Set<keyof TrialRecord>(["reward", "metrics", "error", "request", "cause", "artifact_ref", "driver", "terminal_at"]);
const NUMBER_FIELDS = new Set<keyof TrialRecord>(["created_at", "deadline_at", "lease_expires_at"]);

export const RECORD_FIELDS: (keyof TrialRecord)[] = [
  "request_id", "fingerprint", "env_key", "rollout_id", "phase", "status", "cause", "reward", "metrics",
  "artifact_ref", "error", "request", "created_at", "deadline_at", "lease_expires_at", "terminal_at", "driver",
];

export function encodeField<K extends keyof TrialRecord>(field: K, value: TrialRecord[K]): string {
  if (JSON_FIELDS.has(field)) return JSON.stringify(value ?? null);
  return String(value);
}

export function encodePatch(patch: Partial<TrialRecord>): Record<string, string> {
  const columns: Record<string, string> = {};
  for (const [field, value] of Object.entries(patch)) columns[field] = encodeField(field as keyof TrialRecord, value as never);
  return columns;
}

export function decodeRecord(columns: Record<string, string | number | null>): TrialRecord {
  const record: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) {
    const raw = columns[field];
    if (JSON_FIELDS.has(field)) record[field] = raw === undefined || raw === null ? null : JSON.parse(String(raw));
    else if (NUMBER_FIELDS.has(field)) record[field] = Number(raw);
    else record[field] = raw === null || raw === undefined ? "" : String(raw);
  }
  return record as unknown as TrialRecord;
}

export function snapshotOf(record: TrialRecord): TrialSnapshot {
  return {
    protocol_version: PROTOCOL_VERSION,
    request_id: record.request_id,
    status: record.status,
    reward: record.reward,
    metrics: record.metrics,
    artifact_ref: record.artifact_ref,
    error: record.error,
  };
}

export const envKey = (environment: string, config: string) => `${environment}\u0000${config}`;

export type InsertOutcome = { kind: "inserted"; record: TrialRecord } | { kind: "exists"; record: TrialRecord } | { kind: "full" };

export interface CasCondition {
  phases: TrialPhase[];
  statuses?: TrialStatus[];
}

/** What every backend provides; all multi-step checks happen atomically inside the backend. */
export interface TrialStore {
  readonly backend: "sqlite" | "redis";
  /** A per-deployment key for the payload fingerprints: stable across restarts and shared by replicas. */
  fingerprintKey(): Promise<Buffer>;
  /** Admission (non-terminal count below `capacity`) and insertion, or the existing record, in one step. */
  insert(record: TrialRecord, capacity: number): Promise<InsertOutcome>;
  get(requestId: string): Promise<TrialRecord | null>;
  requestIdForRollout(rolloutId: string): Promise<string | null>;
  /** Compare-and-set: applies `patch` only when the record matches `condition`; returns the updated record. */
  update(requestId: string, condition: CasCondition, patch: Partial<TrialRecord>): Promise<TrialRecord | null>;
  /** Active records whose deadline or lease has passed at `now`. */
  expiredActive(now: number): Promise<TrialRecord[]>;
  nonTerminal(): Promise<TrialRecord[]>;
  counts(): Promise<{ trials: number; active: number; terminal: number }>;
  /** Drops terminal records that became terminal before `before`; returns how many. */
  purgeTerminal(before: number): Promise<number>;
  /** Cross-process notifications (cancel: revoke callbacks, stop the local run; terminal: wake long polls). */
  publish(event: TrialEvent): Promise<void>;
  subscribe(listener: (event: TrialEvent) => void): void;
  close(): Promise<void>;
}

export interface TrialEvent {
  kind: "cancel" | "terminal";
  request_id: string;
}
