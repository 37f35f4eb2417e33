// LiveCodeBench release_v5, contests from 2024-08-01 up to (not including) 2025-03-01 (Aug 2024 – Feb 2025) (NeMo Gym's
// benchmarks/livecodebench/v5_2408_2502/prepare.py): its problems with test cases decoded, LiveCodeBench's prompt fields.
import { definePrepare } from "../../../src/rollouts/prepare/define.ts";
import { addPromptFields, lcbRow, lcbSource } from "../lcb-rows.ts";

export default definePrepare({
  sources: [lcbSource("release_v5")],
  dumps: "orjson",
  convert: (example) => lcbRow(example, { from: "2024-08-01", to: "2025-03-01" }, addPromptFields),
});
