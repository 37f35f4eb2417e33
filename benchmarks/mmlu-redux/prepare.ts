// MMLU-Redux 2.0 (NeMo Gym's benchmarks/mmlu-redux/prepare.py): edinburgh-dawg/mmlu-redux-2.0, one config per
// subject; rows whose answer was judged wrong take the corrected one, other flagged rows are dropped.
import { definePrepare, huggingFace, int, str } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";
import { SUBCATEGORIES } from "../mmlu/subcategories.ts";

const LETTERS = ["A", "B", "C", "D"];

function expectedAnswer(entry: Record<string, any>): string | undefined {
  if (entry.error_type === "ok") return String.fromCharCode(65 + int(entry.answer));
  if (entry.error_type === "wrong_groundtruth" && LETTERS.includes(entry.correct_answer)) return entry.correct_answer;
  return undefined;
}

export default definePrepare<{ split: string }>({
  defaults: { split: "test" },
  ensureAscii: false,
  sources: ({ split }) => {
    if (split !== "test") throw new Error("MMLU-Redux only supports split='test'.");
    return [...SUBCATEGORIES.keys()].map((subject) => huggingFace("edinburgh-dawg/mmlu-redux-2.0", "test", { config: subject, tag: subject }));
  },
  convert: (entry, { tag: subject }) => {
    const answer = expectedAnswer(entry);
    if (answer === undefined) return null;
    const choices: string[] = entry.choices.map(str);
    if (choices.length !== LETTERS.length) throw new Error(`Expected 4 choices for ${subject}, found ${choices.length}`);
    const question = pythonStrip(entry.question);
    const seed = pythonJsonDumpsTyped({ subject, question, answer }, { sortKeys: true, ensureAscii: false });
    return {
      question,
      problem: `${question}\n\n${choices.map((choice, i) => `${LETTERS[i]}) ${choice}`).join("\n")}`,
      options: choices.map((choice, i) => ({ [LETTERS[i]!]: choice })),
      expected_answer: answer,
      subset_for_metrics: SUBCATEGORIES.get(subject!),
      subcategory: subject,
      source: entry.source,
      uuid: uuid5(NAMESPACE_URL, seed),
    };
  },
});
