// Spider2-Lite (NeMo Gym's benchmarks/spider2_lite/prepare.py) is not prepared here; gym eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "its rows come from a clone of github.com/xlang-ai/Spider2 and schemas read from its SQLite databases on Google Drive (file 1coEVsCZq-Xvj9p2TnhBFoFTsY-UoYGmG), which is not reproduced here yet; prepare it with NeMo Gym's ng_prepare_benchmark and keep its jsonl_fpath",
  sources: [],
  convert: () => null,
});
