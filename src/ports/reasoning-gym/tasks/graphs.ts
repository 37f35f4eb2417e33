// Scorers of reasoning-gym's graph tasks that override the default.
import { fromJsonValue, isPyDict, pythonEquals, pythonTypeName, type PyDict, type PyValue } from "../../../python/values.ts";
import { codePoints, pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { item, oracleText, type Entry } from "../types.ts";
import { KeyError } from "../../../python/exception.ts";
import { pythonStringRepr } from "../../../python/repr.ts";

/** family_relationships: equal after pythonStrip and lower-casing → 1.0. */
export function familyRelationships(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || entry.answer === null) return 0;
  return pythonLower(pythonStrip(answer)) === pythonLower(pythonStrip(entry.answer)) ? 1 : 0;
}

/** path_star: the same node sequence, whitespace collapsed → 1.0. */
export function pathStar(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || pythonStrip(answer).length === 0) return 0;
  return splitWhitespace(answer).join(" ") === splitWhitespace(oracleText(entry)).join(" ") ? 1 : 0;
}

const MOVES: Record<string, [number, number]> = { right: [0, 1], down: [1, 0], left: [0, -1], up: [-1, 0] };

/** `sequence[index]` of a grid row: a list's item or a string's character; out of range raises. */
function at(sequence: unknown, index: number): unknown {
  const items = Array.isArray(sequence) ? sequence : typeof sequence === "string" ? codePoints(sequence) : undefined;
  if (items === undefined) throw new TypeError("grid row is not subscriptable");
  if (index >= items.length) throw new RangeError("list index out of range");
  return items[index];
}

/** `_is_valid_path`: the moves lead from `*` to `#` inside the grid without entering an `X`. */
function isValidPath(matrix: unknown, moves: string[]): boolean {
  if (!Array.isArray(matrix)) throw new TypeError("matrix is not a list");
  const rows = matrix.length;
  const columns = codePointsOrItems(at(matrix, 0)).length;
  const find = (mark: string): [number, number] => {
    for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) if (at(matrix[r], c) === mark) return [r, c];
    throw new Error("StopIteration"); // next() on an empty generator
  };
  let [r, c] = find("*");
  const [endRow, endColumn] = find("#");
  for (const move of moves) {
    if (!Object.hasOwn(MOVES, move)) return false;
    r += MOVES[move]![0];
    c += MOVES[move]![1];
    if (!(r >= 0 && r < rows && c >= 0 && c < columns)) return false;
    if (at(matrix[r], c) === "X") return false;
  }
  return r === endRow && c === endColumn;
}

function codePointsOrItems(row: unknown): readonly unknown[] {
  if (Array.isArray(row)) return row;
  if (typeof row === "string") return codePoints(row);
  throw new TypeError(`object of type '${pythonTypeName(row as PyValue)}' has no len()`);
}

/**
 * shortest_path: the oracle's moves → 1.0; another valid path from `*` to `#` in `metadata.matrix` → 1.0 as
 * long as the oracle, 0.5 if longer (or shorter); anything else → 0.0.
 */
export function shortestPath(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  const oracle = pythonStrip(oracleText(entry));
  if (pythonStrip(answer) === oracle) return 1;
  const matrix = item(entry.metadata, "matrix");
  const moves = splitWhitespace(answer);
  if (!isValidPath(matrix, moves)) return 0;
  return moves.length === splitWhitespace(oracle).length ? 1 : 0.5;
}

/** `metadata[key]` on the Python view of the metadata. */
function get(mapping: PyValue, key: string): PyValue {
  if (!isPyDict(mapping)) throw new TypeError("object is not subscriptable");
  if (!mapping.has(key)) throw new KeyError(pythonStringRepr(key));
  return mapping.get(key)!;
}

type Number_ = bigint | number;

/** A number as Python's arithmetic sees it (a bool is an int); anything else is a TypeError here. */
function asNumber(value: PyValue): Number_ {
  if (typeof value === "boolean") return value ? 1n : 0n;
  if (typeof value === "bigint" || typeof value === "number") return value;
  throw new TypeError("unsupported operand type");
}

function toFloat(value: Number_): number {
  const float = Number(value);
  if (typeof value === "bigint" && !Number.isFinite(float)) throw new RangeError("int too large to convert to float");
  return float;
}

function apply(operation: PyValue, state: Number_, operand: Number_): Number_ {
  if (typeof state === "bigint" && typeof operand === "bigint") {
    if (operation === "add") return state + operand;
    if (operation === "subtract") return state - operand;
    if (operation === "multiply") return state * operand;
    return state;
  }
  if (operation === "add") return toFloat(state) + toFloat(operand);
  if (operation === "subtract") return toFloat(state) - toFloat(operand);
  if (operation === "multiply") return toFloat(state) * toFloat(operand);
  return state;
}

/** `simulate_sequence`: presses the buttons available in the current colour; each press toggles red/green. */
function simulate(metadata: PyDict, presses: string[]): PyValue {
  let state: PyValue = get(metadata, "initial_value");
  let colour: PyValue = get(metadata, "initial_state");
  const buttons = new Map<string, PyValue>();
  const list = get(metadata, "buttons");
  if (!Array.isArray(list)) throw new TypeError("buttons is not a list");
  for (const button of list) {
    const name = get(button, "name");
    if (Array.isArray(name) || isPyDict(name)) throw new TypeError("unhashable type");
    if (typeof name === "string") buttons.set(name, button);
  }
  for (const press of presses) {
    const button = buttons.get(press.toUpperCase());
    if (button === undefined || (isPyDict(button) && button.size === 0)) continue; // `if not btn`
    const active = get(button, "active_state");
    if (!(pythonEquals(active, colour) || active === "any")) continue;
    const operation = get(button, "type");
    if (operation === "add" || operation === "subtract" || operation === "multiply") state = apply(operation, asNumber(state), asNumber(get(button, "value")));
    colour = pythonEquals(colour, "red") ? "green" : "red";
  }
  return state;
}

const buttonPresses = (text: string): string[] => text.toUpperCase().match(/[A-C]/g) ?? [];

/**
 * quantum_lock: the oracle's button sequence (letters A–C, case-free) → 1.0; another sequence that reaches
 * `metadata.target_value` → 1.0 as long as the oracle's, 0.5 otherwise; else 0.0.
 */
export function quantumLock(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const given = buttonPresses(answer);
  const target = buttonPresses(oracleText(entry));
  if (given.length === target.length && given.every((press, i) => press === target[i])) return 1;
  const metadata = fromJsonValue(entry.metadata) as PyDict;
  if (!pythonEquals(simulate(metadata, given), get(metadata, "target_value"))) return 0;
  return given.length === target.length ? 1 : 0.5;
}
