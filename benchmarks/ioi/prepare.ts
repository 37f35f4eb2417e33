// IOI 2024 (NeMo Gym's benchmarks/ioi/prepare.py) is not prepared here; gym eval prepare says why in one line.
import { definePrepare } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  refuse:
    "NeMo Gym's script also writes data/ioi24_metadata.json (the server's test_file: open-r1/ioi-test-cases with huggingface/ioi's run and compile scripts from an unpinned branch), a second output this runner does not write yet; prepare it with NeMo Gym's ng_prepare_benchmark and keep both files",
  sources: [],
  convert: () => null,
});
