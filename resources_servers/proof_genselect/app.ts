// Pairwise proof selection (NeMo Gym's proof_genselect): the policy reads a problem and two candidate proofs and
// names the better one as `<best_solution>1</best_solution>` or `…2…`. No LLM judge: the tag is parsed.
// Rules, as NeMo Gym's ProofGenSelectResourcesServer:
// - the text is every output_text part of the assistant messages, joined; none at all is reward 0.0;
// - with assert_think_end a text without `</think>` selects nothing; the text after the last `</think>` is read;
// - the selection is what lies between the first `<best_solution>` and the next `</best_solution>`, read by Python's
//   int() (whitespace, a sign, `_` between digits, any script's digits), and must be 1 or 2;
// - reward 1.0 iff it equals the row's `correct_index`. The response is NeMo Gym's base one: params, response, reward.
// PROOF_GENSELECT_LOG_JSONL_PATH, when set, gets one JSON line per scored answer (NeMo Gym's log).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { afterThinking, appendProofLog, assistantText } from "../../src/ports/proof-grading.ts";
import { pythonIntBig } from "../../src/python/numbers.ts";
import { ValueError } from "../../src/python/exception.ts";

export type SelectionFailure = "missing_think_end" | "missing_best_solution_tag" | "invalid_best_solution_value" | "best_solution_out_of_range";

/** The proof a selector's answer picks (1 or 2), or why it picks none. */
export function extractBestSolution(text: string, assertThinkEnd: boolean): { index: bigint } | { reason: SelectionFailure } {
  const answer = afterThinking(text, assertThinkEnd);
  if (answer === null) return { reason: "missing_think_end" };
  const open = answer.indexOf("<best_solution>");
  if (open === -1 || !answer.includes("</best_solution>")) return { reason: "missing_best_solution_tag" };
  const inner = answer.slice(open + "<best_solution>".length);
  const close = inner.indexOf("</best_solution>");
  let index: bigint;
  try {
    // `.split("</best_solution>", 1)[0]`: all of it when the closing tag only comes before the opening one.
    index = pythonIntBig(close === -1 ? inner : inner.slice(0, close));
  } catch (error) {
    if (error instanceof ValueError) return { reason: "invalid_best_solution_value" };
    throw error;
  }
  return index === 1n || index === 2n ? { index } : { reason: "best_solution_out_of_range" };
}

export default resourcesServer({
  name: "ProofGenSelectResourcesServer",
  config: z.looseObject({ assert_think_end: z.boolean().default(false) }),
  tools: {},
  verify: {
    input: z.object({
      problem: z.string(),
      proof_1: z.string(),
      proof_2: z.string(),
      correct_index: z.number().int(),
      score_1: z.number().nullish(),
      score_2: z.number().nullish(),
    }),
    run(_state, body, { config, server }) {
      const fullResponse = assistantText(body.response);
      if (!fullResponse) return 0.0;
      const selection = extractBestSolution(fullResponse, config.assert_think_end);
      const selectedIndex = "index" in selection ? selection.index : null;
      const reward = selectedIndex !== null && selectedIndex === BigInt(body.correct_index) ? 1.0 : 0.0;
      const details = { selected_index: selectedIndex, correct_index: BigInt(body.correct_index), ...("reason" in selection ? { reason: selection.reason } : {}) };
      appendProofLog(process.env.PROOF_GENSELECT_LOG_JSONL_PATH, { problem: body.problem, generated_sequence: fullResponse, reward, ...details }, server.log);
      return reward;
    },
  },
});
