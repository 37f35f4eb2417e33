// IFBench (NeMo Gym's benchmarks/ifbench/prepare.py): AllenAI's IFBench_test.jsonl from GitHub, one row per
// line with its position as `id`, graded "fraction" (the share of a prompt's instructions followed).
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [url("https://raw.githubusercontent.com/allenai/IFBench/refs/heads/main/data/IFBench_test.jsonl")],
  convert: (entry, { index }) => ({
    id: BigInt(index),
    instruction_id_list: entry.instruction_id_list,
    prompt: entry.prompt,
    kwargs: entry.kwargs,
    grading_mode: "fraction",
  }),
});
