// MATH-500 (NeMo Gym's benchmarks/math-500/prepare.py): PRM800K's 500-problem test split from GitHub, every
// field kept, plus question (= problem), expected_answer (was answer) and reference_solution (was solution).
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  ensureAscii: false,
  sources: [url("https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl")],
  convert: (entry) => {
    const problem = "problem" in entry ? entry.problem : entry.question;
    if (problem === null || problem === undefined) throw new Error("Expected `problem` or `question` in Math-500 row");
    const row: Record<string, unknown> = { ...entry, question: problem, problem };
    for (const [from, to] of [["answer", "expected_answer"], ["solution", "reference_solution"]] as const) {
      if (!(from in row)) throw new Error(`math-500: a row has no '${from}'`);
      const value = row[from];
      delete row[from];
      row[to] = value;
    }
    return row;
  },
});
