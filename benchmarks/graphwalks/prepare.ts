// GraphWalks (NeMo Gym's benchmarks/graphwalks/prepare.py, after NeMo Skills'): openai/graphwalks' train split with
// Skills' two prompt fixes — a BFS prompt asks for the nodes at exactly that depth, and a parents question's own
// node is dropped from its answer — the prompt's token count recorded (tiktoken o200k_base by default) and rows
// over max_context_tokens dropped (no cap by default). expected_answer is the sorted node list as JSON text.
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { checkTokenizerName, tiktokenCounter, type TokenCounter } from "../../src/rollouts/prepare/tokens.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonJsonDumps } from "../../src/python/json-dumps.ts";
import { compareStrings } from "../../src/python/str.ts";

export interface LongContextArgs extends Record<string, unknown> {
  tokenizer_name: string;
  max_context_tokens: number | bigint | null;
}

const BFS = compilePythonRegex(String.raw`Perform a BFS from node (\S+) with depth (\d+)`);
const BFS_EXACT_DEPTH = String.raw`Perform a BFS from node \1 and return only the nodes at exactly depth \2 (not nodes at intermediate depths)`;
const PARENTS = compilePythonRegex(String.raw`Find the parents of node ([^\s.]+)\.`);

export const graphWalks = (defaults: LongContextArgs) =>
  definePrepare<LongContextArgs, TokenCounter>({
    defaults,
    ensureAscii: false,
    sources: ({ tokenizer_name }) => {
      checkTokenizerName(tokenizer_name, "graphwalks");
      return [huggingFace("openai/graphwalks", "train")];
    },
    setup: ({ tokenizer_name }) => tiktokenCounter(tokenizer_name, "graphwalks"),
    convert: (entry, { args, state: countTokens }) => {
      const prompt: string = BFS.sub(BFS_EXACT_DEPTH, entry.prompt);
      const answerNodes: string[] = [...entry.answer_nodes];
      // list.remove: the first occurrence only.
      const target = PARENTS.search(prompt)?.groups[1];
      if (target !== undefined && answerNodes.includes(target)) answerNodes.splice(answerNodes.indexOf(target), 1);
      const nTokens = countTokens(prompt);
      if (args.max_context_tokens !== null && args.max_context_tokens !== undefined && nTokens > Number(args.max_context_tokens)) return null;
      return {
        responses_create_params: { input: [{ role: "user", content: prompt }] },
        expected_answer: pythonJsonDumps(answerNodes.sort(compareStrings)),
        problem_type: entry.problem_type,
        n_tokens: BigInt(nTokens),
        prompt_chars: entry.prompt_chars,
      };
    },
  });

export default graphWalks({ tokenizer_name: "o200k_base", max_context_tokens: null });
