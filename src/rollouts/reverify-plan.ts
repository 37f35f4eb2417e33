// Which stored rollouts a `gym eval reverify` run re-scores, as NeMo Gym's rollout_reverification decides it:
// the first --limit lines of --rollouts; with --resume, minus the keys an earlier, interrupted re-verification
// already finished (in the output), gave up on (terminal in the failures sidecar) or tried too often; with
// --judge-failed-only, instead the run's judge-failed rollouts from `<rollouts_stem>_failures.jsonl`, the
// successes of --rollouts seeded into the output first so the metrics cover both.
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import type { InputLine, Row } from "./jsonl.ts";
import { readAppendedJsonl, rolloutKey } from "./resume.ts";

/** The failure class NeMo Gym's judge_failsafe gives a verify whose judge call failed: the only recoverable one. */
export const JUDGE_FAILED_FAILURE_CLASS = "judge_failed";

/** Printed at the start of a `--judge-failed-only` run (NeMo Gym's wording). */
export const RECOVERY_TWO_SOURCES_WARNING =
  "WARNING: judge-failed-only recovery merges rewards from TWO sources — the successful rollouts in " +
  "--rollouts were scored by the ORIGINAL run's verifier/judge, while the recovered rows are scored by the " +
  "CURRENT verification config. If any crucial parameter (judge model, judge prompt/params, verifier config, " +
  "etc.) changed between the original run and this recovery, the merged rewards are inconsistent. Ensure the " +
  "verification config matches the original run.";

const hasKey = (row: Row) => row._ng_task_index !== undefined && row._ng_task_index !== null && row._ng_rollout_index !== undefined && row._ng_rollout_index !== null;

/** Keys already in an output file (lines without both indices have none). */
export function keysInFile(path: string): Set<string> {
  return new Set(readAppendedJsonl(path).rows.filter(hasKey).map(rolloutKey));
}

/**
 * Copies the rollout lines of `successesPath` whose key is not yet in `outputPath` onto its end (lines byte for
 * byte); returns the keys present afterwards and how many lines were copied.
 */
export function seedOutputWithSuccesses(successesPath: string, outputPath: string): { present: Set<string>; seeded: number } {
  const present = existsSync(outputPath) ? keysInFile(outputPath) : new Set<string>();
  let seeded = 0;
  const fd = openSync(outputPath, "a");
  try {
    for (const text of readFileSync(successesPath, "utf8").split("\n")) {
      if (text.trim() === "") continue;
      const row = JSON.parse(text) as Row;
      if (hasKey(row)) {
        const key = rolloutKey(row);
        if (present.has(key)) continue;
        present.add(key);
      }
      writeSync(fd, text + "\n");
      seeded++;
    }
  } finally {
    closeSync(fd);
  }
  return { present, seeded };
}

/** The judge-failed lines of a failures sidecar, once per key, minus `skip` (keys the output already has). */
export function judgeFailedLines(failures: readonly InputLine[], skip: ReadonlySet<string>): InputLine[] {
  const seen = new Set<string>();
  return failures.filter(({ row }) => {
    if (row._ng_failure_class !== JUDGE_FAILED_FAILURE_CLASS) return false;
    const key = rolloutKey(row);
    if (skip.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What an earlier re-verification into the same output left: NeMo Gym's CacheKeysByStatus. */
export interface ReverifyCache {
  successful: Set<string>;
  terminal: Set<string>;
  maxedOut: Set<string>;
  /** Neither the output nor its failures file exists. */
  empty: boolean;
}

export function loadReverifyCache(outputPath: string, failuresPath: string, maxAttempts: number): ReverifyCache {
  if (!existsSync(outputPath) && !existsSync(failuresPath)) return { successful: new Set(), terminal: new Set(), maxedOut: new Set(), empty: true };
  const successful = existsSync(outputPath) ? keysInFile(outputPath) : new Set<string>();
  const attempts = new Map<string, number>();
  const terminal = new Set<string>();
  for (const row of readAppendedJsonl(failuresPath).rows) {
    if (!hasKey(row)) continue;
    const key = rolloutKey(row);
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    if (row._ng_failure_terminal === true) terminal.add(key);
  }
  const maxedOut = new Set([...attempts].filter(([, n]) => n >= maxAttempts).map(([key]) => key));
  return { successful, terminal, maxedOut, empty: false };
}

/** The lines still to re-verify, and NeMo Gym's summary of what the cache held. */
export function withoutCached(lines: readonly InputLine[], cache: ReverifyCache): { todo: InputLine[]; summary: string } {
  const todo = lines.filter(({ row }) => {
    const key = rolloutKey(row);
    return !cache.successful.has(key) && !cache.terminal.has(key) && !cache.maxedOut.has(key);
  });
  const summary = [
    "Resumed from cache. Found:",
    `- ${lines.length} total rows to be re-verified`,
    `- ${cache.successful.size} rows already done (in main jsonl)`,
    `- ${cache.terminal.size} sidecar-terminal (timeout_exceeded / skipped) → not retried`,
    `- ${cache.maxedOut.size} hit max_attempts → not retried`,
    `- ${todo.length} rows that still need to be run`,
  ].join("\n");
  return { todo, summary };
}
