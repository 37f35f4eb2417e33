// GPQA Diamond (NeMo Gym's benchmarks/gpqa/prepare.py): Idavidrein/gpqa (gated: HF_TOKEN), its four answers
// shuffled by Python's random seeded with the question's MD5 (same order as NeMo Gym's rows), lettered A-D.
import { createHash } from "node:crypto";
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, PythonRandom, uuid5 } from "../../src/python/index.ts";

const LETTERS = ["A", "B", "C", "D"];

export default definePrepare({
  sources: [huggingFace("Idavidrein/gpqa", "train", { config: "gpqa_diamond" })],
  convert: (example) => {
    const question: string = example.Question;
    const choices = [example["Correct Answer"], example["Incorrect Answer 1"], example["Incorrect Answer 2"], example["Incorrect Answer 3"]];
    new PythonRandom(BigInt(`0x${createHash("md5").update(question, "utf8").digest("hex")}`)).shuffle(choices);
    const optionsText = choices.map((text, i) => `${LETTERS[i]}: ${text}`).join("\n");
    return {
      question,
      options_text: optionsText,
      problem: `${question}\n${optionsText}`,
      options: choices.map((text, i) => ({ [LETTERS[i]!]: text })),
      expected_answer: LETTERS[choices.indexOf(example["Correct Answer"])],
      uuid: uuid5(NAMESPACE_URL, question),
    };
  },
});
