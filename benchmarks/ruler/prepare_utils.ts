// RULER (NeMo Gym's benchmarks/ruler/prepare_utils.py) is not prepared here; gym eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "its rows are synthesized by NeMo Skills' RULER generator (a Python subprocess) sized with the model's Hugging Face tokenizer (prepare(model, length) has no defaults), which is not ported; prepare it with NeMo Gym's ng_prepare_benchmark and keep its jsonl_fpath",
  sources: [],
  convert: () => null,
});
