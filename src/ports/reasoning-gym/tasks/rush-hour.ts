// reasoning-gym's rush_hour scorer: the answer's moves ("A+1 B-2 …") replayed on the 6×6 board of
// `metadata.board_config` with the library's bitmask simulator, its quirks included (a blocked step is skipped
// silently; a letter one past the last piece raises).
import { pythonFindall } from "../../../python/re/index.ts";
import { pythonIntBig } from "../../../python/numbers.ts";
import { codePoints, compareStrings } from "../../../python/str.ts";
import { IndexError } from "../../../python/exception.ts";
import { item, type Entry } from "../types.ts";

const SIZE = 6;
const CELLS = SIZE * SIZE;
const TARGET = 2 * SIZE + SIZE - 2; // the primary piece's cell when it reaches the exit
const H = 1;
const V = SIZE;

const rowMask = (y: number): bigint => Array.from({ length: SIZE }, (_, x) => 1n << BigInt(y * SIZE + x)).reduce((a, b) => a | b);
const columnMask = (x: number): bigint => Array.from({ length: SIZE }, (_, y) => 1n << BigInt(y * SIZE + x)).reduce((a, b) => a | b);
const TOP_ROW = rowMask(0);
const BOTTOM_ROW = rowMask(SIZE - 1);
const LEFT_COLUMN = columnMask(0);
const RIGHT_COLUMN = columnMask(SIZE - 1);

class Piece {
  mask = 0n;
  constructor(
    public position: number,
    readonly size: number,
    readonly stride: number,
  ) {
    for (let i = 0, p = position; i < size; i++, p += stride) this.mask |= 1n << BigInt(p);
  }
  get fixed(): boolean {
    return this.size === 1;
  }
  move(steps: number): void {
    const d = this.stride * steps;
    this.position += d;
    this.mask = steps > 0 ? this.mask << BigInt(d) : this.mask >> BigInt(-d);
  }
}

class Board {
  private horizontal = 0n;
  private vertical = 0n;
  private readonly pieces: Piece[] = [];

  constructor(description: string) {
    const cells = codePoints(description);
    if (cells.length !== CELLS) throw new Error("ValueError: board string is wrong length");
    const positions = new Map<string, number[]>();
    const walls: number[] = [];
    cells.forEach((label, i) => {
      if (label === "o") return;
      if (label === "x") return void walls.push(i);
      positions.set(label, [...(positions.get(label) ?? []), i]);
    });
    for (const label of [...positions.keys()].sort(compareStrings)) {
      const ps = positions.get(label)!;
      if (ps.length < 2 || ps.length > 3) throw new Error("ValueError: piece size");
      const stride = ps[1]! - ps[0]!;
      if (stride !== H && stride !== V) throw new Error("ValueError: invalid piece shape");
      for (let i = 2; i < ps.length; i++) if (ps[i]! - ps[i - 1]! !== stride) throw new Error("ValueError: invalid piece shape");
      this.add(new Piece(ps[0]!, ps.length, stride));
    }
    for (const wall of walls) this.add(new Piece(wall, 1, 1));
  }

  private add(piece: Piece): void {
    this.pieces.push(piece);
    if (piece.stride === H) this.horizontal |= piece.mask;
    else this.vertical |= piece.mask;
  }

  private step(piece: Piece, steps: number): void {
    if (piece.stride === H) {
      this.horizontal &= ~piece.mask;
      piece.move(steps);
      this.horizontal |= piece.mask;
    } else {
      this.vertical &= ~piece.mask;
      piece.move(steps);
      this.vertical |= piece.mask;
    }
  }

  /**
   * Moves a piece up to |steps| cells, one at a time, while the next cell is free in the board as it was before
   * the move. A blocked step changes nothing, so every later step is blocked too: stopping there is the
   * library's loop without its wasted iterations (it would spin through `range(abs(steps))`).
   */
  move(target: string, steps: bigint): void {
    const occupied = this.horizontal | this.vertical;
    const i = target.charCodeAt(0) - 65;
    if (i < 0 || i > this.pieces.length) return;
    if (i === this.pieces.length) throw new IndexError("list index out of range");
    const piece = this.pieces[i]!;
    if (piece.fixed) return;
    const [back, forward, shift] = piece.stride === H ? [LEFT_COLUMN, RIGHT_COLUMN, BigInt(H)] : [TOP_ROW, BOTTOM_ROW, BigInt(V)];
    for (let n = steps < 0n ? -steps : steps; n > 0n; n--) {
      if ((piece.mask & back) === 0n && steps < 0n && (occupied & (piece.mask >> shift) & ~piece.mask) === 0n) this.step(piece, -1);
      else if ((piece.mask & forward) === 0n && steps > 0n && (occupied & (piece.mask << shift) & ~piece.mask) === 0n) this.step(piece, 1);
      else break;
    }
  }

  /** Every `([A-Z])([+-])(\d+)` in the text, in order. */
  performMoves(ops: string): void {
    for (const [target, sign, digits] of pythonFindall<string[]>(String.raw`([A-Z])([+-])(\d+)`, ops)) {
      const count = pythonIntBig(digits);
      this.move(target!, sign === "+" ? count : -count);
    }
  }

  get solved(): boolean {
    const primary = this.pieces[0];
    if (!primary) throw new IndexError("list index out of range");
    return primary.position === TARGET;
  }
}

/** rush_hour: the moves bring the first piece (the red car) to the exit → 1.0; else 0.01; a bad board or move → 0.0. */
export function rushHour(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer.length === 0) return 0;
  try {
    const config = item(entry.metadata, "board_config");
    if (typeof config !== "string") throw new TypeError("board_config is not a str");
    const board = new Board(config);
    board.performMoves(answer);
    return board.solved ? 1 : 0.01;
  } catch {
    return 0;
  }
}
