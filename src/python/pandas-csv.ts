// `pandas.read_csv(path, index_col=0)` then `row.to_dict()` per row, as NeMo Gym's mmmlu prepare script reads the
// MMMLU CSVs: the cells its code sees. Ported from pandas' documented defaults and checked against pandas 2.3.3:
// - a cell that is exactly one of the default na_values (NA_VALUES; no trimming: " NA" is text) is NaN;
// - each column gets one type from all its cells: all ints (optional spaces and sign, leading zeros) → int;
//   ints/floats with NaN → float (1 → 1.0); all True/False in any of pandas' three spellings → bool; anything
//   else → the cells' own text, NaN cells staying NaN (a bool column with a NaN keeps its bools);
// - values come back as Python's (to_dict boxes numpy scalars): str, int (bigint), float (number), bool.
// Not ported: pandas' low_memory chunked inference (a huge column numeric in one chunk and text in another gives
// mixed cells with a DtypeWarning) and its fast float parser's last-digit differences for over-long decimals;
// neither changes a column that holds text, which every MMMLU question and option column does.
import { pythonCsvRows } from "./csv.ts";

export type PandasCell = string | bigint | number | boolean;

/** pandas._libs.parsers.STR_NA_VALUES (pandas 2.x). */
export const NA_VALUES: ReadonlySet<string> = new Set(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);
const TRUE_VALUES = new Set(["True", "TRUE", "true"]);
const FALSE_VALUES = new Set(["False", "FALSE", "false"]);
const INT = /^\s*[+-]?\d+\s*$/;
const FLOAT = /^\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity)\s*$/i;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

const intInRange = (text: string) => BigInt(text.trim()) >= INT64_MIN && BigInt(text.trim()) <= UINT64_MAX;

function parseFloatCell(text: string): number | undefined {
  if (!FLOAT.test(text)) return undefined;
  // Digits past 64 bits make the column text to pandas, not floats.
  if (INT.test(text) && !intInRange(text)) return undefined;
  const value = Number(text.trim().replace(/^([+-]?)inf(inity)?$/i, "$1Infinity"));
  // A decimal past a double's range is no float to pandas: the column stays text.
  return Number.isFinite(value) || /inf/i.test(text) ? value : undefined;
}

/** One column's cells, typed as pandas types the whole column. */
function typeColumn(cells: readonly string[]): PandasCell[] {
  const na = cells.map((cell) => NA_VALUES.has(cell));
  const present = cells.filter((_, i) => !na[i]);
  if (present.length > 0 && present.every((cell) => TRUE_VALUES.has(cell) || FALSE_VALUES.has(cell))) return cells.map((cell, i) => (na[i] ? Number.NaN : TRUE_VALUES.has(cell)));
  const ints = present.every((cell) => INT.test(cell) && intInRange(cell));
  if (ints && !na.includes(true)) return cells.map((cell) => BigInt(cell.trim()));
  const floats = present.map(parseFloatCell);
  if (floats.every((value) => value !== undefined)) {
    let next = 0;
    return cells.map((_, i) => (na[i] ? Number.NaN : floats[next++]!));
  }
  return cells.map((cell, i) => (na[i] ? Number.NaN : cell));
}

/** The rows of a CSV as `[row.to_dict() for _, row in pandas.read_csv(f, index_col=indexCol).iterrows()]`. */
export function pandasCsvRecords(text: string, options: { indexCol?: number } = {}): Record<string, PandasCell>[] {
  // pandas drops a UTF-8 byte order mark and skips blank lines.
  const rows = pythonCsvRows(text.replace(/^\uFEFF/, "")).filter((row) => row.length > 0);
  const header = rows[0] ?? [];
  const body = rows.slice(1);
  for (const [i, row] of body.entries()) if (row.length > header.length) throw new Error(`CSV line ${i + 2}: ${row.length} fields where the header has ${header.length}`);
  const columns = header.map((_, c) => typeColumn(body.map((row) => row[c] ?? "")));
  const keep = header.map((name, c) => ({ name, c })).filter(({ c }) => c !== options.indexCol);
  return body.map((_, r) => Object.fromEntries(keep.map(({ name, c }) => [name, columns[c]![r]!])));
}
