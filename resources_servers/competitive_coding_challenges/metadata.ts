// test_metadata.jsonl: per competition, per problem, what grading needs — grader files, compile.sh and run.sh, every
// test's input and expected output, and the subtasks (which tests, how their scores aggregate, what they are worth).
// Each line is {competition_id | competition, metadata | problems: {problem_id: problem}}. A problem is either
// normalized ({compile, run, grader_files, subtasks, all_tests}) or the older per-subtask form
// ({subtask: {compile, run, grader_files, tests, score}}), which is normalized here as NeMo Gym does.
import { existsSync, readFileSync } from "node:fs";
import { HttpError } from "../../src/protocol/errors.ts";

export interface Subtask {
  aggregation: "min" | "sum_tests";
  score: number;
  score_precision: number;
  test_names: string[];
}

export interface Problem {
  name: string;
  compile: string;
  run: string;
  grader_files: [string, string][];
  subtasks: Record<string, Subtask>;
  all_tests: Record<string, { input: string; output: string; group?: string }>;
  problem_header_include?: string;
}

type Raw = Record<string, any>;

function normalize(problemId: string, raw: Raw): Problem {
  if ("subtasks" in raw && "all_tests" in raw) return raw as Problem;
  const problem: Problem = { name: raw.name ?? problemId, compile: "", run: "", grader_files: [], subtasks: {}, all_tests: {} };
  for (const [subtaskName, subtask] of Object.entries(raw)) {
    if (subtask === null || typeof subtask !== "object" || Array.isArray(subtask)) continue;
    problem.compile ||= subtask.compile ?? "";
    problem.run ||= subtask.run ?? "";
    if (problem.grader_files.length === 0) problem.grader_files = subtask.grader_files ?? [];
    const names = Object.keys(subtask.tests ?? {});
    for (const name of names) {
      const test = subtask.tests[name];
      problem.all_tests[name] ??= { input: test.input, output: test.output, group: name.startsWith("sample") ? "sample" : "secret" };
    }
    problem.subtasks[subtaskName] = { aggregation: "min", score: Number(subtask.score || subtask.subtask_score || 0), score_precision: Number(subtask.score_precision ?? 0), test_names: names };
  }
  return problem;
}

export class TestMetadata {
  private constructor(private readonly byCompetition: Map<string, Map<string, Problem>>) {}

  /** Reads the file; a missing file is a 501 naming it (nothing can be graded, and no reward may stand in for that). */
  static load(path: string): TestMetadata {
    if (!existsSync(path)) {
      throw new HttpError(501, `competitive_coding_challenges: the test metadata file ${path} does not exist. Set test_file (or CCC_TEST_FILE) to a test_metadata.jsonl holding each problem's grader files, compile/run scripts and tests; NeMo Gym's data for this environment is not public`);
    }
    const byCompetition = new Map<string, Map<string, Problem>>();
    for (const [index, line] of readFileSync(path, "utf8").split("\n").entries()) {
      if (line.trim() === "") continue;
      let entry: Raw;
      try {
        entry = JSON.parse(line);
      } catch (error) {
        throw new HttpError(501, `competitive_coding_challenges: ${path}:${index + 1} is not JSON (${(error as Error).message})`);
      }
      const competition = String(entry.competition_id ?? entry.competition ?? "");
      const problems = byCompetition.get(competition) ?? new Map<string, Problem>();
      for (const [problemId, raw] of Object.entries((entry.metadata ?? entry.problems ?? {}) as Raw)) problems.set(problemId, normalize(problemId, raw));
      byCompetition.set(competition, problems);
    }
    return new TestMetadata(byCompetition);
  }

  /** The problem, by competition when given (else the only competition holding it); a 501 naming what is missing. */
  problem(problemId: string, competitionId: string | null | undefined): Problem {
    const missing = (what: string) => new HttpError(501, `competitive_coding_challenges: ${what} is not in the test metadata, so this row cannot be graded`);
    if (competitionId) {
      const problems = this.byCompetition.get(competitionId);
      if (!problems) throw missing(`competition '${competitionId}' (problem '${problemId}'; competitions there: ${[...this.byCompetition.keys()].filter(Boolean).sort().join(", ") || "none"})`);
      const problem = problems.get(problemId);
      if (!problem) throw missing(`problem '${problemId}' of competition '${competitionId}' (problems there: ${[...problems.keys()].sort().join(", ")})`);
      return problem;
    }
    const matches = [...this.byCompetition.entries()].filter(([, problems]) => problems.has(problemId));
    if (matches.length === 0) throw missing(`problem '${problemId}'`);
    if (matches.length > 1) throw new HttpError(422, `competitive_coding_challenges: problem '${problemId}' exists in several competitions (${matches.map(([c]) => c).join(", ")}); the row must name its competition_id`);
    return matches[0]![1].get(problemId)!;
  }
}
