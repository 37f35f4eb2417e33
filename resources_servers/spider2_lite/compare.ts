// Spider 2.0-Lite's result comparison (its official evaluate.py, as NeMo Gym's eval_utils ports it): column vectors.
// Every gold column (or the condition columns) must equal some predicted column — extra predicted columns are
// fine — where a value that is text is read as an int, else a float, else kept; None and NaN count as 0; numbers
// are equal within math.isclose(abs_tol=1e-2); and with ignore_order both vectors are first sorted by
// (str(x), is-a-number). Values are Python's (src/python): ints are bigints, str() is Python's str().
import { HttpError } from "../../src/protocol/errors.ts";
import { OverflowError, ValueError } from "../../src/python/exception.ts";
import { pythonFloat, pythonIntBig } from "../../src/python/numbers.ts";
import { compareStrings } from "../../src/python/str.ts";
import { PyOpaque, pythonEquals, pythonStr, type PyValue } from "../../src/python/values.ts";
import type { SqlCell, SqlRow } from "../../src/sql/index.ts";

const ABS_TOL = 1e-2;
const REL_TOL = 1e-9;

/** `_coerce`: text that int() reads becomes an int, else text that float() reads a float; anything else stays. */
function coerce(value: SqlCell): SqlCell {
  if (typeof value !== "string") return value;
  try {
    return pythonIntBig(value);
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
  }
  try {
    return pythonFloat(value);
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    return value;
  }
}

/** `_normalize`: None and NaN are 0. */
const normalize = (value: SqlCell): SqlCell => (value === null || (typeof value === "number" && Number.isNaN(value)) ? 0n : value);

/** `isinstance(x, (int, float))` (bool is an int). */
const isNumber = (value: SqlCell): value is bigint | number | boolean => typeof value === "bigint" || typeof value === "number" || typeof value === "boolean";

/** `float(x)` of a number; an int past the float range raises OverflowError, a 500 as in NeMo Gym. */
function asFloat(value: bigint | number | boolean): number {
  try {
    return pythonFloat(value);
  } catch (error) {
    if (error instanceof OverflowError) throw new HttpError(500, `OverflowError: ${error.message}`);
    throw error;
  }
}

/** CPython's math.isclose. */
export function isClose(a: number, b: number, absTol = ABS_TOL): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(REL_TOL * b) || diff <= Math.abs(REL_TOL * a) || diff <= absTol;
}

/** Python's `x == y` for two values that are not both numbers. */
function sameValue(x: SqlCell, y: SqlCell): boolean {
  if (x instanceof PyOpaque || y instanceof PyOpaque) return x instanceof PyOpaque && y instanceof PyOpaque && x.typeName === y.typeName && x.repr === y.repr;
  return pythonEquals(x as PyValue, y as PyValue);
}

/** The sort key `(x is None, str(x), isinstance(x, (int, float)))`; None cannot occur after normalize. */
function byKey(x: SqlCell, y: SqlCell): number {
  return compareStrings(pythonStr(x), pythonStr(y)) || Number(isNumber(x)) - Number(isNumber(y));
}

export function vectorsMatch(v1: SqlCell[], v2: SqlCell[], ignoreOrder: boolean): boolean {
  if (v1.length !== v2.length) return false;
  const a = ignoreOrder ? [...v1].sort(byKey) : v1;
  const b = ignoreOrder ? [...v2].sort(byKey) : v2;
  return a.every((x, i) => {
    const y = b[i]!;
    if (isNumber(x) && isNumber(y)) return isClose(asFloat(x), asFloat(y));
    return sameValue(x, y);
  });
}

/** `row[index]` with Python's negative indices; a missing column raises IndexError (a 500, as in NeMo Gym). */
function cellAt(row: SqlRow, index: number): SqlCell {
  const at = index < 0 ? row.length + index : index;
  if (at < 0 || at >= row.length) throw new HttpError(500, `IndexError: tuple index out of range (column ${index} of a row of ${row.length})`);
  return row[at]!;
}

const columnVector = (rows: SqlRow[], index: number): SqlCell[] => rows.map((row) => normalize(coerce(cellAt(row, index))));

export function compareResultSets(gold: SqlRow[], pred: SqlRow[], conditionCols: number[], ignoreOrder: boolean): boolean {
  if (gold.length === 0 && pred.length === 0) return true;
  if (gold.length === 0 || pred.length === 0) return false;
  const goldWidth = gold[0]!.length;
  const allGold = [...Array(goldWidth).keys()];
  const valid = conditionCols.filter((index) => index < goldWidth);
  const columns = conditionCols.length > 0 && valid.length > 0 ? valid : allGold;
  // Both built before comparing, as in NeMo Gym (a bad index is a 500 even where an earlier column already failed).
  const goldVectors = columns.map((index) => columnVector(gold, index));
  const predVectors = [...Array(pred[0]!.length).keys()].map((index) => columnVector(pred, index));
  return goldVectors.every((goldVector) => predVectors.some((predVector) => vectorsMatch(goldVector, predVector, ignoreOrder)));
}

/**
 * `condition_cols` for each gold set: none → all columns everywhere; a flat list → that list for every set; a list
 * of lists → one per set (zip: sets beyond the lists are never compared, as in NeMo Gym).
 */
function conditionColsPerSet(goldSets: number, conditionCols: unknown[] | null | undefined): number[][] {
  const columnList = (value: unknown, where: string): number[] => {
    if (!Array.isArray(value) || !value.every((index) => Number.isInteger(index))) throw new HttpError(500, `condition_cols${where} must hold column indices, got ${JSON.stringify(value)}`);
    return value as number[];
  };
  if (!conditionCols || conditionCols.length === 0) return Array.from({ length: goldSets }, () => []);
  if (!conditionCols.every(Array.isArray)) return Array.from({ length: goldSets }, () => columnList(conditionCols, ""));
  return conditionCols.slice(0, goldSets).map((cols, i) => columnList(cols, `[${i}]`));
}

/** Any gold set matching wins. */
export function compareMultiResultSets(goldSets: SqlRow[][], pred: SqlRow[], conditionCols: unknown[] | null | undefined, ignoreOrder: boolean): boolean {
  if (goldSets.length === 0) return false;
  const perSet = conditionColsPerSet(goldSets.length, conditionCols);
  return perSet.some((cols, i) => compareResultSets(goldSets[i]!, pred, cols, ignoreOrder));
}
