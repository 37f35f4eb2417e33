// BunsenBench Chemistry MCQ (NeMo Gym's benchmarks/bunsenbench_chemistry_mcq/prepare.py) is not prepared here; gym
// eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "its rows are reconstituted from their source datasets by nvidia/bunsen-bench's own tools/reconstitute.py (Python code downloaded from the Hub at v0.1.4 and run), which is not ported; prepare it with NeMo Gym's ng_prepare_benchmark and keep its jsonl_fpath",
  sources: [],
  convert: () => null,
});
