// GPQA in German, Spanish, French and Japanese (NeMo Gym's benchmarks/gpqa-x/prepare.py): one split per
// language; the boxed-answer instruction is baked into the question, and each row carries the regex the mcqa
// server extracts the letter with. Instruction text word for word from NeMo Gym's gpqa_x_utils.py.
import { definePrepare, huggingFace, str } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonJsonDumpsTyped, uuid5 } from "../../src/python/index.ts";

const SUPPORTED_LANGUAGES = ["de", "es", "fr", "ja"];
const EXTRACT_REGEX = String.raw`\\boxed\{([A-D])\}`;
const EN_INSTRUCTION = String.raw`Solve the following problem. Make sure to put the answer (and only answer) inside \boxed{}.`;
const BOXED_INSTRUCTIONS: Readonly<Record<string, string>> = {
  de: String.raw`Lösen Sie das folgende Problem. Stellen Sie sicher, dass Sie die Antwort (und nur die Antwort) in \boxed{} setzen.`,
  es: String.raw`Resuelve el siguiente problema. Asegúrate de poner la respuesta (y solo la respuesta) dentro de \boxed{}.`,
  fr: String.raw`Résolvez le problème suivant. Assurez-vous de mettre la réponse (et seulement la réponse) dans \boxed{}.`,
  ja: String.raw`以下の問題を解いてください。答え（答えのみ）を\boxed{}の中に入れてください。`,
};

export default definePrepare<{ languages: readonly string[]; prompt_language: string }>({
  defaults: { languages: SUPPORTED_LANGUAGES, prompt_language: "target" },
  ensureAscii: false,
  sources: ({ languages }) => languages.map((language) => huggingFace("nvidia/Nemotron-Multilinugual-Eval-GPQA", language, { tag: language })),
  convert: (entry, { tag, args }) => {
    const instruction = args.prompt_language === "target" ? BOXED_INSTRUCTIONS[tag!] : EN_INSTRUCTION;
    if (instruction === undefined) throw new Error(`gpqa-x: no instruction for language '${tag}'`);
    const seed = pythonJsonDumpsTyped({ problem: entry.problem, options: entry.options, language: tag }, { sortKeys: true, ensureAscii: false });
    return {
      question: `${instruction}\n\n${entry.problem}\n\n${str(entry.options)}`,
      problem: entry.problem,
      expected_answer: str(entry.expected_answer),
      options: [{ A: entry.A }, { B: entry.B }, { C: entry.C }, { D: entry.D }],
      template_metadata: { output_regex: EXTRACT_REGEX },
      A: entry.A,
      B: entry.B,
      C: entry.C,
      D: entry.D,
      subset_for_metrics: tag,
      target_language: tag,
      uuid: uuid5(NAMESPACE_URL, seed),
    };
  },
});
