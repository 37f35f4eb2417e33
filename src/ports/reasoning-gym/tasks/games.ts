// Scorers of reasoning-gym's board and puzzle games: the sudoku family (grid match with partial credit),
// n_queens, tower_of_hanoi and knight_swap (move simulators), kakurasu and survo (grids checked against sums or
// the stored solution), tsumego (the point to play). Each was compared with the library's own score_answer run
// under python3.
import { pythonJsonLoads } from "../../../python/json.ts";
import { fromJsonValue, pythonEquals, type PyValue, pythonContains, pythonGetItem, pythonIterate, pythonJoin, pythonLenOf, pythonTruthy } from "../../../python/values.ts";
import { pythonIntBig } from "../../../python/numbers.ts";
import { pythonMatch, pythonSearch } from "../../../python/re/index.ts";
import { codePoints, pythonLen, pythonLower, pythonRstrip, pythonStrip, splitWhitespace, splitLines } from "../../../python/str.ts";
import { IndexError, KeyError } from "../../../python/exception.ts";
import { evalPythonLiteral } from "../python-literal.ts";
import { item, oracleText, type Entry, type Scorer } from "../types.ts";

const meta = (entry: Entry, key: string): PyValue => fromJsonValue(item(entry.metadata, key));

const rstripLines = (text: string): string => text.split("\n").map((line) => pythonRstrip(line)).join("\n");

/**
 * sudoku, mini_sudoku, futoshiki: the oracle grid (trailing whitespace ignored) → 1.0; else 0.9 × the share of
 * `metadata.solution` cells matched by the digits 1-9 of the answer's lines that hold exactly one row's worth of
 * them; either way × len(oracle)/len(answer) when the answer is longer. sudoku and mini_sudoku score an empty
 * answer 0.0 up front; futoshiki scores it through the rules (0.0 unless the oracle is empty too).
 */
function gridScorer(emptyScoresZero: boolean): Scorer {
  return (answer, entry) => {
    if (typeof answer !== "string" || (emptyScoresZero && answer.length === 0)) return 0;
    const oracle = oracleText(entry);
    const solution = meta(entry, "solution");
    const boardSize = pythonLenOf(pythonGetItem(solution, 0n));
    let reward: number;
    if (rstripLines(answer) === rstripLines(oracle)) {
      reward = 1;
    } else {
      let row = 0;
      let matching = 0;
      for (const line of answer.split("\n")) {
        if (row >= pythonLenOf(solution)) break;
        const numbers = codePoints(line).filter((ch) => "123456789".includes(ch)).map((ch) => BigInt(ch));
        if (numbers.length !== boardSize) continue;
        const expected = pythonIterate(pythonGetItem(solution, BigInt(row)));
        for (let i = 0; i < Math.min(expected.length, numbers.length); i++) if (pythonEquals(expected[i]!, numbers[i]!)) matching++;
        row++;
      }
      if (boardSize === 0) throw new RangeError("division by zero");
      reward = matching / (boardSize * boardSize);
      reward *= 0.9;
    }
    const answerLength = pythonLen(answer);
    const oracleLength = pythonLen(oracle);
    if (answerLength > oracleLength) reward *= oracleLength / answerLength;
    return reward;
  };
}

export const sudoku = gridScorer(true);
export const futoshiki = gridScorer(false);

/**
 * n_queens: the answer among `metadata.valid_answers` → 1.0; else the answer read as a Python literal (a list of
 * rows of cells, the library `eval()`s it) and printed as the board (cells joined by spaces, rows by newlines)
 * among them → 0.5; else 0.0.
 */
export function nQueens(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const valid = meta(entry, "valid_answers");
  if (pythonContains(valid, answer)) return 1;
  try {
    const board = pythonIterate(evalPythonLiteral(answer))
      .map((row) => pythonJoin(" ", pythonIterate(row)))
      .join("\n");
    if (pythonContains(valid, board)) return 0.5;
  } catch {
    // Python's `except Exception: pass`
  }
  return 0;
}

// ---- tower_of_hanoi ----

const MOVE = String.raw`Move disk (\d+) from Peg (\d+) to Peg (\d+)`;

type Pegs = Map<bigint, bigint[]>;

/** `pegs[peg]`: a peg the puzzle does not have is Python's KeyError. */
function peg(pegs: Pegs, number: bigint): bigint[] {
  const disks = pegs.get(number);
  if (!disks) throw new KeyError(String(number));
  return disks;
}

/** The library's `_validate_move`: it reads the move by splitting it on whitespace, and any failure is false. */
function validMove(pegs: Pegs, move: string): boolean {
  try {
    const parts = splitWhitespace(move);
    if (parts.length !== 9) return false;
    let disk: bigint, from: bigint, to: bigint;
    try {
      [disk, from, to] = [pythonIntBig(parts[2]), pythonIntBig(parts[5]), pythonIntBig(parts[8])];
    } catch {
      return false;
    }
    const source = peg(pegs, from);
    if (source.length === 0 || source.at(-1) !== disk) return false;
    const target = peg(pegs, to);
    return !(target.length > 0 && target.at(-1)! < disk);
  } catch {
    return false;
  }
}

/** An int from metadata (a bool counts, as in Python); anything else is the TypeError `range()` raises. */
function intOf(value: PyValue): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "boolean") return value ? 1n : 0n;
  throw new TypeError("'float' object cannot be interpreted as an integer");
}

/**
 * tower_of_hanoi: the answer's non-blank lines are moves "Move disk X from Peg Y to Peg Z", replayed from all
 * disks on `metadata.start_peg`; a malformed or illegal move → 0.0; all disks on `target_peg` at the end → 1.0
 * (or `solution_length / moves` when longer than `metadata.solution_length`); else 0.05.
 */
export function towerOfHanoi(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  const moves = splitLines(pythonStrip(answer))
    .map((line) => pythonStrip(line))
    .filter((line) => line !== "");
  const numDisks = intOf(meta(entry, "num_disks"));
  const numPegs = intOf(meta(entry, "num_pegs"));
  const startPeg = intOf(meta(entry, "start_peg"));
  const targetPeg = intOf(meta(entry, "target_peg"));
  const pegs: Pegs = new Map();
  for (let number = 1n; number <= numPegs; number++) pegs.set(number, []);
  for (let disk = numDisks; disk > 0n; disk--) peg(pegs, startPeg).push(disk);

  for (const move of moves) {
    const match = pythonSearch(MOVE, move);
    if (!match) return 0;
    const [disk, from, to] = [1, 2, 3].map((group) => pythonIntBig(match.groups[group]));
    if (!validMove(pegs, move)) return 0;
    const popped = peg(pegs, from!).pop();
    if (popped === undefined) throw new IndexError("pop from empty list");
    peg(pegs, to!).push(disk!);
  }

  const final = peg(pegs, targetPeg);
  const solved = final.length === Number(numDisks > 0n ? numDisks : 0n) && final.every((disk, i) => disk === numDisks - BigInt(i));
  if (!solved) return 0.05;
  const optimal = Object.hasOwn(entry.metadata, "solution_length") ? fromJsonValue(entry.metadata.solution_length) : BigInt(moves.length);
  if (typeof optimal !== "bigint" && typeof optimal !== "number" && typeof optimal !== "boolean") throw new TypeError("'<=' not supported");
  const optimalMoves = Number(optimal);
  return moves.length <= optimalMoves ? 1 : optimalMoves / moves.length;
}

// ---- knight_swap ----

/** The positions holding `color` in a pieces dict. */
function positionsOf(pieces: Map<string, PyValue>, color: string): Set<string> {
  return new Set([...pieces].filter(([, piece]) => piece === color).map(([position]) => position));
}

const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));

function asDict(value: PyValue): Map<string, PyValue> {
  if (!(value instanceof Map)) throw new TypeError("not a dict");
  return value;
}

/**
 * knight_swap: "No" (any case) → 1.0 for an impossible puzzle, 0.0 for a possible one; else a JSON list of
 * "color,from,to" moves replayed from `metadata.pieces` on `metadata.board`, colours alternating from
 * `metadata.start_turn`; an illegal move or any malformed part → 0.0; white and black swapped at the end →
 * 1.0 (or `len(solution) / moves` when longer than the stored solution); else 0.05.
 */
export function knightSwap(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const text = pythonStrip(answer);
  if (text.length === 0) return 0;
  if (!pythonTruthy(meta(entry, "is_possible"))) return pythonLower(text) === "no" ? 1 : 0;
  if (pythonLower(text) === "no") return 0;
  try {
    const moveList = pythonJsonLoads(text);
    if (!Array.isArray(moveList)) return 0;
    const moves: [string, string, string][] = [];
    for (const move of moveList) {
      if (typeof move !== "string") return 0;
      const parts = move.split(",");
      if (parts.length !== 3) return 0;
      if (parts[0] !== "w" && parts[0] !== "B") return 0;
      moves.push(parts as [string, string, string]);
    }
    const board = meta(entry, "board");
    const initial = asDict(meta(entry, "pieces"));
    const pieces = new Map(initial);
    let turn = meta(entry, "start_turn");
    for (const [color, start, end] of moves) {
      if (!pythonEquals(color, turn)) return 0;
      if (!pieces.has(start) || !pythonEquals(pieces.get(start)!, color)) return 0;
      if (!pythonContains(pythonGetItem(board, start), end)) return 0;
      if (pieces.has(end) && pieces.get(end) !== null) return 0;
      pieces.set(end, pieces.get(start)!);
      pieces.set(start, null);
      turn = pythonEquals(turn, "w") ? "B" : "w";
    }
    if (sameSet(positionsOf(pieces, "w"), positionsOf(initial, "B")) && sameSet(positionsOf(pieces, "B"), positionsOf(initial, "w"))) {
      const optimal = pythonLenOf(meta(entry, "solution"));
      return moves.length <= optimal ? 1 : optimal / moves.length;
    }
    return 0.05;
  } catch {
    return 0;
  }
}

// ---- kakurasu, survo: grids checked against sums or the stored solution ----

/** A metadata int (bool included) as a JS number for loops and lengths; anything else is Python's TypeError. */
const count = (value: PyValue): number => Number(intOf(value));

/** kakurasu's `_parse_grid`: per line, its 0/1 characters as ints. */
const binaryGrid = (answer: string): bigint[][] =>
  pythonStrip(answer)
    .split("\n")
    .map((line) => codePoints(pythonStrip(line)).filter((ch) => ch === "0" || ch === "1").map((ch) => BigInt(ch)));

/**
 * kakurasu: the answer's 0/1 grid (`metadata.n_rows` × `n_cols`) whose row sums (1-based column weights of its
 * 1s) and column sums (1-based row weights) equal `metadata.row_sums` and `col_sums` → 1.0; anything else 0.0.
 */
export function kakurasu(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const rowSums = meta(entry, "row_sums");
  const colSums = meta(entry, "col_sums");
  const nRows = meta(entry, "n_rows");
  const nCols = meta(entry, "n_cols");
  try {
    const grid = binaryGrid(answer);
    if (!pythonEquals(BigInt(grid.length), nRows) || grid.some((row) => !pythonEquals(BigInt(row.length), nCols))) return 0;
    const answerRowSums = grid.map((row) => row.reduce((sum, cell, j) => (cell === 1n ? sum + BigInt(j + 1) : sum), 0n));
    if (!pythonEquals(answerRowSums, rowSums)) return 0;
    const rows = count(nRows);
    const answerColSums = Array.from({ length: Math.max(0, count(nCols)) }, (_, j) => {
      let sum = 0n;
      for (let i = 0; i < rows; i++) if (pythonGetItem(pythonGetItem(grid as PyValue, BigInt(i)), BigInt(j)) === 1n) sum += BigInt(i + 1);
      return sum;
    });
    return pythonEquals(answerColSums, colSums) ? 1 : 0;
  } catch {
    return 0;
  }
}

/** survo's `_parse_grid`: per line, its whitespace-separated ints (other tokens skipped); empty rows dropped. */
function integerGrid(answer: string): bigint[][] {
  const grid: bigint[][] = [];
  for (const line of pythonStrip(answer).split("\n")) {
    const row: bigint[] = [];
    for (const token of splitWhitespace(pythonStrip(line))) {
      try {
        row.push(pythonIntBig(token));
      } catch {
        // Python's `except ValueError: continue`
      }
    }
    if (row.length > 0) grid.push(row);
  }
  return grid;
}

/** survo: the answer's integer grid equal, cell by cell, to `metadata.solution` (`board_size` square) → 1.0; else 0.0. */
export function survo(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const boardSize = meta(entry, "board_size");
  const grid = integerGrid(answer);
  const solution = meta(entry, "solution");
  if (!pythonEquals(BigInt(grid.length), boardSize) || grid.some((row) => !pythonEquals(BigInt(row.length), boardSize))) return 0;
  const size = count(boardSize);
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) if (!pythonEquals(grid[i]![j]!, pythonGetItem(pythonGetItem(solution, BigInt(i)), BigInt(j)))) return 0;
  }
  return 1;
}

/**
 * tsumego: the answer upper-cased equal to the oracle (both stripped) → 1.0; the oracle inside it →
 * len(oracle)/len(answer); another single point such as "C4" → 0.05; anything else non-empty → 0.01.
 */
export function tsumego(answer: string | null, entry: Entry): number {
  const oracle = pythonStrip(oracleText(entry));
  if (answer === null || answer.length === 0) return 0;
  const given = pythonStrip(answer).toUpperCase();
  if (given === oracle) return 1;
  if (given.includes(oracle)) return pythonLen(oracle) / pythonLen(given);
  return pythonMatch(String.raw`^([A-Z])(\d+)$`, given) ? 0.05 : 0.01;
}
