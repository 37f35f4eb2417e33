// SuperGPQA (NeMo Gym's benchmarks/supergpqa/prepare.py): m-a-p/SuperGPQA, options cleaned and shuffled by
// one Python random.Random(random_seed) over the whole file in order (so the same letters as NeMo Gym's rows).
import { definePrepare, huggingFace } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, PythonRandom, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";

const letter = (i: number) => String.fromCharCode(65 + i);
const clean = (text: string | null) => (text === null || text === undefined ? " " : pythonStrip(text).replaceAll("  ", " "));

export default definePrepare<{ split: string; random_seed: number }, PythonRandom>({
  defaults: { split: "test", random_seed: 42 },
  ensureAscii: false,
  sources: ({ split }) => {
    if (split !== "test") throw new Error(`Invalid split: ${split}`);
    return [huggingFace("m-a-p/SuperGPQA", "train")];
  },
  setup: ({ random_seed }) => new PythonRandom(random_seed),
  convert: (entry, { state: rng }) => {
    const choices: string[] = entry.options.map(clean);
    if (new Set(choices).size !== choices.length) throw new Error(`Choices are not unique: ${JSON.stringify(choices)}`);
    const correct = choices[pythonStrip(entry.answer_letter).toUpperCase().charCodeAt(0) - 65];
    if (correct === undefined) throw new Error(`supergpqa: answer letter ${entry.answer_letter} is not one of the ${choices.length} options`);
    const shuffled = [...choices];
    rng.shuffle(shuffled);
    const seed = pythonJsonDumpsTyped({ uuid: entry.uuid, split: "test", choices: shuffled }, { sortKeys: true, ensureAscii: false });
    return {
      question: entry.question,
      problem: `${entry.question}\n\n${shuffled.map((choice, i) => `${letter(i)}: ${choice}`).join("\n")}`,
      options: shuffled.map((choice, i) => ({ [letter(i)]: choice })),
      expected_answer: letter(shuffled.indexOf(correct)),
      uuid: uuid5(NAMESPACE_URL, seed),
      subset_for_metrics: entry.discipline,
      discipline: entry.discipline,
      field: entry.field,
      subfield: entry.subfield,
      difficulty: entry.difficulty,
      is_calculation: entry.is_calculation,
    };
  },
});
