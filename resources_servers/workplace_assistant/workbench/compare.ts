// How verify compares two workbenches, as NeMo Gym's `is_correct` does: each compared table with its strings
// lower-cased (except `status`, `list_name` and `board`, where case matters), then pandas' `DataFrame.equals`:
// same columns, same row labels in the same order, same cells (a NaN equals a NaN or a None).
import { isStr, pyEquals } from "./python.ts";
import { PyException } from "../../../src/python/exception.ts";
import type { Cell, Table } from "./table.ts";

const CASE_SENSITIVE_COLUMNS = new Set(["status", "list_name", "board"]);

const isMissing = (cell: Cell) => cell === null || cell === undefined || (typeof cell === "number" && Number.isNaN(cell));

/**
 * `df[column].str.lower()`: strings lower-cased, anything else NaN. pandas refuses the `.str` accessor (an
 * AttributeError, which fails NeMo Gym's verify) when the column's non-missing values are all numbers or all
 * booleans, which only a tool call that wrote a non-string can cause.
 */
export function lowerColumn(table: Table, column: string): (string | null)[] {
  const present = table.rows.map((row) => row[column]).filter((cell) => !isMissing(cell));
  const allNumbers = present.length > 0 && present.every((cell) => typeof cell === "number");
  const allBooleans = present.length > 0 && present.every((cell) => typeof cell === "boolean");
  if (allNumbers || allBooleans) throw new PyException("AttributeError", "Can only use .str accessor with string values!");
  return table.rows.map((row) => {
    const cell = row[column];
    return isStr(cell) ? cell.toLowerCase() : null;
  });
}

export interface ComparableTable {
  columns: readonly string[];
  index: readonly number[];
  /** Cells per column, lower-cased where case does not matter. */
  cells: Cell[][];
}

/** The table as `is_correct` compares it (raises where pandas' lower-casing does). */
export function comparable(table: Table): ComparableTable {
  const cells = table.columns.map((column) => (CASE_SENSITIVE_COLUMNS.has(column) ? table.rows.map((row) => row[column]) : lowerColumn(table, column)));
  return { columns: table.columns, index: table.index, cells };
}

const sameCell = (a: Cell, b: Cell) => (isMissing(a) ? isMissing(b) : !isMissing(b) && pyEquals(a, b));
const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean) => a.length === b.length && a.every((x, i) => same(x, b[i]!));

/** `DataFrame.equals`: same columns, same labels in the same order, equal cells. */
export function sameTable(left: ComparableTable, right: ComparableTable): boolean {
  return (
    sameList(left.columns, right.columns, (a, b) => a === b) &&
    sameList(left.index, right.index, (a, b) => a === b) &&
    left.cells.every((column, c) => sameList(column, right.cells[c]!, sameCell))
  );
}
