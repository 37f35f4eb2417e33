// Global PIQA, non-parallel (NeMo Gym's benchmarks/global-piqa/prepare.py): mrlbenchmarks/global-piqa-nonparallel,
// one config per language (all of them by default), two solutions lettered A and B; each row carries the
// regexes the mcqa server extracts the letter with.
import { definePrepare, huggingFace, int } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";

const REPO = "mrlbenchmarks/global-piqa-nonparallel";
const EXTRACT_REGEX = [
  String.raw`(?i)[Tt]he (?:[Bb]est [Aa]nswer|[Ff]inal [Aa]nswer|[Aa]nswer)[^A-B]*([A-B])`,
  String.raw`(?i)[Aa]nswer\s*:[^A-B]*([A-B])`,
  String.raw`(?i)\\boxed\{([A-B])\}`,
  String.raw`[\s\S]*\b\(?\s*([A-B])\s*\)?\.?\b`,
];

export default definePrepare<{ languages?: readonly string[] }>({
  ensureAscii: false,
  sources: async ({ languages }, hub) => (languages ?? (await hub.configNames(REPO))).map((language) => huggingFace(REPO, "test", { config: language, tag: language })),
  convert: (entry, { tag: language }) => {
    const question = pythonStrip(entry.prompt);
    const optionA = pythonStrip(entry.solution0);
    const optionB = pythonStrip(entry.solution1);
    const seed = pythonJsonDumpsTyped({ language, prompt: question, solution0: optionA, solution1: optionB, label: entry.label }, { sortKeys: true, ensureAscii: false });
    return {
      question,
      problem: question,
      A: optionA,
      B: optionB,
      options: [{ A: optionA }, { B: optionB }],
      expected_answer: String.fromCharCode(65 + int(entry.label)),
      template_metadata: { output_regex: EXTRACT_REGEX },
      subset_for_metrics: language,
      target_language: language,
      uuid: uuid5(NAMESPACE_URL, seed),
    };
  },
});
