// Grading one answer (NeMo Gym's ccc_eval): the C++ program is extracted, then every test of the row's subtask (or of
// the whole problem) runs in a sandbox of its own: the grader files, the program at graders/<problem_id>.cpp,
// input.txt and correct_output.txt; compile.sh, and, when it wrote nothing to stderr, run.sh, whose stdout is the test's
// score (a float; anything else is 0). A `min` subtask stops at its first test below 1 (unless every test must run).
import { Buffer } from "node:buffer";
import type { SandboxProvider } from "../../src/sandbox/index.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { pythonRound } from "../../src/python/float.ts";
import type { Problem, Subtask } from "./metadata.ts";

/** Runs inside each test's sandbox: compile (its stdout/stderr reported first, base64 on stderr's first two lines,
 * before any program of the answer runs), then run.sh with its stdout as this run's stdout. */
const GRADE_SH = `mkdir -p graders tmp
chmod +x compile.sh run.sh
timeout -s KILL 120 ./compile.sh >.compile.out 2>.compile.err
printf '%s\\n%s\\n' "$(base64 -w0 .compile.out)" "$(base64 -w0 .compile.err)" >&2
if [ -s .compile.err ]; then exit 0; fi
export TMPDIR="$PWD/tmp"
TIME_LIMIT_SCALE="$1" exec timeout -s KILL "$2" ./run.sh
`;

export interface TestOutcome {
  compile_success: boolean;
  compile_stdout: string;
  compile_stderr: string;
  run_stdout: string;
  run_stderr: string;
  error: string;
  score: number;
  run_time_s?: number;
  test_name?: string;
  test_group?: string;
}

/** The last ```<lang> block (any case), or the whole text when there is none. */
export function finalCodeBlock(text: string, langs: string[]): string {
  const pattern = new RegExp("```(?:" + langs.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + ")\\s*\\n([\\s\\S]*?)```", "gi");
  const matches = [...text.matchAll(pattern)].map((m) => m[1]!);
  return matches.at(-1) ?? text;
}

/** `#include <bits/stdc++.h>` (and the problem's header) and `using namespace std;` when the code lacks them. */
export function addIncludes(code: string, headerInclude: string | undefined, problemId: string): string {
  if (code === "") return code;
  let header = "#include <bits/stdc++.h>\n";
  if (headerInclude && !code.includes(`#include "${headerInclude}"`)) header += `#include "${headerInclude}"\n`;
  if (!code.includes("using namespace std;") && !code.includes("std::")) header += "\nusing namespace std;\n\n";
  let dummy = "";
  if (problemId === "triples") {
    const count = /\bcount_triples\s*\(/.test(code);
    const construct = /\bconstruct_range\s*\(/.test(code);
    if (construct && !count) dummy = "long long count_triples(std::vector<int> H){return 0LL;}\n";
    else if (count && !construct) dummy = "std::vector<int> construct_range(int M,int K){return {};}\n";
  }
  return header + code + (dummy ? "\n" + dummy : code.endsWith("\n") ? "" : "\n");
}

/** Some run.sh hold FIFOs open: a kill of the solution goes before each `wait "$user_pid"` that has none. */
export function patchRunSh(run: string): string {
  return run.replace(/([ \t]*)wait "\$user_pid"/g, (match, indent: string, offset: number, whole: string) =>
    whole.slice(Math.max(0, offset - 60), offset).includes("kill") ? match : `${indent}kill "$user_pid" 2>/dev/null || true\n${match}`,
  );
}

function taskType(problem: Problem): string {
  const config = problem.grader_files.find(([path]) => path === "graders/grader_config.json");
  try {
    return String(JSON.parse(config?.[1] ?? "{}").task_type ?? "Batch");
  } catch {
    return "Batch";
  }
}

export function extractSolution(problem: Problem, problemId: string, generation: string): { code: string; simulation: boolean } {
  const type = taskType(problem);
  if (type === "SIMULATION") return { code: finalCodeBlock(generation, ["txt", "text", "plain"]), simulation: true };
  if (type === "MULTIFILE") return { code: finalCodeBlock(generation, ["cpp"]), simulation: false };
  return { code: addIncludes(finalCodeBlock(generation, ["cpp"]), problem.problem_header_include, problemId), simulation: false };
}

export interface GradeOptions {
  sandbox: SandboxProvider;
  timeScale: number;
  runAllTests: boolean;
  testBatchSize: number;
  signal?: AbortSignal;
}

const latin1 = (text: string) => Buffer.from(text, "latin1");
const fromBase64 = (text: string | undefined) => Buffer.from(text ?? "", "base64").toString("utf8");

async function runTest(problem: Problem, problemId: string, solution: { code: string; simulation: boolean }, test: { input: string; output: string }, timeScale: number, options: GradeOptions): Promise<TestOutcome> {
  const files: Record<string, string | Uint8Array> = { "compile.sh": problem.compile, "run.sh": patchRunSh(problem.run), "input.txt": latin1(test.input), "correct_output.txt": latin1(test.output) };
  for (const [path, content] of problem.grader_files) files[path] = content;
  files[solution.simulation ? "solution.odo" : `graders/${problemId}.cpp`] = solution.code;
  const runSeconds = Math.max(30, Math.trunc(30 * timeScale));
  const run = await options.sandbox.run({
    program: { language: "cpp-grader", source: GRADE_SH, args: [String(timeScale), String(runSeconds)] },
    files,
    limits: { wallMs: (120 + runSeconds + 5) * 1000, cpuMs: (120 + runSeconds) * 1000, memoryBytes: 2 * 1024 ** 3, processes: 128 },
    signal: options.signal,
  });
  const [compileOut, compileErr, ...runStderr] = run.stderr.split("\n");
  const outcome: TestOutcome = { compile_success: compileErr === "", compile_stdout: fromBase64(compileOut), compile_stderr: fromBase64(compileErr), run_stdout: "", run_stderr: "", error: "", score: 0 };
  if (compileErr === undefined) return { ...outcome, compile_success: false, error: run.timedOut ? "compilation timed out" : `the sandbox ended before compiling (${run.signal ?? run.exitCode})` };
  if (!outcome.compile_success) return outcome;
  outcome.run_time_s = run.wallMs / 1000;
  // A killed run (its time limit) has no score, whatever it printed before.
  if (run.timedOut || run.exitCode === 137) return { ...outcome, run_stderr: runStderr.join("\n"), error: "time limit" };
  outcome.run_stdout = run.stdout;
  outcome.run_stderr = runStderr.join("\n");
  try {
    outcome.score = pythonFloat(run.stdout.trim());
  } catch {
    outcome.score = 0;
  }
  if (Number.isNaN(outcome.score)) outcome.score = 0;
  return outcome;
}

function aggregate(subtask: Subtask, outputs: TestOutcome[], failed: boolean): number {
  if (subtask.aggregation === "sum_tests") return outputs.filter((o) => o.score > 0).length;
  if (failed) return 0;
  const scores = outputs.map((o) => o.score);
  return pythonRound((scores.length > 0 ? Math.min(...scores) : 0) * subtask.score, Math.max(0, Math.trunc(subtask.score_precision)));
}

export interface Evaluation {
  name: string;
  subtask: string | null;
  test_case_results: Record<string, { score: number; outputs: TestOutcome[] }>;
  num_tests_run: number;
  total_test_execution_time_s: number;
  mean_test_execution_time_s: number;
}

export async function evaluate(entry: { name: string; problemId: string; subtask: string | null; generation: string; totalTime?: number }, problem: Problem, options: GradeOptions): Promise<Evaluation> {
  const solution = extractSolution(problem, entry.problemId, entry.generation);
  const timeScale = options.timeScale * ((entry.totalTime ?? 0) > 300 ? 0.5 : 1);
  const state = new Map(Object.entries(problem.subtasks).map(([name, subtask]) => [name, { subtask, outputs: [] as TestOutcome[], failed: false }]));
  const subtasksOf = new Map<string, string[]>();
  for (const [name, subtask] of Object.entries(problem.subtasks)) for (const test of subtask.test_names) subtasksOf.set(test, [...(subtasksOf.get(test) ?? []), name]);

  let tests = Object.entries(problem.all_tests);
  if (entry.subtask && entry.subtask in problem.subtasks) {
    const wanted = new Set(problem.subtasks[entry.subtask]!.test_names);
    tests = tests.filter(([name]) => wanted.has(name));
  }
  const runTimes: number[] = [];
  for (let start = 0; start < tests.length; start += options.testBatchSize) {
    const batch = tests.slice(start, start + options.testBatchSize).filter(([name]) =>
      options.runAllTests || (subtasksOf.get(name) ?? []).some((subtask) => state.get(subtask)!.subtask.aggregation === "sum_tests" || !state.get(subtask)!.failed),
    );
    const outcomes = await Promise.all(batch.map(([, test]) => runTest(problem, entry.problemId, solution, test, timeScale, options)));
    for (const [index, [name, test]] of batch.entries()) {
      const outcome = outcomes[index]!;
      if (outcome.run_time_s !== undefined) runTimes.push(outcome.run_time_s);
      outcome.test_name = name;
      if (test.group !== undefined) outcome.test_group = test.group;
      for (const subtask of subtasksOf.get(name) ?? []) {
        const s = state.get(subtask)!;
        if (!options.runAllTests && s.subtask.aggregation === "min" && s.failed) continue;
        s.outputs.push({ ...outcome });
        if (s.subtask.aggregation === "min" && outcome.score < 1) s.failed = true;
      }
    }
  }
  const results: Evaluation["test_case_results"] = {};
  for (const [name, s] of state) results[name] = { score: aggregate(s.subtask, s.outputs, s.failed), outputs: s.outputs };
  const total = runTimes.reduce((a, b) => a + b, 0);
  return { name: entry.name, subtask: entry.subtask, test_case_results: results, num_tests_run: runTimes.length, total_test_execution_time_s: total, mean_test_execution_time_s: runTimes.length ? total / runTimes.length : 0 };
}
