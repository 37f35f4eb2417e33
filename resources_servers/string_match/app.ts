// General-purpose string matching (NeMo Gym's StringMatchResourcesServer): a candidate answer is pulled out of the
// assistant's text by the row's `extraction_mode`, then compared with `expected_answer` — exactly (after strip)
// when `case_sensitive`, else by NeMo RL's string-match grader (grade.ts). No tools, no judge.
// - The text: every text part of every assistant message, joined with "\n", stripped.
// - Reward 0.0 when nothing was extracted or expected_answer is empty; else the grade (1.0, 0.98 or 0.0).
// - The response carries expected_answer and extracted_answer (null when nothing was extracted).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { answersMatch, extractAnswer, EXTRACTION_MODES } from "./grade.ts";

/** NeMo Gym's _extract_last_assistant_text: despite the name, every assistant message's texts, one per line. */
export function assistantText(response: Pick<NeMoGymResponse, "output">): string {
  const texts: string[] = [];
  for (const item of response.output as Record<string, unknown>[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === "string") texts.push(part.text);
  }
  return pythonStrip(texts.join("\n"));
}

export default resourcesServer({
  name: "StringMatchResourcesServer",
  tools: {},
  verify: {
    input: z.object({
      expected_answer: z.string(),
      extraction_mode: z.enum(EXTRACTION_MODES).default("final_answer"),
      case_sensitive: z.boolean().default(false),
      metadata: z.record(z.string(), z.unknown()).nullable().default(null),
    }),
    run(_state, { response, expected_answer, extraction_mode, case_sensitive }) {
      const extracted = extractAnswer(assistantText(response), extraction_mode);
      const reward = extracted !== null && expected_answer !== "" ? answersMatch(extracted, expected_answer, case_sensitive) : 0;
      return { reward, expected_answer, extracted_answer: extracted };
    },
  },
  reverifyMode: "stateless",
});
