// nvarc's inductive answer: the model's program run on test_input in a sandbox of its own (transform_runner.py), and
// what it printed read back as NeMo Gym reads it. Only a grid comes back; the server alone compares it with
// expected_output, which the sandbox never sees.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxProvider } from "../../src/sandbox/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonStrip } from "../../src/python/str.ts";
import type { Grid } from "../../src/ports/arc-grid.ts";

const RUNNER = readFileSync(join(import.meta.dirname, "transform_runner.py"), "utf8");
/** NeMo Gym waits `python_timeout_seconds + 5` for the whole subprocess (the alarm covers transform() only). */
const SUBPROCESS_GRACE_SECONDS = 5;

/**
 * The grid `code`'s transform() returns for `inputGrid`, or null wherever NeMo Gym gets None: the subprocess timed
 * out, exited non-zero, printed anything but one JSON object, reported failure, or returned no non-empty
 * rectangular list of int lists. A SandboxUnavailableError propagates (a 503, never a score).
 */
export async function runTransform(sandbox: SandboxProvider, code: string, inputGrid: Grid, timeoutSeconds: number, signal?: AbortSignal): Promise<Grid | null> {
  const budgetMs = (timeoutSeconds + SUBPROCESS_GRACE_SECONDS) * 1000;
  const run = await sandbox.run({
    program: { language: "python", source: RUNNER },
    stdin: JSON.stringify({ code, input_grid: inputGrid, timeout_seconds: timeoutSeconds }),
    limits: { wallMs: budgetMs, cpuMs: budgetMs },
    signal,
  });
  if (run.timedOut || run.outputTruncated || run.exitCode !== 0) return null;
  const output = pythonStrip(run.stdout);
  if (output === "") return null;
  let reply: unknown;
  try {
    reply = pythonJsonLoads(output);
  } catch {
    return null;
  }
  if (!(reply instanceof Map) || !isTruthy(reply.get("success")) || reply.get("result") === undefined || reply.get("result") === null) return null;
  return boardOf(reply.get("result"));
}

const isTruthy = (value: unknown) => value !== undefined && value !== null && value !== false && value !== 0n && value !== 0 && value !== "";

// pydantic's lax int on a JSON value: an int, a bool, an integral float, or an integer string.
const INT_TEXT = /^\s*[+-]?\d+(?:_\d+)*\s*$/;
function laxInt(cell: unknown): number | undefined {
  if (typeof cell === "bigint") return Number(cell);
  if (typeof cell === "boolean") return Number(cell);
  if (typeof cell === "number") return Number.isInteger(cell) ? cell : undefined;
  if (typeof cell === "string" && INT_TEXT.test(cell)) return Number(cell.trim().replace(/_/g, ""));
  return undefined;
}

/** NVARC's Board(board=result) and is_valid: a list[list[int]] (lax), non-empty, every row as long as the first (> 0). */
function boardOf(result: unknown): Grid | null {
  if (!Array.isArray(result)) return null;
  const grid: Grid = [];
  for (const row of result) {
    if (!Array.isArray(row)) return null;
    const cells = row.map(laxInt);
    if (cells.some((cell) => cell === undefined)) return null;
    grid.push(cells as number[]);
  }
  if (grid.length === 0 || grid[0]!.length === 0 || grid.some((row) => row.length !== grid[0]!.length)) return null;
  return grid;
}
