// NeMo Gym's grl_sokoban environment (sokoban_env/sokoban_env.py, a subclass of gym_sokoban 0.0.6's SokobanEnv):
// a seeded room from sokoban-generation.ts, gym_sokoban's push/move rules and rewards (-0.1 a step, +1 a box onto a
// target, -1 a box off one, +10 when all are on), done when every box is on a target or after max_steps steps, and
// the text rendering NeMo's subclass adds (player on a target drawn as code 6).
import { NumpyRandomState } from "../../python/numpy-random.ts";
import { PythonRandom } from "../../python/random.ts";
import { pythonStrHashUnrandomised } from "../../python/str-hash.ts";
import { processNumpyRandom, processPythonRandom, seedProblem } from "./random-sources.ts";
import {
  BOX,
  BOX_ON_TARGET,
  CHANGE_COORDINATES,
  FLOOR,
  generateRoom,
  Grid,
  PLAYER,
  RoomGenerationError,
  TARGET,
  type SokobanRandom,
} from "./sokoban-generation.ts";

export const SOKOBAN_DEFAULT_GRID_LOOKUP: ReadonlyMap<number, string> = new Map([
  [0, "#"],
  [1, "_"],
  [2, "O"],
  [3, "√"],
  [4, "X"],
  [5, "P"],
  [6, "S"],
]);
export const SOKOBAN_DEFAULT_ACTION_LOOKUP: ReadonlyMap<number, string> = new Map([
  [1, "Up"],
  [2, "Down"],
  [3, "Left"],
  [4, "Right"],
]);

/** gym_sokoban's ACTION_LOOKUP: 0 no-op, 1-4 push (or move) up/down/left/right, 5-8 move only. */
export const GYM_SOKOBAN_ACTIONS: ReadonlyMap<number, string> = new Map([
  [0, "no operation"],
  [1, "push up"],
  [2, "push down"],
  [3, "push left"],
  [4, "push right"],
  [5, "move up"],
  [6, "move down"],
  [7, "move left"],
  [8, "move right"],
]);

export interface SokobanEnvConfig {
  gridLookup?: ReadonlyMap<number, string>;
  actionLookup?: ReadonlyMap<number, string>;
  /** Reverse-search depth; NeMo's env class defaults it to 300 (the server's env_config sets 100). */
  searchDepth?: number;
  dimRoom?: readonly [number, number];
  maxSteps?: number;
  numBoxes?: number;
}

/** A reset that cannot produce a room: NeMo Gym's Python recurses until its recursion limit (a 500). */
export class SokobanResetError extends Error {
  override name = "SokobanResetError";
}

/**
 * How many rooms a reset tries: NeMo's reset retries a failed generation by calling itself with a new seed, which
 * ends at Python's recursion limit (1000 frames, less what the server stack already holds).
 */
export const MAX_RESET_ATTEMPTS = 1000;

export interface SokobanStepResult {
  observation: string;
  reward: number;
  done: boolean;
  info: { action_is_effective: boolean; action_is_valid: true; success: boolean };
}

export class SokobanEnv {
  readonly gridLookup: ReadonlyMap<number, string>;
  readonly actionLookup: ReadonlyMap<number, string>;
  readonly searchDepth: number;
  readonly dimRoom: readonly [number, number];
  readonly maxSteps: number;
  readonly numBoxes: number;
  /** gym_sokoban's num_gen_steps: int(1.7 * (rows + cols)). */
  readonly numGenSteps: number;

  roomFixed = new Grid(0, 0);
  roomState = new Grid(0, 0);
  boxMapping = new Map<number, number>();
  playerPosition: [number, number] = [0, 0];
  numEnvSteps = 0;
  rewardLast = 0;
  boxesOnTarget = 0;

  constructor(config: SokobanEnvConfig = {}) {
    this.gridLookup = config.gridLookup ?? SOKOBAN_DEFAULT_GRID_LOOKUP;
    this.actionLookup = config.actionLookup ?? SOKOBAN_DEFAULT_ACTION_LOOKUP;
    this.searchDepth = config.searchDepth ?? 300;
    this.dimRoom = config.dimRoom ?? [6, 6];
    this.maxSteps = config.maxSteps ?? 100;
    this.numBoxes = config.numBoxes ?? 1;
    this.numGenSteps = Math.trunc(1.7 * (this.dimRoom[0] + this.dimRoom[1]));
  }

  /**
   * `reset(seed)`: Python's `random` and NumPy's generator both seeded with the seed (or, with none, the process's
   * unseeded pair). A failed generation retries with seed `abs(hash(str(seed))) % 2**32`; CPython's str hash is
   * keyed per process unless PYTHONHASHSEED=0, and this port computes the PYTHONHASHSEED=0 value, so those rooms
   * match NeMo Gym run with PYTHONHASHSEED=0 only.
   */
  reset(seed?: number | null): string {
    const problem = seedProblem(seed);
    if (problem) throw new RangeError(problem);
    let current = seed ?? null;
    for (let attempt = 0; attempt < MAX_RESET_ATTEMPTS; attempt++) {
      const rng: SokobanRandom =
        current === null
          ? { py: processPythonRandom(), np: processNumpyRandom() }
          : { py: new PythonRandom(current), np: new NumpyRandomState(current) };
      try {
        const room = generateRoom(
          { dim: this.dimRoom, numSteps: this.numGenSteps, numBoxes: this.numBoxes, searchDepth: this.searchDepth },
          rng,
        );
        this.roomFixed = room.roomStructure;
        this.roomState = room.roomState;
        this.boxMapping = room.boxMapping;
        this.numEnvSteps = 0;
        this.rewardLast = 0;
        this.boxesOnTarget = 0;
        this.playerPosition = this.roomState.first(PLAYER)!;
        return this.render();
      } catch (error) {
        if (!(error instanceof RoomGenerationError)) throw error;
        current = current === null ? null : Number(abs(pythonStrHashUnrandomised(String(current))) % 2n ** 32n);
      }
    }
    throw new SokobanResetError(
      `no Sokoban room could be generated for dim_room ${JSON.stringify(this.dimRoom)} with num_boxes ${this.numBoxes} ` +
        `in ${MAX_RESET_ATTEMPTS} attempts (NeMo Gym's Python recurses until its recursion limit here)`,
    );
  }

  /** `step(action)` for one of gym_sokoban's actions 0..8: the new text board, reward, done and NeMo's info. */
  step(action: number): SokobanStepResult {
    if (!GYM_SOKOBAN_ACTIONS.has(action)) throw new RangeError(`not a gym_sokoban action: ${action}`);
    const previous: [number, number] = [...this.playerPosition];
    this.numEnvSteps += 1;
    if (action >= 1 && action <= 4) this.push(action);
    else if (action >= 5) this.move(action);
    this.calcReward();
    const done = this.allBoxesOnTarget() || this.maxSteps === this.numEnvSteps;
    return {
      observation: this.render(),
      reward: this.rewardLast,
      done,
      info: {
        action_is_effective: previous[0] !== this.playerPosition[0] || previous[1] !== this.playerPosition[1],
        action_is_valid: true,
        success: this.boxesOnTarget === this.numBoxes,
      },
    };
  }

  /** The text board: each cell through the grid lookup ("?" where it has none), the player on a target as 6. */
  render(): string {
    const lines: string[] = [];
    for (let r = 0; r < this.roomState.rows; r++) {
      let line = "";
      for (let c = 0; c < this.roomState.cols; c++) {
        const cell =
          this.roomState.get(r, c) === PLAYER && this.roomFixed.get(r, c) === TARGET ? 6 : this.roomState.get(r, c);
        line += this.gridLookup.get(cell) ?? "?";
      }
      lines.push(line);
    }
    return lines.join("\n");
  }

  private push(action: number): void {
    const change = CHANGE_COORDINATES[(action - 1) % 4]!;
    const [pr, pc] = this.playerPosition;
    const nr = pr + change[0];
    const nc = pc + change[1];
    const br = nr + change[0];
    const bc = nc + change[1];
    // gym_sokoban checks only the far edges (a negative index would wrap in NumPy; walls make it unreachable).
    if (br >= this.roomState.rows || bc >= this.roomState.cols) return;
    const next = this.cellAt(nr, nc);
    const beyond = this.cellAt(br, bc);
    if ((next === BOX_ON_TARGET || next === BOX) && (beyond === FLOOR || beyond === TARGET)) {
      this.playerPosition = [nr, nc];
      this.roomState.set(nr, nc, PLAYER);
      this.roomState.set(pr, pc, this.roomFixed.get(pr, pc));
      this.roomState.set(br, bc, this.roomFixed.get(br, bc) === TARGET ? BOX_ON_TARGET : BOX);
      return;
    }
    this.move(action);
  }

  private move(action: number): boolean {
    const change = CHANGE_COORDINATES[(action - 1) % 4]!;
    const [pr, pc] = this.playerPosition;
    const nr = pr + change[0];
    const nc = pc + change[1];
    const next = this.cellAt(nr, nc);
    if (next !== FLOOR && next !== TARGET) return false;
    this.playerPosition = [nr, nc];
    this.roomState.set(nr, nc, PLAYER);
    this.roomState.set(pr, pc, this.roomFixed.get(pr, pc));
    return true;
  }

  /** NumPy indexing: a negative index counts from the end. */
  private cellAt(r: number, c: number): number {
    const rr = r < 0 ? r + this.roomState.rows : r;
    const cc = c < 0 ? c + this.roomState.cols : c;
    return this.roomState.get(rr, cc);
  }

  private uncoveredTargets(): number {
    let n = 0;
    for (let i = 0; i < this.roomState.cells.length; i++) {
      const state = this.roomState.cells[i];
      if (state === TARGET || (state === PLAYER && this.roomFixed.cells[i] === TARGET)) n++;
    }
    return n;
  }

  private allBoxesOnTarget(): boolean {
    return this.uncoveredTargets() === 0;
  }

  private calcReward(): void {
    this.rewardLast = -0.1;
    const onTarget = this.numBoxes - this.uncoveredTargets();
    if (onTarget > this.boxesOnTarget) this.rewardLast += 1;
    else if (onTarget < this.boxesOnTarget) this.rewardLast += -1;
    if (this.allBoxesOnTarget()) this.rewardLast += 10;
    this.boxesOnTarget = onTarget;
  }
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

export { Grid };
