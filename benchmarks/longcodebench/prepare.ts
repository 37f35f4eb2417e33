// LongCodeBench's LongCodeQA (NeMo Gym's benchmarks/longcodebench/prepare.py): the JSON files of
// hf://datasets/Steefano/LCB/LongCodeQA.zip, each prompt with the boxed-letter answer instruction appended, its
// token count (tiktoken o200k_base by default) recorded, rows over max_context_tokens dropped (no cap by default).
// The options carry no text: the mcqa server reads only their letters in strict_single_letter_boxed mode.
import { definePrepare, hubFile } from "../../src/rollouts/prepare/define.ts";
import { checkTokenizerName, overTokenCap, tiktokenCounter, type LongContextArgs, type TokenCounter } from "../../src/rollouts/prepare/tokens.ts";
import { NAMESPACE_URL, pythonStrip, uuid5 } from "../../src/python/index.ts";

const POSTFIX = "\n\nThe last line of your response should be in the following format: 'Answer: \\boxed{A/B/C/D}' (e.g. 'Answer: \\boxed{A}').";
const OPTIONS = ["A", "B", "C", "D"].map((letter) => ({ [letter]: "" }));

export const longCodeBench = (defaults: LongContextArgs) =>
  definePrepare<LongContextArgs, TokenCounter>({
    defaults,
    sources: ({ tokenizer_name }) => {
      checkTokenizerName(tokenizer_name, "longcodebench");
      return [hubFile("Steefano/LCB", "LongCodeQA.zip")];
    },
    setup: ({ tokenizer_name }) => tiktokenCounter(tokenizer_name, "longcodebench"),
    convert: (entry, { args, state: countTokens }) => {
      const question = pythonStrip(entry.prompt) + POSTFIX;
      const nTokens = countTokens(question);
      if (overTokenCap(args, nTokens)) return null;
      return {
        question,
        options: OPTIONS,
        expected_answer: entry.correct_letter,
        grading_mode: "strict_single_letter_boxed",
        uuid: uuid5(NAMESPACE_URL, question),
        repo: entry.repo,
        prompt_goal: entry.prompt_goal,
        is_hard: entry.is_hard,
        n_tokens: BigInt(nTokens),
      };
    },
  });

export default longCodeBench({ tokenizer_name: "o200k_base", max_context_tokens: null });
