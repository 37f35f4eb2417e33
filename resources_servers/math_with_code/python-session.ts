// A session's Python state without a long-lived process: every call runs, in a fresh sandbox, the session's earlier
// cells again (silently) and then the new one (interpreter.py). State therefore survives between calls for code
// that is deterministic, at the price of re-running the history each call: call n costs the time of cells 1…n.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxProvider } from "../../src/sandbox/index.ts";

const INTERPRETER = readFileSync(join(import.meta.dirname, "interpreter.py"), "utf8");

/** What POST /execute_python answers (NeMo Gym's ExecutePythonResponse, fields in its order). */
export interface ExecutePythonReply {
  success: boolean;
  stdout: string;
  stderr: string;
  error_message: string | null;
  result: string | null;
}

export interface PythonSession {
  /** The cells replayed before the next one: every earlier cell that ran to an answer, in order. */
  cells: string[];
  /** Calls of one session run one after the other, in the order they came. */
  queue: Promise<unknown>;
}

export const newPythonSession = (): PythonSession => ({ cells: [], queue: Promise.resolve() });

/** Seconds the sandbox gets beyond the cells' own alarms: Python's start and numpy/scipy's import. */
const STARTUP_ALLOWANCE_MS = 3_000;
const TIMED_OUT = "code timed-out";

const failure = (error_message: string): ExecutePythonReply => ({ success: false, stdout: "", stderr: "", error_message, result: null });

export interface CellRun {
  sandbox: SandboxProvider;
  timeoutSeconds: number;
  signal?: AbortSignal;
  /** Told once per reply which of numpy/scipy/pandas the sandbox's Python lacks (their names are then unbound). */
  onMissingLibraries?: (names: string[]) => void;
}

/** Runs `code` as the session's next cell. A SandboxUnavailableError propagates (a 503, never a reply). */
export function executeCell(session: PythonSession, code: string, run: CellRun): Promise<ExecutePythonReply> {
  const next = session.queue.then(() => runCell(session, code, run));
  session.queue = next.catch(() => undefined);
  return next;
}

async function runCell(session: PythonSession, code: string, { sandbox, timeoutSeconds, signal, onMissingLibraries }: CellRun): Promise<ExecutePythonReply> {
  const replay = [...session.cells];
  const budgetMs = (replay.length + 1) * timeoutSeconds * 1000 + STARTUP_ALLOWANCE_MS;
  const result = await sandbox.run({
    program: { language: "python", source: INTERPRETER },
    stdin: JSON.stringify({ replay, cell: code, timeout_s: timeoutSeconds }),
    limits: { wallMs: budgetMs, cpuMs: budgetMs },
    signal,
  });
  // Past the sandbox's wall clock (a cell that ignores or outlives its alarm, e.g. one long C call): NeMo Gym's
  // alarm message; the cell is not kept, so the next call does not pay for it again.
  if (result.timedOut) return failure(TIMED_OUT);
  if (result.outputTruncated) return failure("the cell's output is larger than the sandbox lets a run print");
  const reply = readReply(result.stdout);
  if (reply === undefined) {
    // A clean exit with no readable reply: the cell wrote into the descriptor the reply goes out on.
    if (result.exitCode === 0) return failure("the cell wrote into the interpreter's reply channel, so its reply is unreadable");
    const end = result.signal ? `signal ${result.signal}` : `exit code ${result.exitCode}`;
    return failure(`the Python interpreter ended before the cell finished (${end})`);
  }
  const { missing_libraries, ...answer } = reply;
  if (missing_libraries.length > 0) onMissingLibraries?.(missing_libraries);
  // A cell that failed on its alarm is dropped from the history (replaying it would cost the whole timeout on every
  // later call); every other cell, failed or not, left its mark on the state in NeMo Gym too, so it is replayed.
  if (answer.error_message !== TIMED_OUT) session.cells.push(code);
  return answer;
}

function readReply(stdout: string): (ExecutePythonReply & { missing_libraries: string[] }) | undefined {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) return undefined;
  try {
    const reply = JSON.parse(lines[0]!) as Record<string, unknown>;
    const { success, stdout: out, stderr, error_message, result, missing_libraries } = reply;
    if (typeof success !== "boolean" || typeof out !== "string" || typeof stderr !== "string") return undefined;
    if (!(error_message === null || typeof error_message === "string") || !(result === null || typeof result === "string")) return undefined;
    if (!Array.isArray(missing_libraries)) return undefined;
    return { success, stdout: out, stderr, error_message, result, missing_libraries: missing_libraries.map(String) };
  } catch {
    return undefined;
  }
}
