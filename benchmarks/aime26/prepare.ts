// AIME 2026 (NeMo Gym's benchmarks/aime26/prepare.py): every row of MathArena/aime_2026 (split train) as {question, expected_answer}.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [huggingFace("MathArena/aime_2026", "train")],
  convert: (row) => ({ question: row.problem, expected_answer: str(row.answer) }),
});
