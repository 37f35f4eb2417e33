// The prepare module of aime24-x and aime25-x (NeMo Gym's prepare.py of each): one split per language of a
// multilingual AIME dataset; the instruction (the language's, or English with prompt_language "en") is baked
// into the question, and the language labels the row for per-language metrics.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";
import { EN_INSTRUCTION, MATH_INSTRUCTIONS, SUPPORTED_LANGUAGES } from "./instructions.ts";

export const multilingualMath = (repo: string) =>
  definePrepare<{ languages: readonly string[]; prompt_language: string }>({
    defaults: { languages: SUPPORTED_LANGUAGES, prompt_language: "target" },
    ensureAscii: false,
    sources: ({ languages }) => languages.map((language) => huggingFace(repo, language, { tag: language })),
    convert: (entry, { tag, args }) => {
      const instruction = args.prompt_language === "target" ? MATH_INSTRUCTIONS[tag!] : EN_INSTRUCTION;
      if (instruction === undefined) throw new Error(`aime-x: no instruction for language '${tag}' (known: ${Object.keys(MATH_INSTRUCTIONS).join(", ")})`);
      return {
        question: `${instruction}\n\n${entry.problem}`,
        problem: entry.problem,
        expected_answer: str(entry.expected_answer),
        subset_for_metrics: tag,
        target_language: tag,
      };
    },
  });
