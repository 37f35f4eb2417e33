// RULER 2 (NeMo Gym's benchmarks/ruler2/prepare.py) is not prepared here; gym eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "its rows are synthesized by the generator scripts in benchmarks/ruler2/sources, run in their own virtualenv and sized with the Nemotron-3-Nano Hugging Face tokenizer, which is not ported; prepare it with NeMo Gym's ng_prepare_benchmark and keep its jsonl_fpath",
  sources: [],
  convert: () => null,
});
