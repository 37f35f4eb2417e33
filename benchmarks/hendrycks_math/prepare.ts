// The MATH test split, 5000 problems (NeMo Gym's benchmarks/hendrycks_math/prepare.py): Qwen2.5-Math's copy
// from GitHub, every field kept; answer → expected_answer, and the problem text ends up in `question`.
import { definePrepare, url } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [url("https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/refs/heads/main/evaluation/data/math/test.jsonl")],
  convert: (source) => {
    // Python's pop-and-reassign moves a key to the end; delete-then-set does the same here.
    const entry = { ...source };
    if ("answer" in entry) entry.expected_answer = take(entry, "answer");
    if (!("problem" in entry)) entry.problem = take(entry, "question");
    entry.question = take(entry, "problem");
    return entry;
  },
});

function take(entry: Record<string, unknown>, key: string): unknown {
  if (!(key in entry)) throw new Error(`hendrycks_math: a row has no '${key}'`);
  const value = entry[key];
  delete entry[key];
  return value;
}
