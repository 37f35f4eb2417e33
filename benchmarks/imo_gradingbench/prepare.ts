// IMO-GradingBench (NeMo Gym's benchmarks/imo_gradingbench/prepare.py, a port of NeMo Skills' imo-gradingbench):
// gradingbench.csv of google-deepmind/superhuman at a pinned commit, read as csv.DictReader reads the downloaded
// text (through io.StringIO: a \r inside a quoted cell is kept), one row per CSV row. The gold grade word of the
// `Reward` column is also `expected_answer`, which the imo_gradingbench server reads.
import { definePrepare, url, type Row } from "../../src/rollouts/prepare/define.ts";
import { pythonCsvDictRows, pythonCsvRowsFromString } from "../../src/python/index.ts";

// `.decode("utf-8")`: strict, and a byte order mark is kept as text (TextDecoder would drop it).
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export const SOURCE_URL = "https://raw.githubusercontent.com/google-deepmind/superhuman/c1ee02e03d4cdb2ab21cd01ac927d895f5287fc8/imobench/gradingbench.csv";

/** `row[column]`: a column the CSV does not have is the KeyError NeMo Gym's script stops with. */
function cell(row: Record<string, unknown>, column: string, line: number): unknown {
  if (!Object.hasOwn(row, column)) throw new Error(`imo_gradingbench: gradingbench.csv row ${line} has no column '${column}' (KeyError)`);
  return row[column];
}

export default definePrepare({
  sources: [url(SOURCE_URL, { format: "file" })],
  convert: (file) => {
    const rows = pythonCsvDictRows(pythonCsvRowsFromString(utf8.decode(file.data as Buffer)));
    return rows.map((row, i): Row => ({
      grading_id: cell(row, "Grading ID", i + 1),
      problem_id: cell(row, "Problem ID", i + 1),
      problem_statement: cell(row, "Problem", i + 1),
      reference_solution: cell(row, "Solution", i + 1),
      rubric: cell(row, "Grading guidelines", i + 1),
      proof: cell(row, "Response", i + 1),
      points: cell(row, "Points", i + 1),
      reward: cell(row, "Reward", i + 1),
      source: cell(row, "Problem Source", i + 1),
      expected_answer: cell(row, "Reward", i + 1),
    }));
  },
});
