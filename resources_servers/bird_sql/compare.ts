// BIRD's execution accuracy: `set(predicted) == set(gold)` over result rows — order and repeats do not count,
// and a row equals another when Python's tuples are equal (1 == 1.0, text never equals a number, bytes only
// bytes). Each row gets the key Python's hash-and-equality would put it under.
import { floatRepr } from "../../src/python/float.ts";
import { isBytes, type SqlCell, type SqlRow } from "../../src/sql/index.ts";

let nanCount = 0;

function cellKey(cell: SqlCell): string {
  if (cell === null) return "none";
  if (typeof cell === "bigint") return `n${cell}`;
  if (typeof cell === "boolean") return cell ? "n1" : "n0";
  if (typeof cell === "number") {
    // An integral float equals the int of its value exactly; other floats only themselves; a NaN nothing.
    if (Number.isNaN(cell)) return `nan${++nanCount}`;
    return Number.isInteger(cell) ? `n${BigInt(cell)}` : `f${floatRepr(cell)}`;
  }
  if (typeof cell === "string") return `s${JSON.stringify(cell)}`;
  if (isBytes(cell)) return `b${cell.repr}`;
  return `r${JSON.stringify(String(cell))}`;
}

const rowKeys = (rows: SqlRow[]): Set<string> => new Set(rows.map((row) => JSON.stringify(row.map(cellKey))));

export function resultSetsMatch(gold: SqlRow[], predicted: SqlRow[]): boolean {
  const goldKeys = rowKeys(gold);
  const predictedKeys = rowKeys(predicted);
  return goldKeys.size === predictedKeys.size && [...goldKeys].every((key) => predictedKeys.has(key));
}
