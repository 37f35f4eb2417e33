// AIME 2024 (NeMo Gym's benchmarks/aime24/prepare.py): every row of HuggingFaceH4/aime_2024 (split train) as {question, expected_answer}.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  sources: [huggingFace("HuggingFaceH4/aime_2024", "train")],
  convert: (row) => ({ question: row.problem, expected_answer: str(row.answer) }),
});
