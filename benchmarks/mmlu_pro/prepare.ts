// MMLU-Pro test split (NeMo Gym's benchmarks/mmlu_pro/prepare.py): TIGER-Lab/MMLU-Pro, up to ten options
// lettered A-J; the uuid comes from question and options (the same question recurs with other options).
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";

const LETTERS = "ABCDEFGHIJ".split("");

export default definePrepare({
  sources: [huggingFace("TIGER-Lab/MMLU-Pro", "test")],
  convert: (example) => {
    const choices: string[] = example.options;
    if (choices.length > LETTERS.length) throw new Error(`mmlu_pro: ${choices.length} options, at most ${LETTERS.length} expected`);
    const optionsText = choices.map((text, i) => `${LETTERS[i]}) ${text}`).join("\n");
    const seed = pythonJsonDumpsTyped({ question: example.question, options: choices }, { sortKeys: true });
    return {
      question: example.question,
      options_text: optionsText,
      problem: `${pythonStrip(example.question, "\n")}\n\n${optionsText}`,
      options: choices.map((text, i) => ({ [LETTERS[i]!]: text })),
      expected_answer: example.answer,
      category: example.category,
      uuid: uuid5(NAMESPACE_URL, seed),
    };
  },
});
