// HumanEval+ (NeMo Gym's benchmarks/human_eval/prepare.py): EvalPlus's HumanEvalPlus release v0.1.10 (what
// `evalplus.data.get_human_eval_plus()` downloads), one row per task; exactly 164 tasks or it stops.
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";
import { checkTaskCount, evalPlusRow } from "./evalplus-rows.ts";

export default definePrepare({
  sources: [url("https://github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz", { format: "jsonl.gz" })],
  convert: (problem) => evalPlusRow(problem, "HumanEval+"),
  validate: (rows) => checkTaskCount(rows, 164, "HumanEval+"),
});
