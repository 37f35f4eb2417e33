// What an earlier, interrupted collection left behind, read so `--resume` can continue it: the rollouts
// already in the output, the attempts each failed rollout has used, and the proof that the run being
// resumed is the same run (identical materialized inputs, identical server and collection settings).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, truncateSync } from "node:fs";
import { UserError } from "../config/errors.ts";
import { fileLines, InputError, readJsonl, type Row } from "./jsonl.ts";

/** `(task, rollout)`: the identity of one rollout across runs. */
export const rolloutKey = (row: Row) => `${row._ng_task_index}:${row._ng_rollout_index}`;

/** A `--resume` of a run whose inputs or servers changed: a user mistake (restore them, or start over). */
export class ResumeRefusedError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "ResumeRefusedError";
  }
}

/**
 * Reads a JSONL file that a killed process may have left with a torn last line: the tail after the last
 * newline is cut off the file (so appends start on a fresh line) and reported. A torn line anywhere else
 * is real corruption and an error naming its line.
 */
export function readAppendedJsonl(path: string): { rows: Row[]; tornTailBytes: number } {
  if (!existsSync(path)) return { rows: [], tornTailBytes: 0 };
  const buffer = readFileSync(path);
  const lastNewline = buffer.lastIndexOf(0x0a);
  const tornTailBytes = buffer.length - (lastNewline + 1);
  if (tornTailBytes > 0) truncateSync(path, lastNewline + 1);
  return { rows: readJsonl(path).map((line) => line.row), tornTailBytes };
}

export interface PreviousRun {
  /** Output lines (successes), in file order. */
  persisted: Row[];
  done: Set<string>;
  /** The rollout's own failed attempts per key (what its budget counts), from the failures sidecar. */
  attempts: Map<string, number>;
  /** The index the next attempt of a key takes: one past its last recorded attempt, outage attempts included. */
  nextAttemptIndex: Map<string, number>;
  /** Attempts lost to an outage of the stack (`_ng_outage`): recorded, never counted against a budget. */
  outageAttempts: number;
  /** Keys whose failure must not be retried (a bad request, or an agent that said so). */
  terminal: Set<string>;
  /**
   * Earlier attempts whose judge call failed (`judge_failed`): the judge failed, not the rollout, so a resume retries
   * them with a fresh budget (NeMo Gym: "retryable on resume"); within one run the budget still bounds them.
   */
  judgeFailedAttempts: number;
  tornTailBytes: number;
}

export function loadPreviousRun(outputPath: string, failuresPath: string): PreviousRun {
  const output = readAppendedJsonl(outputPath);
  const failures = readAppendedJsonl(failuresPath);
  const attempts = new Map<string, number>();
  const nextAttemptIndex = new Map<string, number>();
  const terminal = new Set<string>();
  let outageAttempts = 0;
  let judgeFailedAttempts = 0;
  for (const failure of failures.rows) {
    if (failure._ng_task_index === undefined || failure._ng_rollout_index === undefined) continue;
    const key = rolloutKey(failure);
    // Lines without an index (older runs) are numbered by their order.
    const index = Number.isInteger(failure._ng_attempt_index) ? (failure._ng_attempt_index as number) : (nextAttemptIndex.get(key) ?? 0);
    nextAttemptIndex.set(key, Math.max(nextAttemptIndex.get(key) ?? 0, index + 1));
    if (failure._ng_outage === true) {
      outageAttempts++;
      continue;
    }
    if (failure._ng_failure_class === "judge_failed") {
      judgeFailedAttempts++;
      continue;
    }
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    if (failure._ng_failure_terminal === true) terminal.add(key);
  }
  return { persisted: output.rows, done: new Set(output.rows.map(rolloutKey)), attempts, nextAttemptIndex, outageAttempts, terminal, judgeFailedAttempts, tornTailBytes: output.tornTailBytes + failures.tornTailBytes };
}

/** The stored materialized inputs must be exactly the rows this run would dispatch. */
export function checkSameInputs(materializedPath: string, rows: { length: number; at(index: number): Row }): void {
  // Streamed: a run of a million rollouts compares line by line, holding one row of each side.
  let stored = 0;
  let lineNumber = 0;
  let first: number | undefined;
  const parsed = (line: string) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      throw new InputError(`${materializedPath}:${lineNumber}: not valid JSON (${(error as Error).message})`);
    }
  };
  for (const line of fileLines(materializedPath)) {
    lineNumber++;
    if (line.trim() === "") continue;
    if (first === undefined && (stored >= rows.length || JSON.stringify(parsed(line)) !== JSON.stringify(rows.at(stored)))) first = stored;
    stored++;
  }
  if (first === undefined && stored !== rows.length) first = stored;
  if (first === undefined) return;
  const detail =
    stored !== rows.length
      ? `${stored} rows were materialized then, ${rows.length} now`
      : `line ${first + 1} differs (task ${rows.at(first)._ng_task_index}, rollout ${rows.at(first)._ng_rollout_index})`;
  throw new ResumeRefusedError(
    `cannot resume: the input rows or the collection settings (limit, num_repeats, responses_create_params, prompt_config, agent) changed since the first run — ${detail} in ${materializedPath}. ` +
      "Restore them, or run without --resume to start over.",
  );
}

/** Per-part digests of what a run's results depend on; secrets never reach the file, only their hashes. */
export type RunFingerprint = Record<string, string>;

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value) ?? "null").digest("hex").slice(0, 16);

const SERVER_TYPES = new Set(["resources_servers", "responses_api_agents", "responses_api_models"]);
// Where a server happens to listen does not change what it computes.
const VOLATILE_FIELDS = new Set(["host", "port"]);

function withoutVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVolatile);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !VOLATILE_FIELDS.has(key)).map(([key, v]) => [key, withoutVolatile(v)]));
}

/**
 * One digest per server instance of the config (the collection settings are already checked through the
 * materialized inputs they produce).
 */
export function runFingerprint(globalConfig: Record<string, unknown>): RunFingerprint {
  const fingerprint: RunFingerprint = {};
  for (const [name, value] of Object.entries(globalConfig)) {
    if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).some((key) => SERVER_TYPES.has(key))) {
      fingerprint[`server ${name}`] = digest(withoutVolatile(value));
    }
  }
  return fingerprint;
}

/** A run without a stored fingerprint (an older run, or NeMo Gym's) is resumed on its inputs alone. */
export function checkSameConfig(path: string, fingerprint: RunFingerprint): "checked" | "no fingerprint" {
  if (!existsSync(path)) return "no fingerprint";
  let stored: RunFingerprint;
  try {
    stored = JSON.parse(readFileSync(path, "utf8")) as RunFingerprint;
  } catch (error) {
    throw new InputError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const parts = [...new Set([...Object.keys(stored), ...Object.keys(fingerprint)])].filter((part) => stored[part] !== fingerprint[part]).sort();
  if (parts.length === 0) return "checked";
  throw new ResumeRefusedError(
    `cannot resume: the configuration changed since the first run (${parts.join(", ")} differ${parts.length === 1 ? "s" : ""}; see ${path}). ` +
      "Resuming would mix rollouts of two different setups; restore the config, or run without --resume to start over.",
  );
}
