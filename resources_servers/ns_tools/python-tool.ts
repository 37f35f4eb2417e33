// NeMo-Skills' DirectPythonTool (`stateful_python_code_exec`) on the project's sandbox instead of the NeMo-Skills
// sandbox service: an IPython cell per call (ipython_cell.py), the session's earlier cells replayed first, and the
// reply shaped as the NeMo-Skills local sandbox shapes it (postprocess_output, 1000-character cut) and as the tool
// returns it (stdout + stderr, one trailing newline dropped).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SandboxUnavailableError, type SandboxProvider } from "../../src/sandbox/index.ts";

const CELL_RUNNER = readFileSync(join(import.meta.dirname, "ipython_cell.py"), "utf8");

/** The local sandbox's default `max_output_characters`. */
const MAX_OUTPUT_CHARACTERS = 1000;
/** Seconds NeMo-Skills waits after its SIGINT before it kills the shell. */
const GRACE_SECONDS = 2;
/** IPython's import and start, on top of the cells' own time. */
const STARTUP_ALLOWANCE_MS = 4_000;
const RESTORE_DISABLED_WARNING =
  "RuntimeError: Sandbox state restoration failed after the execution worker restarted. The interactive session history has been cleared; please re-run the last code block without relying on prior state.\n";

export type ProcessStatus = "completed" | "error" | "timeout";

export interface PythonToolSession {
  /** Cells replayed before the next one. */
  cells: string[];
  /** Cells that completed without error: what NeMo-Skills' restore replays after its shell was killed. */
  completed: Set<number>;
  /** The shell was killed and restore is disabled: the next call's stderr starts with NeMo-Skills' warning. */
  warnRestart: boolean;
  queue: Promise<unknown>;
}

export const newPythonToolSession = (): PythonToolSession => ({ cells: [], completed: new Set(), warnRestart: false, queue: Promise.resolve() });

export function resetPythonToolSession(session: PythonToolSession): void {
  session.cells = [];
  session.completed = new Set();
  session.warnRestart = false;
}

export interface ToolRun {
  sandbox: SandboxProvider;
  timeoutSeconds: number;
  disableSessionRestore: boolean;
  signal?: AbortSignal;
}

export interface ToolOutput {
  text: string;
  processStatus: ProcessStatus;
}

export function executeStatefulPython(session: PythonToolSession, code: unknown, run: ToolRun): Promise<ToolOutput> {
  const next = session.queue.then(() => runCell(session, code, run));
  session.queue = next.catch(() => undefined);
  return next;
}

async function runCell(session: PythonToolSession, code: unknown, run: ToolRun): Promise<ToolOutput> {
  if (typeof code !== "string") return toolOutput({ process_status: "error", stdout: "", stderr: "Error: missing required argument 'code'" });
  // The warning belongs to the first call after the kill (this call may itself be killed and set it again).
  const warn = session.warnRestart;
  session.warnRestart = false;
  const output = await sandboxCell(session, code, run);
  if (warn) output.stderr = RESTORE_DISABLED_WARNING + output.stderr;
  return toolOutput(output);
}

interface CellOutput {
  process_status: ProcessStatus;
  stdout: string;
  stderr: string;
}

async function sandboxCell(session: PythonToolSession, code: string, { sandbox, timeoutSeconds, disableSessionRestore, signal }: ToolRun): Promise<CellOutput> {
  const replay = [...session.cells];
  const budgetMs = Math.ceil((replay.length + 1) * (timeoutSeconds + GRACE_SECONDS) * 1000) + STARTUP_ALLOWANCE_MS;
  const result = await sandbox.run({
    program: { language: "python", source: CELL_RUNNER },
    stdin: JSON.stringify({ replay, cell: code, timeout_s: timeoutSeconds }),
    limits: { wallMs: budgetMs, cpuMs: budgetMs },
    signal,
  });
  const reply = result.timedOut || result.outputTruncated ? undefined : readReply(result.stdout);
  if (reply !== undefined && "no_ipython" in reply) {
    throw new SandboxUnavailableError(`the sandbox's Python cannot import IPython (${reply.no_ipython}), which stateful_python_code_exec runs cells in`, "pip install ipython for the Python the sandbox binds");
  }
  if (reply === undefined) {
    // NeMo-Skills' shell killed past its grace: the answer it gives, and a session that lost its state.
    if (disableSessionRestore) {
      resetPythonToolSession(session);
      session.warnRestart = true;
    } else {
      session.cells = session.cells.filter((_, i) => session.completed.has(i));
      session.completed = new Set(session.cells.map((_, i) => i));
    }
    return { process_status: "timeout", stdout: "", stderr: `Execution timed out after ${timeoutSeconds} seconds\n` };
  }
  // An interrupted cell is not replayed (it would cost the whole timeout each later call).
  if (!reply.interrupted) {
    if (!reply.has_error) session.completed.add(session.cells.length);
    session.cells.push(code);
  }
  return { process_status: reply.has_error ? "error" : "completed", stdout: postprocess(reply.stdout), stderr: postprocess(reply.stderr) };
}

type Reply = { stdout: string; stderr: string; has_error: boolean; interrupted: boolean } | { no_ipython: string };

function readReply(stdout: string): Reply | undefined {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) return undefined;
  try {
    const reply = JSON.parse(lines[0]!) as Record<string, unknown>;
    if (typeof reply.no_ipython === "string") return { no_ipython: reply.no_ipython };
    if (typeof reply.stdout !== "string" || typeof reply.stderr !== "string" || typeof reply.has_error !== "boolean" || typeof reply.interrupted !== "boolean") return undefined;
    return { stdout: reply.stdout, stderr: reply.stderr, has_error: reply.has_error, interrupted: reply.interrupted };
  } catch {
    return undefined;
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1B(?:[@-Z\-_]|\[[0-?]*[ -/]*[@-~])/g;

/** The local sandbox's postprocess_output for Plain tracebacks: ANSI codes, `File <ipython-…` lines and `Out[n]: ` go. */
export function postprocess(output: string): string {
  const lines = output
    .replace(ANSI, "")
    .split("\n")
    .filter((line) => !line.trim().startsWith("File <ipython-"))
    .map((line) => line.replace(/^Out\[\d+\]:\s*/, ""));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  const text = lines.join("\n").trimEnd();
  return text === "" ? "" : `${text}\n`;
}

const cut = (text: string) => ([...text].length > MAX_OUTPUT_CHARACTERS ? `${[...text].slice(0, MAX_OUTPUT_CHARACTERS).join("")}<output cut>` : text);

/** What DirectPythonTool returns: stdout + stderr (each cut at 1000 characters), one trailing newline dropped. */
function toolOutput({ process_status, stdout, stderr }: CellOutput): ToolOutput {
  const text = `${cut(stdout)}${cut(stderr)}`;
  return { text: text.endsWith("\n") ? text.slice(0, -1) : text, processStatus: process_status };
}
