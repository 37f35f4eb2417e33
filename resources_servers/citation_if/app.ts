// citation_if: citation instruction following for search-grounded answers. The row's `verifier` names the citation
// grammar ([ref:ID], <cite>ID</cite>, 【ID】, …), the id scheme and the valid (and, when known, gold) ids; the final
// answer passes a sequence of gates (scorer.ts) or scores 0, and match_details says which gate failed. Any tool call
// is answered with a fixed "no further results" text: with max_steps 1 the rollout ends there and fails gate 0.
import { z } from "zod";
import { HttpError, resourcesServer } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { UnsupportedPythonRegexError } from "../../src/python/re/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { scoreCitationIf, TERMINAL_TOOL_RESPONSE } from "./scorer.ts";

/** The assistant messages' text parts joined by newlines, stripped, and how many function calls the output has. */
export function responseShape(response: NeMoGymResponse): { text: string; functionCalls: number } {
  const parts: string[] = [];
  let functionCalls = 0;
  for (const item of response.output as unknown[]) {
    if (item === null || typeof item !== "object") continue;
    const { type, role, content } = item as { type?: unknown; role?: unknown; content?: unknown };
    if (type === "function_call") functionCalls++;
    if (type !== "message" || role !== "assistant" || !Array.isArray(content)) continue;
    for (const block of content as unknown[]) {
      const { type: blockType, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      if (block !== null && typeof block === "object" && (blockType === "output_text" || blockType === "text") && typeof text === "string") parts.push(text);
    }
  }
  return { text: pythonStrip(parts.filter((part) => part !== "").join("\n")), functionCalls };
}

export default resourcesServer({
  name: "CitationIfResourcesServer",
  tools: {},
  // NeMo Gym's catch-all POST /{tool_name}: any tool answers the terminal text, as text/plain.
  unknownTool: { run: () => TERMINAL_TOOL_RESPONSE },
  verify: {
    input: z.object({ verifier: z.record(z.string(), z.unknown()) }),
    run(_state, { response, verifier }) {
      const { text, functionCalls } = responseShape(response);
      try {
        const { reward, details } = scoreCitationIf(text, functionCalls, verifier);
        return { reward, verifier, match_details: details };
      } catch (error) {
        // NeMo Gym would score the row: a pattern this port cannot translate is a typed failure, not a verdict.
        if (error instanceof UnsupportedPythonRegexError) throw new HttpError(501, `verifier.id_regex ${JSON.stringify(verifier.id_regex)}: ${error.message}`);
        throw error;
      }
    },
  },
});
