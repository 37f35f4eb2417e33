// GraphWalks (NeMo Gym's benchmarks/graphwalks/prepare.py): openai/graphwalks' train split with NeMo-Skills' two
// prompt fixes — the BFS question reworded to ask for the nodes at exactly depth d, and a parents question's target
// removed from its own answer (its first occurrence) — the answer as the JSON list of the sorted nodes, the prompt's
// token count (tiktoken o200k_base by default) recorded, rows over max_context_tokens dropped (no cap by default).
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { checkTokenizerName, overTokenCap, tiktokenCounter, type LongContextArgs, type TokenCounter } from "../../src/rollouts/prepare/tokens.ts";
import { compareStrings, compilePythonRegex, pythonJsonDumps } from "../../src/python/index.ts";

const BFS = compilePythonRegex(String.raw`Perform a BFS from node (\S+) with depth (\d+)`);
const BFS_REWORDED = String.raw`Perform a BFS from node \1 and return only the nodes at exactly depth \2 (not nodes at intermediate depths)`;
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
      const prompt = BFS.sub(BFS_REWORDED, entry.prompt as string);
      const answerNodes = [...(entry.answer_nodes as string[])];
      const target = PARENTS.search(prompt)?.groups[1];
      if (target !== undefined && answerNodes.includes(target)) answerNodes.splice(answerNodes.indexOf(target), 1);
      const nTokens = countTokens(prompt);
      if (overTokenCap(args, nTokens)) return null;
      return {
        responses_create_params: { input: [{ role: "user", content: prompt }] },
        // json.dumps(sorted(nodes)): Python's defaults (ASCII escapes), whatever the row's own dumps does.
        expected_answer: pythonJsonDumps([...answerNodes].sort(compareStrings)),
        problem_type: entry.problem_type,
        n_tokens: BigInt(nTokens),
        prompt_chars: entry.prompt_chars,
      };
    },
  });

export default graphWalks({ tokenizer_name: "o200k_base", max_context_tokens: null });
