// HMMT February 2025 (NeMo Gym's benchmarks/hmmt_feb25/prepare.py): every row of MathArena/hmmt_feb_2025 (split train) as {question, expected_answer}.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [huggingFace("MathArena/hmmt_feb_2025", "train")],
  convert: (row) => ({ question: row.problem, expected_answer: str(row.answer) }),
});
