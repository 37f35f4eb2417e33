// HotpotQA closed-book (NeMo Gym's benchmarks/hotpotqa_closedbook/prepare.py): hotpotqa/hotpot_qa's distractor
// validation split, the question alone (no context paragraphs), scored by resources_servers/hotpotqa_qa.
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";

export default definePrepare({
  ensureAscii: false,
  sources: [huggingFace("hotpotqa/hotpot_qa", "validation", { config: "distractor" })],
  convert: (entry) => ({ id: entry.id, question: entry.question, expected_answer: entry.answer, type: entry.type, level: entry.level }),
});
