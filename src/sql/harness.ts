// The program that runs one query inside the sandbox, and how its answer is read back.
//
// It is Python's own sqlite3 module, as in NeMo Gym, so every type, every error and every SQLite quirk is the one
// a Python verifier sees. The request (database, SQL, a nonce) arrives on stdin. Before the model's statement runs,
// fd 1 is pointed at /dev/null: whatever the statement manages to write (ATTACH or VACUUM INTO '/dev/stdout') goes
// nowhere. The harness then writes exactly one line, a JSON frame carrying the nonce, to the stdout it kept aside.
// The server accepts stdout only if it is that one line and nothing else, with the nonce it sent: bytes the SQL
// added anywhere (even through /proc/self/fd) make it no frame, and the statement never learns the nonce (SQLite
// reads files only as databases, so /proc/self/mem or stdin cannot come back as rows).
import { randomBytes } from "node:crypto";
import { CellFormatError, decodeCell, type SqlRow } from "./cells.ts";

export const HARNESS_SOURCE = String.raw`
import base64, json, os, sqlite3, sys, urllib.parse

def cell(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return ["i", str(value)]
    if isinstance(value, float):
        return ["f", value if value == value and abs(value) != float("inf") else repr(value)]
    return ["b", base64.b64encode(bytes(value)).decode("ascii")]

def run(request):
    frame = {"nonce": request["nonce"]}
    try:
        # mode=ro: the stored file is never written, whatever the statement says (the bind is read-only too).
        source = sqlite3.connect("file:" + urllib.parse.quote(request["database"]) + "?mode=ro", uri=True)
        if request["copyToMemory"]:
            connection = sqlite3.connect(":memory:")
            source.backup(connection)
            source.close()
        else:
            connection = source
        if request["textErrors"] == "ignore":
            connection.text_factory = lambda data: data.decode(errors="ignore")
    except Exception as error:
        frame["setupError"] = type(error).__name__ + ": " + str(error)
        return frame
    try:
        cursor = connection.cursor()
        cursor.execute(request["sql"])
        frame["rows"] = [[cell(value) for value in row] for row in cursor.fetchall()]
    except BaseException as error:
        frame["error"] = type(error).__name__ + ": " + str(error)
    return frame

request = json.loads(sys.stdin.read())
answer = os.dup(1)
quiet = os.open(os.devnull, os.O_WRONLY)
os.dup2(quiet, 1)
data = memoryview((json.dumps(run(request)) + "\n").encode("ascii"))
while data:
    data = data[os.write(answer, data):]
`;

export interface HarnessRequest {
  /** The database's path inside the sandbox. */
  database: string;
  sql: string;
  /** Copy the file into an in-memory database first (spider2_lite: writes then change the copy only). */
  copyToMemory: boolean;
  /** How text that is not UTF-8 is read: Python's default (an error) or bird_sql's `decode(errors="ignore")`. */
  textErrors: "strict" | "ignore";
}

export type HarnessAnswer =
  | { kind: "rows"; rows: SqlRow[] }
  /** The statement raised (syntax, missing table, readonly, interrupted …): Python's `type: message`. */
  | { kind: "error"; error: string }
  /** Opening or copying the database failed: not the statement's doing. */
  | { kind: "setup-error"; error: string }
  /** stdout was not exactly one frame with our nonce: something besides the harness wrote to it. */
  | { kind: "no-frame"; why: string };

export function harnessStdin(request: HarnessRequest): { nonce: string; stdin: string } {
  const nonce = randomBytes(16).toString("hex");
  return { nonce, stdin: JSON.stringify({ nonce, ...request }) };
}

export function readFrame(stdout: string, nonce: string): HarnessAnswer {
  if (!stdout.endsWith("\n") || stdout.indexOf("\n") !== stdout.length - 1) return { kind: "no-frame", why: "stdout is not exactly one line" };
  let frame: unknown;
  try {
    frame = JSON.parse(stdout);
  } catch {
    return { kind: "no-frame", why: "stdout is not JSON" };
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return { kind: "no-frame", why: "stdout is not a JSON object" };
  const { nonce: seen, rows, error, setupError, ...rest } = frame as Record<string, unknown>;
  if (seen !== nonce) return { kind: "no-frame", why: "the frame does not carry this run's nonce" };
  if (Object.keys(rest).length > 0 || [rows, error, setupError].filter((part) => part !== undefined).length !== 1) return { kind: "no-frame", why: "the frame has unexpected fields" };
  if (typeof setupError === "string") return { kind: "setup-error", error: setupError };
  if (typeof error === "string") return { kind: "error", error };
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) return { kind: "no-frame", why: "rows is not a list of rows" };
  try {
    return { kind: "rows", rows: rows.map((row: unknown[]) => row.map(decodeCell)) };
  } catch (problem) {
    if (problem instanceof CellFormatError) return { kind: "no-frame", why: problem.message };
    throw problem;
  }
}
