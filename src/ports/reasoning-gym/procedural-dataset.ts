// `ProceduralDataset.score_answer`, the scorer of every task that does not override it.
import type { Entry } from "./types.ts";
import { pythonLen } from "../../python/str.ts";

/**
 * 1.0 for the oracle itself; `pythonLen(oracle) / pythonLen(answer)` when the oracle is inside a longer answer; else 0.0.
 * No answer or an empty one is 0.0. A null oracle raises for any other answer (`None in answer` is a
 * TypeError), which NeMo Gym scores 0.0.
 */
export function proceduralScore(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  const oracle = entry.answer;
  if (answer === oracle) return 1;
  if (oracle === null) throw new TypeError("'in <string>' requires string as left operand, not NoneType");
  return answer.includes(oracle) ? pythonLen(oracle) / pythonLen(answer) : 0;
}
