// NeMo Gym's grl_tetris environment (tetris_env/tetris_env.py, from GRL's tetrisAgent): a width x height board
// indexed board[x][y] (y down), pieces of box_type 1 (a single cell), 2 (I and -) or 3 (I, - and O), chosen by
// count-balancing weights and pre-generated at reset (width * height + 1 of them) with Python's `random` seeded by
// the reset's seed. A step moves the piece (left, right, soft drop), costs 0.1, lands it when it cannot fall, clears
// full rows (+10 each) and ends the game on a clear or when the top row fills.
//
// One quirk is ported as it is: the shape counts behind the weights are not reset by reset(). NeMo's constructor
// runs an unseeded reset first (its draws come from the process's module-level `random`, whose state it restores
// afterwards), so a seeded reset starts from counts that depend on the server process's start-up entropy; with
// box_type 2 or 3 the same seed can give different pieces in different processes. `initialRandom` is that
// process state (default: this process's stand-in, seeded from the OS, as Python's is).
import { NumpyRandomState } from "../../python/numpy-random.ts";
import { PythonRandom } from "../../python/random.ts";
import { processPythonRandom, seedProblem } from "./random-sources.ts";

type Cell = readonly [number, number];
type Shape = readonly Cell[];

const SHAPES_BY_BOX_TYPE: Record<1 | 2 | 3, ReadonlyArray<readonly [string, Shape]>> = {
  1: [["O", [[0, 0]]]],
  2: [
    [
      "I",
      [
        [0, 0],
        [0, -1],
      ],
    ],
    [
      "-",
      [
        [0, 0],
        [-1, 0],
      ],
    ],
  ],
  3: [
    [
      "I",
      [
        [0, 0],
        [0, -1],
      ],
    ],
    [
      "-",
      [
        [0, 0],
        [-1, 0],
      ],
    ],
    [
      "O",
      [
        [0, 0],
        [-1, 0],
        [0, -1],
        [-1, -1],
      ],
    ],
  ],
};

export const TETRIS_DEFAULT_GRID_LOOKUP: ReadonlyMap<number, string> = new Map([
  [0, "_"],
  [1, "#"],
  [2, "X"],
]);
export const TETRIS_DEFAULT_ACTION_LOOKUP: ReadonlyMap<number, string> = new Map([
  [0, "Left"],
  [1, "Right"],
  [2, "Down"],
]);

/** The env's own actions: 0 left, 1 right, 2 soft drop. */
export const TETRIS_ACTIONS: ReadonlySet<number> = new Set([0, 1, 2]);

export interface TetrisEnvConfig {
  /** Board width (NeMo's dim_x, default 4). */
  width?: number;
  /** Board height (NeMo's dim_y, default 4). */
  height?: number;
  /** Kept for the server's action parsing; the rendering is fixed ("_", "#", "X") whatever this says, as in NeMo. */
  gridLookup?: ReadonlyMap<number, string>;
  actionLookup?: ReadonlyMap<number, string>;
  /** 2 or 3 for those piece sets; anything else is the single-cell piece (NeMo's env defaults to 1). */
  boxType?: unknown;
  /** The module-level `random` the constructor's unseeded reset draws from (its state is left unchanged). */
  initialRandom?: PythonRandom;
  /**
   * The shape counts after the constructor's unseeded reset, given directly instead of drawn (for replaying a
   * recorded episode whose process state is unknown); its length must be the box type's number of shapes.
   */
  initialShapeCounts?: readonly number[];
  /** Where pieces beyond the pre-generated ones come from (NeMo: the module-level `random`, unrestored). */
  processRandom?: PythonRandom;
}

export interface TetrisStepInfo {
  action_is_effective: boolean;
  action_is_valid: true;
  success: boolean;
  dropped: boolean;
}

export interface TetrisStepResult {
  observation: string;
  reward: number;
  done: boolean;
  info: TetrisStepInfo | { error: "Invalid action" };
}

export class TetrisEnv {
  readonly width: number;
  readonly height: number;
  readonly gridLookup: ReadonlyMap<number, string>;
  readonly actionLookup: ReadonlyMap<number, string>;
  readonly shapes: ReadonlyArray<Shape>;
  /** How many of each shape have been generated since construction (never reset; see the module comment). */
  readonly shapeCounts: number[];
  board: boolean[][];
  anchor: [number, number] | undefined;
  shape: Shape | undefined;
  time = 0;
  score = 0;
  private preGenerated: Array<{ anchor: [number, number]; shape: Shape }> = [];
  private currentPieceIndex = 0;
  private readonly processRandom: PythonRandom;

  constructor(config: TetrisEnvConfig = {}) {
    this.width = config.width ?? 4;
    this.height = config.height ?? 4;
    this.gridLookup = config.gridLookup ?? TETRIS_DEFAULT_GRID_LOOKUP;
    this.actionLookup = config.actionLookup ?? TETRIS_DEFAULT_ACTION_LOOKUP;
    const boxType = config.boxType === 2 || config.boxType === 3 ? config.boxType : 1;
    this.shapes = SHAPES_BY_BOX_TYPE[boxType].map(([, shape]) => shape);
    this.shapeCounts = this.shapes.map(() => 0);
    this.board = this.emptyBoard();
    this.processRandom = config.processRandom ?? processPythonRandom();
    if (config.initialShapeCounts !== undefined) {
      if (config.initialShapeCounts.length !== this.shapes.length) throw new RangeError(`initialShapeCounts: ${this.shapes.length} counts expected`);
      this.shapeCounts.splice(0, this.shapeCounts.length, ...config.initialShapeCounts);
    } else {
      // NeMo's __init__ ends with self.reset(): unseeded, on the module-level state, which all_seed then restores.
      this.generate((config.initialRandom ?? this.processRandom).clone());
    }
  }

  /** `reset(seed)`: the board emptied and width * height + 1 pieces drawn, then the first one placed. */
  reset(seed?: number | null): string {
    const problem = seedProblem(seed);
    if (problem) throw new RangeError(problem);
    if (seed !== undefined && seed !== null) {
      new NumpyRandomState(seed); // np.random.seed(seed) is called (and validates) but nothing here draws from it.
      this.generate(new PythonRandom(seed));
    } else {
      // all_seed(None) leaves the module-level state where it was, so unseeded resets repeat.
      this.generate(this.processRandom.clone());
    }
    return this.render();
  }

  step(action: number): TetrisStepResult {
    if (!TETRIS_ACTIONS.has(action)) return { observation: this.render(), reward: 0, done: true, info: { error: "Invalid action" } };
    const previous = this.anchor ? ([...this.anchor] as [number, number]) : undefined;
    if (action === 0) this.shift(-1, 0);
    else if (action === 1) this.shift(1, 0);
    else this.shift(0, 1);
    this.time += 1;
    let reward = -0.1;
    let done = false;
    let dropped = false;
    let linesCleared = 0;
    if (this.hasDropped()) {
      dropped = true;
      this.setPiece(true);
      linesCleared = this.clearLines();
      reward += linesCleared * 10;
      if (this.board.some((column) => column[0])) done = true;
      else this.newPiece();
    }
    this.setPiece(true);
    const observation = this.render();
    this.setPiece(false);
    if (linesCleared > 0) done = true;
    return {
      observation,
      reward,
      done,
      info: {
        action_is_effective:
          previous !== undefined && (previous[0] !== this.anchor![0] || previous[1] !== this.anchor![1]),
        action_is_valid: true,
        success: linesCleared > 0,
        dropped,
      },
    };
  }

  /**
   * The text board, rows top to bottom: "#" where the board is set, "_" elsewhere, then "X" on the piece's cells.
   * Like the Python it sets and then clears the piece's cells on the board, which can clear a settled cell the
   * piece covers (the final board of a lost game).
   */
  render(): string {
    const lines: string[][] = [];
    for (let y = 0; y < this.height; y++) {
      const line: string[] = [];
      for (let x = 0; x < this.width; x++) line.push(this.board[x]![y] ? "#" : "_");
      lines.push(line);
    }
    this.setPiece(true);
    const positions = this.shape!.map(([dx, dy]) => [this.anchor![0] + dx, this.anchor![1] + dy] as const);
    this.setPiece(false);
    for (const [x, y] of positions) {
      if (y >= 0 && y < lines.length && x >= 0 && x < this.width) lines[y]![x] = "X";
    }
    return lines.map((line) => line.join("")).join("\n");
  }

  private emptyBoard(): boolean[][] {
    return Array.from({ length: this.width }, () => new Array<boolean>(this.height).fill(false));
  }

  private generate(random: PythonRandom): void {
    this.time = 0;
    this.score = 0;
    this.board = this.emptyBoard();
    this.preGenerated = [];
    this.currentPieceIndex = 0;
    const count = this.width * this.height + 1;
    for (let i = 0; i < count; i++) this.preGenerated.push(this.generatePiece(random));
    this.newPiece();
  }

  private chooseShape(random: PythonRandom): Shape {
    const maxCount = Math.max(...this.shapeCounts);
    const weights = this.shapeCounts.map((count) => 5 + maxCount - count);
    let r = random.randint(1, weights.reduce((a, b) => a + b, 0));
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r <= 0) {
        this.shapeCounts[i]! += 1;
        return this.shapes[i]!;
      }
    }
    return this.shapes[0]!;
  }

  private generatePiece(random: PythonRandom): { anchor: [number, number]; shape: Shape } {
    const shape = this.chooseShape(random);
    const wide = shape.some(([dx, dy]) => dx === -1 && dy === 0);
    return { anchor: [random.randint(wide ? 1 : 0, this.width - 1), 0], shape };
  }

  private newPiece(): void {
    const piece =
      this.currentPieceIndex < this.preGenerated.length
        ? this.preGenerated[this.currentPieceIndex++]!
        : this.generatePiece(this.processRandom);
    this.anchor = [...piece.anchor];
    this.shape = piece.shape;
  }

  private occupied(anchor: readonly [number, number]): boolean {
    for (const [dx, dy] of this.shape!) {
      const x = anchor[0] + dx;
      const y = anchor[1] + dy;
      if (y < 0) continue;
      if (x < 0 || x >= this.width || y >= this.height || this.board[x]![y]) return true;
    }
    return false;
  }

  private hasDropped(): boolean {
    return this.occupied([this.anchor![0], this.anchor![1] + 1]);
  }

  private shift(dx: number, dy: number): void {
    const next: [number, number] = [this.anchor![0] + dx, this.anchor![1] + dy];
    if (!this.occupied(next)) this.anchor = next;
  }

  private setPiece(on: boolean): void {
    for (const [dx, dy] of this.shape!) {
      const x = this.anchor![0] + dx;
      const y = this.anchor![1] + dy;
      if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.board[x]![y] = on;
    }
  }

  private clearLines(): number {
    const full: boolean[] = [];
    for (let y = 0; y < this.height; y++) full.push(this.board.every((column) => column[y]));
    const next = this.emptyBoard();
    let write = this.height - 1;
    for (let y = this.height - 1; y >= 0; y--) {
      if (!full[y]) {
        for (let x = 0; x < this.width; x++) next[x]![write] = this.board[x]![y]!;
        write--;
      }
    }
    const cleared = full.filter(Boolean).length;
    this.score += cleared;
    this.board = next;
    return cleared;
  }
}
