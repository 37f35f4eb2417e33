// HumanEval-Infilling (NeMo Gym's benchmarks/human_eval_infilling/prepare.py): openai/human-eval-infilling's
// random-span file (what `human_eval_infilling.data.read_problems("random_span")` downloads), `prompt` renamed
// `prefix`, entry_point and test left out (the code_fim server reads them by task_id).
//
// NeMo Gym's script also writes single_line.jsonl and multi_line.jsonl beside it; no config names those files, and
// this runner writes the one jsonl_fpath the benchmark config names (random_span.jsonl).
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";

const SPLIT = "random_span";

export default definePrepare({
  sources: [url("https://github.com/openai/human-eval-infilling/raw/master/data/HumanEval-RandomSpanInfilling.jsonl.gz", { format: "jsonl.gz" })],
  convert: (problem) => ({
    task_id: problem.task_id,
    prefix: problem.prompt,
    suffix: problem.suffix,
    canonical_solution: problem.canonical_solution,
    language: "python",
    split: SPLIT,
    comment_delimiter: "#",
    verifier_metadata: { task_id: problem.task_id },
  }),
  validate: (rows) => {
    // read_problems keeps one task per id in a dict.
    if (new Set(rows.map((row) => row.task_id)).size !== rows.length) throw new Error("human_eval_infilling: the split file repeats a task id");
  },
});
