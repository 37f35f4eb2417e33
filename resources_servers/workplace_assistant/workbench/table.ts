// A pandas DataFrame as far as WorkBench uses one: named columns, rows of cells, and the row labels (the index),
// which verify compares too. Tables are immutable: every change returns a new table that shares the unchanged rows,
// so a session's copy of the data is a pointer copy (copy-on-write) and sessions never see each other's writes.
import { isStr, pyEquals } from "./python.ts";
import { PyException } from "../../../src/python/exception.ts";

/** A cell: a string as read from the CSV, `null` where pandas has NaN, or any JSON value a tool call wrote. */
export type Cell = unknown;
export type Row = Readonly<Record<string, Cell>>;

export interface Table {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
  /** The row labels (pandas index), one per row. */
  readonly index: readonly number[];
}

// pandas' default `na_values`: these cells read as NaN even with dtype=str.
const NA_VALUES = new Set(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]);

/** The records of a CSV text (RFC 4180 quoting; blank lines skipped, as pandas does). */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let fieldStarted = false;
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const endRecord = () => {
    if (fieldStarted || record.length > 0 || field !== "") record.push(field);
    if (record.length > 0) records.push(record);
    record = [];
    field = "";
    fieldStarted = false;
  };
  for (let i = 0; i < input.length; i++) {
    const char = input[i]!;
    if (quoted) {
      if (char === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') {
      quoted = true;
      fieldStarted = true;
    } else if (char === ",") {
      record.push(field);
      field = "";
      fieldStarted = true;
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && input[i + 1] === "\n") i++;
      endRecord();
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  endRecord();
  return records;
}

/**
 * `pd.read_csv(path, dtype=str)`: every cell a string, the default NA strings as NaN (`null`), index 0..n-1.
 * With `names`, the file has no header row (`header=None`).
 */
export function tableFromCsv(text: string, file: string, names?: string[]): Table {
  const records = parseCsvRecords(text);
  const columns = names ?? records.shift();
  if (!columns || columns.length === 0) throw new Error(`${file}: no header row`);
  const rows = records.map((record, i) => {
    if (record.length > columns.length) throw new Error(`${file}:${i + (names ? 1 : 2)}: expected ${columns.length} fields, saw ${record.length}`);
    const row: Record<string, Cell> = {};
    columns.forEach((column, c) => {
      const value = record[c];
      row[column] = value === undefined || NA_VALUES.has(value) ? null : value;
    });
    return Object.freeze(row);
  });
  return { columns: Object.freeze([...columns]), rows: Object.freeze(rows), index: Object.freeze(rows.map((_, i) => i)) };
}

/** `df[mask]`: the rows where the mask is true, keeping their labels. */
export function filterRows(table: Table, keep: (row: Row) => boolean): Table {
  const rows: Row[] = [];
  const index: number[] = [];
  table.rows.forEach((row, i) => {
    if (keep(row)) {
      rows.push(row);
      index.push(table.index[i]!);
    }
  });
  return { columns: table.columns, rows, index };
}

/** `pd.concat([df, new_rows], ignore_index=...)`: labels renumbered 0..n-1, or the new rows labelled 0.. (pandas' default). */
export function appendRows(table: Table, newRows: Record<string, Cell>[], ignoreIndex: boolean): Table {
  const shaped = newRows.map((row) => Object.freeze(Object.fromEntries(table.columns.map((column) => [column, row[column] ?? null]))));
  const rows = [...table.rows, ...shaped];
  const index = ignoreIndex ? rows.map((_, i) => i) : [...table.index, ...shaped.map((_, i) => i)];
  return { columns: table.columns, rows, index };
}

/** `df.loc[mask, column] = value`. */
export function updateRows(table: Table, where: (row: Row) => boolean, column: string, value: Cell): Table {
  return { ...table, rows: table.rows.map((row) => (where(row) ? Object.freeze({ ...row, [column]: value }) : row)) };
}

/** `value in df[column].values`. */
export const columnContains = (table: Table, column: string, value: unknown): boolean => table.rows.some((row) => pyEquals(row[column], value));

/** `df[column].max()` over an object column: the greatest string (NaN skipped); mixed types cannot be compared. */
export function columnMax(table: Table, column: string): string | null {
  let max: string | null = null;
  for (const row of table.rows) {
    const cell = row[column];
    if (cell === null || (typeof cell === "number" && Number.isNaN(cell))) continue;
    if (!isStr(cell)) throw new PyException("TypeError", `'>=' not supported between instances of '${typeof cell === "number" ? "int" : typeof cell}' and 'str'`);
    if (max === null || cell > max) max = cell;
  }
  return max;
}

/** `df.to_dict(orient="records")`: rows as plain objects (NaN cells read `null` in JSON). */
export const records = (rows: readonly Row[]): Record<string, Cell>[] => rows.map((row) => ({ ...row }));
