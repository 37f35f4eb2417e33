// APEX Shortlist (NeMo Gym's benchmarks/apex_shortlist/prepare.py): every row of MathArena/apex-shortlist (split train) as {question, expected_answer}.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [huggingFace("MathArena/apex-shortlist", "train")],
  convert: (row) => ({ question: row.problem, expected_answer: str(row.answer) }),
});
