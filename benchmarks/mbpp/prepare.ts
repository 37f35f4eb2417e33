// MBPP+ (NeMo Gym's benchmarks/mbpp/prepare.py): EvalPlus's MbppPlus release v0.2.0 (what
// `evalplus.data.get_mbpp_plus()` downloads), one row per task; exactly 378 tasks or it stops.
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";
import { checkTaskCount, evalPlusRow } from "../human_eval/evalplus-rows.ts";

export default definePrepare({
  sources: [url("https://github.com/evalplus/mbppplus_release/releases/download/v0.2.0/MbppPlus.jsonl.gz", { format: "jsonl.gz" })],
  convert: (problem) => evalPlusRow(problem, "MBPP+"),
  validate: (rows) => checkTaskCount(rows, 378, "MBPP+"),
});
