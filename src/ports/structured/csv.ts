// CSV as `csv.DictReader(io.StringIO(text))` reads it with the default (excel) dialect: CPython's _csv state
// machine fed line by line (StringIO splits after each "\n" only), strict off, so a stray character after a
// closing quote joins the field and an unterminated quoted field ends the last record instead of failing.
import { type StructuredDict, type StructuredValue } from "./value.ts";
import { PyException } from "../../python/exception.ts";
import { CsvError, pythonCsvRowsFromString } from "../../python/csv.ts";

/** `list(csv.reader(io.StringIO(text)))`: every record, an empty line being `[]`; csv.Error as the Python exception. */
export function readCsvRecords(text: string): string[][] {
  try {
    return pythonCsvRowsFromString(text);
  } catch (error) {
    if (error instanceof CsvError) throw new PyException("Error", error.message);
    throw error;
  }
}

export interface DictReaderResult {
  /** `reader.fieldnames`: the first record, or None for an empty text. */
  fieldnames: string[] | null;
  /** `list(reader)`: blank lines skipped, a missing field None, surplus fields a list under the key None. */
  rows: StructuredDict[];
}

export function readCsvDicts(text: string): DictReaderResult {
  const records = readCsvRecords(text);
  if (records.length === 0) return { fieldnames: null, rows: [] };
  const [fieldnames, ...rest] = records as [string[], ...string[][]];
  const rows = rest
    .filter((record) => record.length > 0)
    .map((record) => {
      const row: StructuredDict = new Map();
      fieldnames.forEach((name, i) => {
        if (i < record.length) row.set(name, record[i]!);
      });
      if (record.length > fieldnames.length) row.set(null, record.slice(fieldnames.length) as StructuredValue[]);
      else for (const name of fieldnames.slice(record.length)) row.set(name, null);
      return row;
    });
  return { fieldnames, rows };
}
