// LongBench v2 (NeMo Gym's benchmarks/longbench_v2/prepare.py): THUDM/LongBench-v2's one split of 503 long-context
// questions, every field kept, the context's token count (tiktoken o200k_base by default) recorded, rows over
// max_context_tokens dropped (no cap by default), plus the options and grading mode the mcqa server reads.
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { checkTokenizerName, overTokenCap, tiktokenCounter, type LongContextArgs, type TokenCounter } from "../../src/rollouts/prepare/tokens.ts";

export const longBenchV2 = (defaults: LongContextArgs) =>
  definePrepare<LongContextArgs, TokenCounter>({
    defaults,
    ensureAscii: false,
    sources: ({ tokenizer_name }) => {
      checkTokenizerName(tokenizer_name, "longbench_v2");
      return [huggingFace("THUDM/LongBench-v2", "train")];
    },
    setup: ({ tokenizer_name }) => tiktokenCounter(tokenizer_name, "longbench_v2"),
    convert: (entry, { args, state: countTokens }) => {
      const contextTokens = countTokens(entry.context);
      if (overTokenCap(args, contextTokens)) return null;
      return {
        index: entry._id,
        context: entry.context,
        question: entry.question,
        choice_A: entry.choice_A,
        choice_B: entry.choice_B,
        choice_C: entry.choice_C,
        choice_D: entry.choice_D,
        expected_answer: entry.answer,
        domain: entry.domain,
        sub_domain: entry.sub_domain,
        difficulty: entry.difficulty,
        length: entry.length,
        context_tokens: BigInt(contextTokens),
        options: [{ A: entry.choice_A }, { B: entry.choice_B }, { C: entry.choice_C }, { D: entry.choice_D }],
        grading_mode: "strict_single_letter_boxed",
      };
    },
  });

export default longBenchV2({ tokenizer_name: "o200k_base", max_context_tokens: null });
