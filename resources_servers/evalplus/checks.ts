// EvalPlus's check_correctness on the sandbox, in three kinds of run (harness.py and compare.py say what each does):
//   1. canonical: the task's canonical solution on its base and plus inputs, once per task and kept — the expected
//      outputs and the reference times the time limits come from (EvalPlus's get_groundtruth);
//   2. solution: the model's code on one input set, per-input time limits inside, the whole run under EvalPlus's
//      overall timeout outside; it sends back what each call returned, never a verdict;
//   3. compare: the outputs against the expected ones, in a sandbox with no model code in it.
// A status is EvalPlus's: "pass" iff the run finished and every input matched; "fail" when the code does not load or
// an input failed; "timeout" when the run was killed or ended without finishing (EvalPlus's unknown status).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HttpError } from "../../src/protocol/errors.ts";
import type { SandboxProvider, SandboxResult } from "../../src/sandbox/index.ts";
import { channelFiles, readChannel } from "../../src/ports/python-harness/index.ts";
import type { EvalPlusDataset, EvalPlusProblem } from "./problems.ts";

const source = (file: string) => readFileSync(join(import.meta.dirname, file), "utf8");
const HARNESS = source("harness.py");
const COMPARE = source("compare.py");
const SUPPORT = { "codec.py": source("codec.py"), "inputs.py": source("inputs.py") };

export type SetName = "base_input" | "plus_input";
export type Status = "pass" | "fail" | "timeout";

/** One codec-encoded value (codec.py); opaque here, it is only carried between sandboxes. */
type Encoded = unknown;
type Outcome = { i: number; value?: Encoded; error?: string; timeout?: true };

export interface Expected {
  values: Record<SetName, Encoded[]>;
  times: Record<SetName, number[]>;
}

export interface CheckOptions {
  sandbox: SandboxProvider;
  dataset: EvalPlusDataset;
  minTimeLimit: number;
  gtTimeLimitFactor: number;
  /** The address space of the program (EvalPlus: 4 GiB, at most the machine's memory). */
  memoryBytes: number;
  signal?: AbortSignal;
}

export interface SetResult {
  status: Status;
  /** Per input reached, in order: passed or not (EvalPlus's details). */
  details: boolean[];
}

/** Room for every output of a large input set: the channel carries them all. */
const OUTPUT_BYTES = 64 * 1024 * 1024;
/** The canonical solutions are trusted and unhurried; this only stops a broken one. */
const CANONICAL_WALL_MS = 300_000;

function harnessRun(sandbox: SandboxProvider, program: string, files: Record<string, string>, limits: { wallMs: number; memoryBytes: number }, signal?: AbortSignal) {
  const channel = channelFiles();
  const run = sandbox.run({
    program: { language: "python", source: program },
    files: { ...channel.files, ...SUPPORT, ...files },
    limits: { wallMs: limits.wallMs, cpuMs: limits.wallMs, memoryBytes: limits.memoryBytes, outputBytes: OUTPUT_BYTES, workDirBytes: OUTPUT_BYTES },
    signal,
  });
  return run.then((result) => ({ result, ...readChannel(result.stdout, channel.nonce) }));
}

const harnessFault = (what: string, result: SandboxResult) =>
  new HttpError(500, `evalplus: ${what} (exit ${result.exitCode ?? result.signal}${result.timedOut ? ", timed out" : ""}): ${result.stderr.slice(-2000)}`);

/** The canonical solution's outputs and times on both input sets (EvalPlus's get_groundtruth for one task). */
export async function computeExpected(problem: EvalPlusProblem, options: CheckOptions): Promise<Expected> {
  const job = { mode: "canonical", dataset: options.dataset, code: problem.prompt + problem.canonical_solution, entry_point: problem.entry_point, sets: ["base_input", "plus_input"] };
  const { result, records, foreign } = await harnessRun(
    options.sandbox,
    HARNESS,
    { "job.json": JSON.stringify(job), "problem.json": problem.line },
    { wallMs: CANONICAL_WALL_MS, memoryBytes: options.memoryBytes },
  );
  const sets = new Map(records.map((record) => [record.set as SetName, record]));
  const base = sets.get("base_input");
  const plus = sets.get("plus_input");
  if (foreign || result.exitCode !== 0 || !base || !plus) throw harnessFault(`the canonical solution of ${problem.task_id} did not run to the end`, result);
  return {
    values: { base_input: base.values as Encoded[], plus_input: plus.values as Encoded[] },
    times: { base_input: base.times as number[], plus_input: plus.times as number[] },
  };
}

/** EvalPlus's limits: each input max(min_time_limit, factor · its reference time); the run min(60, their sum) + 3 s. */
export function timeLimits(referenceTimes: number[], options: Pick<CheckOptions, "minTimeLimit" | "gtTimeLimitFactor">) {
  const perInput = referenceTimes.map((t) => Math.max(options.minTimeLimit, options.gtTimeLimitFactor * t));
  const sum = perInput.reduce((a, b) => a + b, 0);
  // timeout = min(60, sum) + 1, plus 1 without fast_check; the parent joins for timeout + 1.
  return { perInput, wallMs: Math.ceil((Math.min(60, sum) + 3) * 1000) };
}

interface SolutionRun {
  outcomes: Outcome[];
  finished: "success" | "failed" | null;
}

async function runSolution(problem: EvalPlusProblem, solution: string, set: SetName, expected: Expected, options: CheckOptions): Promise<SolutionRun> {
  const limits = timeLimits(expected.times[set], options);
  const job = { mode: "solution", dataset: options.dataset, code: solution, entry_point: problem.entry_point, sets: [set], time_limits: limits.perInput };
  const { result, records, foreign } = await harnessRun(
    options.sandbox,
    HARNESS,
    { "job.json": JSON.stringify(job), "problem.json": problem.line },
    { wallMs: limits.wallMs, memoryBytes: options.memoryBytes },
    options.signal,
  );
  // Something on the channel that the harness did not write: the program reached for it. Nothing it sent counts.
  if (foreign) return { outcomes: [], finished: "failed" };
  const outcomes: Outcome[] = [];
  let finished: SolutionRun["finished"] = null;
  for (const record of records) {
    if (record.done === "success" || record.done === "failed") {
      finished = record.done;
      break;
    }
    if (typeof record.i === "number" && record.i === outcomes.length) outcomes.push(record as Outcome);
  }
  // A run the sandbox ended (wall clock, memory, output) never finished, whatever it wrote before.
  if (result.timedOut || result.outputTruncated || result.signal !== null) finished = null;
  return { outcomes, finished };
}

async function compare(problem: EvalPlusProblem, expected: Expected, runs: Partial<Record<SetName, SolutionRun>>, options: CheckOptions): Promise<Partial<Record<SetName, boolean[]>>> {
  const sets: Record<string, { expected: Encoded[]; outcomes: Outcome[] }> = {};
  for (const [set, run] of Object.entries(runs) as [SetName, SolutionRun][]) {
    if (run.outcomes.length > 0) sets[set] = { expected: expected.values[set], outcomes: run.outcomes };
  }
  if (Object.keys(sets).length === 0) return {};
  const job = { dataset: options.dataset, entry_point: problem.entry_point, sets };
  const { result, records, foreign } = await harnessRun(
    options.sandbox,
    COMPARE,
    { "job.json": JSON.stringify(job), "problem.json": problem.line },
    { wallMs: CANONICAL_WALL_MS, memoryBytes: options.memoryBytes },
    options.signal,
  );
  const details = records[0]?.details as Partial<Record<SetName, boolean[]>> | undefined;
  if (foreign || result.exitCode !== 0 || !details) throw harnessFault(`comparing the outputs of ${problem.task_id} failed`, result);
  return details;
}

function status(run: SolutionRun, details: boolean[], inputs: number): Status {
  if (run.finished === null) return "timeout";
  if (run.finished === "failed") return "fail";
  return details.length === inputs && details.every(Boolean) ? "pass" : "fail";
}

/** Base then plus, as check_correctness(base_only=False) runs them; each set is its own run under its own timeout. */
export async function checkCorrectness(problem: EvalPlusProblem, solution: string, expected: Expected, options: CheckOptions): Promise<Record<"base" | "plus", SetResult>> {
  const base = await runSolution(problem, solution, "base_input", expected, options);
  const plus = await runSolution(problem, solution, "plus_input", expected, options);
  const details = await compare(problem, expected, { base_input: base, plus_input: plus }, options);
  const baseDetails = details.base_input ?? base.outcomes.map(() => false);
  const plusDetails = details.plus_input ?? plus.outcomes.map(() => false);
  return {
    base: { status: status(base, baseDetails, problem.base_inputs), details: baseDetails },
    plus: { status: status(plus, plusDetails, problem.plus_inputs), details: plusDetails },
  };
}
