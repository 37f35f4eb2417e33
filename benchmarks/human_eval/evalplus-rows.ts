// The row NeMo Gym's human_eval and mbpp prepare.py write for one EvalPlus task: the prompt with every four spaces a
// tab (NeMo Skills' "models like tabs more than spaces"), entry point, canonical solution and the task id the
// evalplus server looks its tests up by. EvalPlus's loader reads the release file into a dict keyed by task_id
// and stops on a task lacking one of its keys (its completeness check); the task count is checked after.
import type { Row } from "../../src/rollouts/prepare/define.ts";

const REQUIRED = ["task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input", "atol"];

export function evalPlusRow(problem: Row, dataset: string): Row {
  const missing = REQUIRED.filter((key) => !(key in problem));
  if (missing.length > 0) throw new Error(`${dataset}: task ${String(problem.task_id)} lacks ${missing.join(", ")} (EvalPlus's completeness check)`);
  return {
    question: String(problem.prompt).replaceAll("    ", "\t"),
    entry_point: problem.entry_point,
    canonical_solution: problem.canonical_solution,
    verifier_metadata: { task_id: problem.task_id },
  };
}

/** EvalPlus's dict keeps one task per id (the last one read, at the first one's place); NeMo Gym then counts them. */
export function checkTaskCount(rows: readonly Row[], expected: number, name: string): void {
  const ids = new Set(rows.map((row) => (row.verifier_metadata as Row).task_id));
  if (ids.size !== rows.length) throw new Error(`${name}: the release file repeats a task id; EvalPlus would keep only the last of each`);
  if (rows.length !== expected) throw new Error(`Expected ${expected} ${name} problems, got ${rows.length}`);
}
