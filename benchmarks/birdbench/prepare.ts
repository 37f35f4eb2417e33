// BIRD (NeMo Gym's benchmarks/birdbench/prepare.py) is not prepared here; gym eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "each row embeds Python sqlite3's iterdump() of its BIRD dev database (from the 1.4 GB https://bird-bench.oss-cn-beijing.aliyuncs.com/dev.zip), which is not reproduced here yet; prepare it with NeMo Gym's ng_prepare_benchmark and keep its jsonl_fpath",
  sources: [],
  convert: () => null,
});
