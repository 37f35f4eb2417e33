// SWE-RL "LLM as a judge" tasks (NeMo Gym's swerl_llm_judge): the policy model is the judge — shown an issue and
// lettered candidate patches, it names the right one in a <solution> block. Reward 1 when its pick is a gold letter.
// No judge model is called by this server.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { allowedLetters, lenientChoice, normalizeExpectedAnswers, strictChoice } from "./choice.ts";

const Config = z.looseObject({
  // Carried by NeMo Gym's config but declared by no config class there (so never read): accepted, unused.
  dataset_name: z.string().nullish(),
});

/** Every assistant message's text parts, joined by newlines, stripped (NeMo Gym's _extract_last_assistant_text). */
function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    const content = item.content as unknown;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof (part as { text?: unknown }).text === "string") texts.push((part as { text: string }).text);
  }
  return pythonStrip(texts.join("\n"));
}

export default resourcesServer({
  name: "SWEJudgeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({
      instance_id: z.string().nullish(),
      dataset_name: z.string().nullish(),
      dataset_split: z.string().nullish(),
      expected_answer: z.union([z.string(), z.array(z.string())]).nullish(),
      options: z.array(z.record(z.string(), z.string())).nullish(),
      metadata: z.record(z.string(), z.unknown()).nullish(),
      grading_mode: z.enum(["lenient", "strict"]).default("lenient"),
    }),
    run(_state, body) {
      const text = assistantText(body.response);
      const allowed = allowedLetters(body.options);
      const choice = body.grading_mode === "lenient" ? lenientChoice(text, allowed) : strictChoice(text, allowed);
      const golds = normalizeExpectedAnswers(body.expected_answer).filter((gold) => allowed.size === 0 || allowed.has(gold));
      return {
        reward: choice !== null && golds.includes(choice) ? 1.0 : 0.0,
        expected_answer: golds.length === 1 ? golds[0]! : golds,
        extracted_answer: choice,
      };
    },
  },
});
