// The files a rollouts output `<dir>/<stem>.jsonl` consists of, and how each is written — for every command
// that produces them (`gym eval run`, `gym eval reverify`, `gym eval aggregate`): NeMo Gym's names, the
// folder created on demand, line files appended and flushed one line at a time (a crash loses only what was
// in flight), whole files written atomically (a reader never sees half a metrics file).
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join, parse } from "node:path";
import { toPythonJson } from "../python/json-dumps.ts";
import { InputError, type Row } from "./jsonl.ts";

/** The output's folder can be made and written, said before any server starts (not after they are up). */
export function checkOutputWritable(outputPath: string): void {
  const folder = dirname(outputPath);
  try {
    mkdirSync(folder, { recursive: true });
    if (!statSync(folder).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const why = code === "EEXIST" || code === "ENOTDIR" ? "is not a folder" : code === "EACCES" || code === "EPERM" || code === "EROFS" ? "is not writable" : "cannot be made";
    throw new InputError(`cannot write the output ${outputPath}: ${folder} ${why} (${code}); choose another --output (+output_jsonl_fpath=…)`);
  }
}

/** `<dir>/<stem><suffix><extension>`: a file that goes next to a rollouts file. */
export function sidecarPath(outputPath: string, suffix: string, extension = ".jsonl"): string {
  const { dir, name } = parse(outputPath);
  return join(dir, `${name}${suffix}${extension}`);
}

export interface RolloutOutputPaths {
  /** `<out>.jsonl`: one rollout line per finished rollout, in NeMo Gym's JSON. */
  rollouts: string;
  /** `<out>_materialized_inputs.jsonl`: the rows dispatched (repeats expanded, indices assigned). */
  materializedInputs: string;
  /** `<out>_failures.jsonl`: one line per failed attempt; created by the first failure. */
  failures: string;
  /** `<out>_run_fingerprint.json`: what a `--resume` checks the servers against. */
  fingerprint: string;
  /** `<out>_aggregate_metrics.json`: one entry per agent. */
  aggregateMetrics: string;
}

export function rolloutOutputPaths(outputPath: string): RolloutOutputPaths {
  return {
    rollouts: outputPath,
    materializedInputs: sidecarPath(outputPath, "_materialized_inputs"),
    failures: sidecarPath(outputPath, "_failures"),
    fingerprint: sidecarPath(outputPath, "_run_fingerprint", ".json"),
    aggregateMetrics: sidecarPath(outputPath, "_aggregate_metrics", ".json"),
  };
}

/** Writes `text` to a temporary file next to `path`, then renames it over `path`. */
export function writeAtomically(path: string, text: string | Iterable<string>): void {
  mkdirSync(dirname(path) || ".", { recursive: true });
  const temporary = join(dirname(path), `.${parse(path).base}.${process.pid}.tmp`);
  try {
    if (typeof text === "string") writeFileSync(temporary, text);
    else writeChunked(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes the pieces in ~1 MB writes: a file of a million lines without the whole text in memory at once. */
function writeChunked(path: string, pieces: Iterable<string>): void {
  const fd = openSync(path, "w");
  try {
    let batch: string[] = [];
    let size = 0;
    for (const piece of pieces) {
      batch.push(piece);
      size += piece.length;
      if (size >= 1 << 20) {
        writeSync(fd, batch.join(""));
        batch = [];
        size = 0;
      }
    }
    if (batch.length > 0) writeSync(fd, batch.join(""));
  } finally {
    closeSync(fd);
  }
}

/** `<out>_aggregate_metrics.json`, written atomically; returns its path. */
export function writeAggregateMetrics(outputPath: string, entries: readonly unknown[]): string {
  const path = rolloutOutputPaths(outputPath).aggregateMetrics;
  writeAtomically(path, JSON.stringify(entries, null, 2) + "\n");
  return path;
}

/** A whole merged rollouts file (lines as read, byte for byte), written atomically. */
export function writeRolloutLines(path: string, lines: readonly string[]): void {
  writeAtomically(path, lines.map((line) => line + "\n").join(""));
}

/** Rollout lines and failure lines appended as they come; `close` before reading the files back. */
export interface RolloutAppenders {
  appendRollout(line: Row): void;
  appendFailure(line: Row): void;
  close(): void;
}

/** The output files of one collection or re-verification run. */
export class RolloutOutputFiles {
  readonly paths: RolloutOutputPaths;

  constructor(outputPath: string) {
    this.paths = rolloutOutputPaths(outputPath);
  }

  /** Refuses to replace an earlier run's rollouts or failures unless `overwrite`; with it, removes them. */
  replaceExisting(overwrite: boolean): void {
    for (const path of [this.paths.rollouts, this.paths.failures]) {
      if (!existsSync(path)) continue;
      if (!overwrite) throw new InputError(`output file already exists: '${path}'; pass --overwrite to replace it`);
      rmSync(path);
    }
  }

  /** A fresh collection: the materialized inputs and the fingerprint of this run, no rollouts or failures yet. */
  /** `rows`: every materialized row, in order (built one at a time when it is MaterializedRows). */
  startFresh(rows: Iterable<Row>, fingerprint: Record<string, string>): void {
    writeAtomically(this.paths.materializedInputs, (function* () {
      for (const row of rows) yield JSON.stringify(row) + "\n";
    })());
    writeAtomically(this.paths.fingerprint, JSON.stringify(fingerprint, null, 2) + "\n");
    rmSync(this.paths.rollouts, { force: true });
    rmSync(this.paths.failures, { force: true });
  }

  /** Opens the rollouts file for appending (creating it and its folder); the failures file opens on its first line. */
  openAppenders(): RolloutAppenders {
    mkdirSync(dirname(this.paths.rollouts) || ".", { recursive: true });
    const rolloutsFd = openSync(this.paths.rollouts, "a");
    let failuresFd: number | undefined;
    return {
      // writeSync: each line reaches the file before the next rollout is recorded.
      appendRollout: (line) => void writeSync(rolloutsFd, toPythonJson(line) + "\n"),
      appendFailure: (line) => {
        failuresFd ??= openSync(this.paths.failures, "a");
        writeSync(failuresFd, JSON.stringify(line) + "\n");
      },
      close: () => {
        closeSync(rolloutsFd);
        if (failuresFd !== undefined) closeSync(failuresFd);
      },
    };
  }

  writeAggregateMetrics(entries: readonly unknown[]): string {
    return writeAggregateMetrics(this.paths.rollouts, entries);
  }
}
