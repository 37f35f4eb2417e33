// MMLU test split (NeMo Gym's benchmarks/mmlu/prepare.py): Hendrycks' data.tar, one CSV per subject
// (question, A-D, answer) read as Python's csv module reads it, in archive order; rows with another number of
// columns are skipped, as NeMo Gym's script skips them (with a warning).
import { basename } from "node:path";
import { definePrepare, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { NAMESPACE_URL, pythonCsvRows, pythonJsonDumpsTyped, pythonStrip, uuid5 } from "../../src/python/index.ts";
import { SUBCATEGORIES } from "./subcategories.ts";

const LETTERS = ["A", "B", "C", "D"];
const COLUMNS = ["question", ...LETTERS, "expected_answer"];

function toGymRow(subject: string, row: Record<string, string>): Row {
  const answer = pythonStrip(row.expected_answer!).toUpperCase();
  if (!LETTERS.includes(answer)) throw new Error(`Unexpected answer '${answer}' for subject ${subject}`);
  const category = SUBCATEGORIES.get(subject);
  if (category === undefined) throw new Error(`mmlu: unknown subject ${subject}`);
  const question = pythonStrip(row.question!);
  const seed = pythonJsonDumpsTyped({ subject, question, answer }, { sortKeys: true, ensureAscii: false });
  return {
    question,
    problem: `${question}\n\n${LETTERS.map((letter) => `${letter}) ${row[letter]}`).join("\n")}`,
    options: LETTERS.map((letter) => ({ [letter]: row[letter] })),
    expected_answer: answer,
    subset_for_metrics: category,
    subject,
    uuid: uuid5(NAMESPACE_URL, seed),
  };
}

export default definePrepare<{ split: string }>({
  defaults: { split: "test" },
  ensureAscii: false,
  sources: ({ split }) => {
    // NeMo Gym's script writes other splits to mmlu_<split>.jsonl, which is not the config's jsonl_fpath.
    if (split !== "test") throw new Error(`mmlu: split '${split}' is not the one the benchmark config's jsonl_fpath holds (test)`);
    return [url("https://people.eecs.berkeley.edu/~hendrycks/data.tar", { format: "tar" })];
  },
  convert: (member, { args }) => {
    const name: string = member.name;
    if (!name.startsWith(`data/${args.split}/`) || !name.endsWith(".csv")) return null;
    const fileName = basename(name);
    const subject = fileName.slice(0, fileName.lastIndexOf("_") < 0 ? fileName.length : fileName.lastIndexOf("_"));
    const rows = pythonCsvRows((member.data as Buffer).toString("utf8")).filter((cells) => {
      if (cells.length !== COLUMNS.length) process.stderr.write(`Warning: skipping row in ${fileName} due to incorrect number of columns\n`);
      return cells.length === COLUMNS.length;
    });
    return rows.map((cells) => toGymRow(subject, Object.fromEntries(COLUMNS.map((column, i) => [column, cells[i]!]))));
  },
});
