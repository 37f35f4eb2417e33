// MRCR (NeMo Gym's benchmarks/mrcr/prepare.py): openai/mrcr's train split, each row's `prompt` (a JSON list of chat
// messages) as the conversation, its token count (every message's content counted with tiktoken o200k_base by
// default, summed) recorded as n_tokens, rows over max_context_tokens dropped (no cap by default).
import { definePrepare, huggingFace, type Row } from "../../src/rollouts/prepare/define.ts";
import { parsePythonJson } from "../../src/rollouts/prepare/readers.ts";
import { checkTokenizerName, overTokenCap, tiktokenCounter, type LongContextArgs, type TokenCounter } from "../../src/rollouts/prepare/tokens.ts";

export const mrcr = (defaults: LongContextArgs) =>
  definePrepare<LongContextArgs, TokenCounter>({
    defaults,
    sources: ({ tokenizer_name }) => {
      checkTokenizerName(tokenizer_name, "mrcr");
      return [huggingFace("openai/mrcr", "train")];
    },
    setup: ({ tokenizer_name }) => tiktokenCounter(tokenizer_name, "mrcr"),
    convert: (entry, { args, state: countTokens }) => {
      const messages = parsePythonJson(entry.prompt) as Row[];
      const nTokens = messages.reduce((sum, message) => sum + countTokens(message.content), 0);
      if (overTokenCap(args, nTokens)) return null;
      return {
        responses_create_params: { input: messages },
        expected_answer: entry.answer,
        random_string_to_prepend: entry.random_string_to_prepend,
        n_needles: entry.n_needles,
        n_tokens: BigInt(nTokens),
      };
    },
  });

export default mrcr({ tokenizer_name: "o200k_base", max_context_tokens: null });
