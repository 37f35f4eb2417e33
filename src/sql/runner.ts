// Runs one SQL statement on one database of a folder, inside a bubblewrap sandbox of its own, and brings the rows
// back as data. That database alone is bound read-only under /db (a bind of this run, not of the runtime), so the
// model's SQL sees its row's database and nothing else of this machine — not the folder's other databases (no ATTACH
// of a neighbour) — cannot write it, has no network, and is killed at the configured time limit. The comparison of
// rows happens in the server, never in the sandbox.
import { statSync } from "node:fs";
import { HttpError } from "../protocol/errors.ts";
import { BubblewrapSandbox, pythonRuntime, type SandboxProvider } from "../sandbox/index.ts";
import type { SqlRow } from "./cells.ts";
import { HARNESS_SOURCE, harnessStdin, readFrame, type HarnessRequest } from "./harness.ts";

/** Where a run's database appears inside the sandbox, at its path relative to the folder. */
export const SANDBOX_DATABASE_DIR = "/db";

const MiB = 1024 * 1024;

export type QueryOutcome =
  | { kind: "rows"; rows: SqlRow[] }
  /**
   * What NeMo Gym's execute_sqlite turns into `None`: the statement raised, ran past the time limit, or its run
   * ended without a result (killed for memory, output past the limit, stdout it tampered with).
   */
  | { kind: "failed"; reason: "error" | "timeout" | "no-result"; detail: string };

export interface SqliteSandboxOptions {
  /** The folder of databases on this machine (each run gets its one file, read-only, under /db). */
  databaseDir: string;
  /** Runs at once (NeMo Gym's max_concurrency). */
  maxConcurrent: number;
  /** Per statement (NeMo Gym's sql_execution_timeout_s), from start of the sandbox to its kill. */
  timeoutMs: number;
  /** Another provider (a test's, a remote sandbox); default: bubblewrap with Python. */
  provider?: SandboxProvider;
}

export class SqliteSandbox {
  private readonly provider: SandboxProvider;

  constructor(private readonly options: SqliteSandboxOptions) {
    this.provider = options.provider ?? new BubblewrapSandbox({ runtimes: () => [pythonRuntime()], maxConcurrent: options.maxConcurrent });
  }

  /** Throws SandboxUnavailableError (a 503) when no sandbox can run here: for the server's startup. */
  ensureAvailable(): Promise<void> {
    return this.provider.ensureAvailable();
  }

  close(): Promise<void> {
    return this.provider.close();
  }

  /**
   * `sql` on the database at `relativePath` of the folder (checked to exist by the caller). A database that cannot
   * be opened or copied is a 500: the environment's fault, never a reward.
   */
  async query(relativePath: string, sql: string, how: Omit<HarnessRequest, "database" | "sql">, signal?: AbortSignal): Promise<QueryOutcome> {
    const hostPath = `${this.options.databaseDir}/${relativePath}`;
    const inside = `${SANDBOX_DATABASE_DIR}/${relativePath}`;
    const databaseBytes = statSync(hostPath).size;
    const { nonce, stdin } = harnessStdin({ database: inside, sql, ...how });
    const result = await this.provider.run({
      program: { language: "python", source: HARNESS_SOURCE },
      readOnlyBinds: [{ host: hostPath, sandbox: inside }],
      stdin,
      signal,
      limits: {
        wallMs: this.options.timeoutMs,
        cpuMs: this.options.timeoutMs,
        // Python and SQLite's caches, plus the in-memory copy (and room to grow it) when the file is copied.
        memoryBytes: 1024 * MiB + (how.copyToMemory ? 2 * databaseBytes : 0),
        // SQLite's temporary files (big sorts, temp tables) live in /tmp.
        workDirBytes: 256 * MiB,
        outputBytes: 64 * MiB,
      },
    });
    if (result.timedOut) return { kind: "failed", reason: "timeout", detail: `the statement ran past ${this.options.timeoutMs} ms` };
    if (result.outputTruncated) return { kind: "failed", reason: "no-result", detail: "the result is larger than 64 MiB" };
    const answer = readFrame(result.stdout, nonce);
    switch (answer.kind) {
      case "rows":
        return answer;
      case "error":
        return { kind: "failed", reason: "error", detail: answer.error };
      case "setup-error":
        throw new HttpError(500, `cannot open database ${relativePath} in ${this.options.databaseDir}: ${answer.error}`);
      case "no-frame": {
        const ended = result.signal ? `killed by ${result.signal}` : `exit code ${result.exitCode}`;
        return { kind: "failed", reason: "no-result", detail: `no result from the sandbox (${answer.why}; ${ended}): ${result.stderr.slice(-500)}` };
      }
    }
  }
}
