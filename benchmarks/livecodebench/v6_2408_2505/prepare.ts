// LiveCodeBench release_v6, contests from 2024-08-01 up to (not including) 2025-06-01 (Aug 2024 – May 2025) (NeMo Gym's
// benchmarks/livecodebench/v6_2408_2505/prepare.py): its problems with test cases decoded, LiveCodeBench's prompt fields.
import { definePrepare } from "../../../src/rollouts/prepare/define.ts";
import { addPromptFields, lcbRow, lcbSource } from "../lcb-rows.ts";

export default definePrepare({
  sources: [lcbSource("release_v6")],
  dumps: "orjson",
  convert: (example) => lcbRow(example, { from: "2024-08-01", to: "2025-06-01" }, addPromptFields),
});
