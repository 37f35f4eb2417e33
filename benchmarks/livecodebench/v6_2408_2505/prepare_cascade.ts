// LiveCodeBench release_v6, contests from 2024-08-01 up to (not including) 2025-06-01 (NeMo Gym's
// benchmarks/livecodebench/v6_2408_2505/prepare_cascade.py): as prepare.ts, with Nemotron Cascade's prompt fields.
import { definePrepare } from "../../../src/rollouts/prepare/define.ts";
import { addCascadePromptFields, lcbRow, lcbSource } from "../lcb-rows.ts";

export default definePrepare({
  sources: [lcbSource("release_v6")],
  dumps: "orjson",
  convert: (example) => lcbRow(example, { from: "2024-08-01", to: "2025-06-01" }, addCascadePromptFields),
});
