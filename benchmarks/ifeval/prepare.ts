// IFEval (NeMo Gym's benchmarks/ifeval/prepare.py): google-research's input_data.jsonl from GitHub; each
// prompt becomes the user message of responses_create_params, and verifier_metadata carries what the
// instruction_following server checks, graded "binary" (prompt-level strict accuracy, as the paper reports).
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [url("https://raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl")],
  convert: (entry, { index }) => ({
    id: BigInt(index),
    responses_create_params: { input: [{ role: "user", content: entry.prompt }], tools: [], parallel_tool_calls: false },
    verifier_metadata: { prompt: entry.prompt, instruction_id_list: entry.instruction_id_list, kwargs: entry.kwargs, grading_mode: "binary" },
  }),
});
