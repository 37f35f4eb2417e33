// One verify's unit tests: the model's program and every test input go into one sandbox, where harness.py runs them
// as NeMo Gym's grader does (one process, a per-test alarm); what comes back is what the program printed or returned
// per test, and this module judges it against the expected outputs, which never enter the sandbox.
//
// Result codes (NeMo Gym's): true pass · -1 the whole run ended early (global timeout, or the process died) ·
// -2 wrong answer · -3 the per-test time limit · -4 a runtime error, or an error loading the program.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxProvider, SandboxResult } from "../../src/sandbox/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyException } from "../../src/python/exception.ts";
import type { PyValue } from "../../src/python/values.ts";
import { callMatches, stdioMismatch, pythonText, truncate, WRONG_ANSWER, type EncodedValue } from "./compare.ts";

const HARNESS = readFileSync(join(import.meta.dirname, "harness.py"), "utf8");

export interface UnitTests {
  inputs: string[];
  outputs: string[];
  fn_name?: string | null;
}

export type TestResult = true | false | -1 | -2 | -3 | -4;

export interface TestsOutcome {
  result: TestResult[];
  /** NeMo Gym's metadata: the first failure's details, `{"execution time": s}` when all pass, null on a global timeout. */
  metadata: Record<string, unknown> | null;
}

export interface RunOptions {
  sandbox: SandboxProvider;
  /** Per-test limit (NeMo Gym's unit_test_timeout_secs, whole seconds: it is a SIGALRM). */
  timeoutSecs: number;
  memoryBytes: number;
  signal?: AbortSignal;
}

type Record_ = Record<string, unknown>;

/** The whole run's wall clock: NeMo Gym's global timeout, (timeout + 1) · tests + 5 seconds. */
export const globalTimeoutMs = (timeoutSecs: number, tests: number) => ((timeoutSecs + 1) * tests + 5) * 1000;

/** Bytes kept of the harness's report: large enough for the outputs of every test of a contest problem. */
const REPORT_BYTES = 64 * 1024 * 1024;

export async function runUnitTests(code: string, tests: UnitTests, options: RunOptions): Promise<TestsOutcome> {
  const callBased = tests.fn_name !== null && tests.fn_name !== undefined;
  const wallMs = globalTimeoutMs(options.timeoutSecs, tests.inputs.length);
  const job = { mode: callBased ? "call" : "stdio", code, inputs: tests.inputs, fn_name: tests.fn_name ?? null, timeout: options.timeoutSecs };
  const run = await options.sandbox.run({
    program: { language: "python", source: HARNESS },
    files: { "job.json": JSON.stringify(job) },
    limits: { wallMs, cpuMs: wallMs, memoryBytes: options.memoryBytes, outputBytes: REPORT_BYTES },
    signal: options.signal,
  });
  return judge(run, tests, callBased);
}

const everyTest = (tests: UnitTests, code: TestResult): TestsOutcome => ({ result: tests.inputs.map(() => code), metadata: null });

const duringTesting = (message: string): TestsOutcome => ({ result: [-4], metadata: { error_code: -4, error_message: `Error during testing: ${message}` } });

/** `str()` of a call-based test's arguments (one JSON value per line), as NeMo Gym's metadata shows them. */
function argumentsText(input: string): string {
  try {
    return pythonText(input.split("\n").map((line) => pythonJsonLoads(line)));
  } catch {
    return input;
  }
}

/** The report's records; undefined when a line is no JSON object. A run that was cut may end in a partial line. */
function parseReport(stdout: string, cut: boolean): Record_[] | undefined {
  const lines = stdout.split("\n");
  const records: Record_[] = [];
  for (const [index, line] of lines.entries()) {
    if (line === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      if (cut && index === lines.length - 1) break;
      return undefined;
    }
    if (record === null || typeof record !== "object" || Array.isArray(record)) return undefined;
    records.push(record as Record_);
  }
  return records;
}

/**
 * The report read strictly: setup first, then test records numbered 0, 1, 2, … each once, then the end. Anything
 * else means the program wrote into the channel (or cut it): it never becomes a pass.
 */
function judge(run: SandboxResult, tests: UnitTests, callBased: boolean): TestsOutcome {
  const cut = run.timedOut || run.outputTruncated || run.signal !== null;
  const records = parseReport(run.stdout, cut);
  const forged: TestsOutcome = duringTesting("the program wrote into the test harness's report channel");
  if (records === undefined) return forged;
  const [setup, ...rest] = records;
  if (setup === undefined) return everyTest(tests, -1);
  if (setup.setup === "error" && typeof setup.message === "string") return rest.length === 1 && rest[0]!.end === true ? duringTesting(setup.message) : forged;
  if (setup.setup !== "ok") return forged;
  const ended = rest.at(-1)?.end === true;
  const testRecords = ended ? rest.slice(0, -1) : rest;
  if (testRecords.length > tests.inputs.length || testRecords.some((record, index) => record.t !== index)) return forged;

  let golds: PyValue[] = [];
  if (callBased) {
    try {
      golds = tests.outputs.map((output) => pythonJsonLoads(output));
    } catch (error) {
      return duringTesting(error instanceof PyException ? error.str() : String(error));
    }
  }
  const result: TestResult[] = [];
  let executionSeconds = 0;
  for (const [index, record] of testRecords.entries()) {
    const input = tests.inputs[index]!;
    const expected = tests.outputs[index]!;
    const inputsText = callBased ? argumentsText(input) : input;
    const expectedText = callBased ? pythonText(golds[index]!) : expected;
    if (record.status === "timeout") {
      result.push(-3);
      return { result, metadata: { error: record.error, error_code: -3, error_message: "Time Limit Exceeded", inputs: truncate(inputsText), expected: truncate(expectedText) } };
    }
    if (record.status === "error") {
      result.push(-4);
      return {
        result,
        metadata: { error: record.error, error_code: -4, error_message: "Runtime Error", inputs: truncate(inputsText), expected: truncate(expectedText), traceback: record.traceback },
      };
    }
    if (record.status !== "ok") return forged;
    if (callBased) {
      const returned = { value: record.value as EncodedValue, json: (record.json ?? null) as string | null, float: (record.float ?? null) as string | null };
      if (!callMatches(returned, golds[index]!)) {
        result.push(false);
        return { result, metadata: { output: truncate(String(record.str)), inputs: truncate(inputsText), expected: truncate(expectedText), error_code: WRONG_ANSWER, error_message: "Wrong Answer" } };
      }
    } else {
      const printed = String(record.stdout);
      let mismatch: string | undefined;
      try {
        mismatch = stdioMismatch(printed, expected);
      } catch (error) {
        // Comparing an sNaN raises in Python, outside any per-test handler: NeMo Gym's whole-run error.
        return duringTesting(error instanceof PyException ? error.str() : String(error));
      }
      if (mismatch !== undefined) {
        result.push(WRONG_ANSWER);
        return { result, metadata: { output: truncate(printed), inputs: truncate(input), expected: truncate(expected), error_code: WRONG_ANSWER, error_message: mismatch } };
      }
    }
    result.push(true);
    executionSeconds += Number(record.seconds) || 0;
  }
  // Every reported test passed. Fewer than all with no end: the run was cut (its clock, a crash, os._exit) before
  // NeMo Gym's grader would have stopped, which is its global timeout.
  if (!ended || testRecords.length < tests.inputs.length || run.timedOut) return everyTest(tests, -1);
  return { result, metadata: { "execution time": executionSeconds } };
}
