// Sokoban room generation as NeMo Gym's grl_sokoban does it (its sokoban_env/generation.py, adapted from
// gym_sokoban's room_utils): a random-walk topology, a player and boxes dropped on free cells, then a depth-first
// "reverse play" that pulls the boxes off their targets, keeping the state with the highest (box swaps x box
// displacement) score, and a few random player steps. Every random draw is the one the Python makes, in the same
// order and from the same generator: Python's `random` for the walk, the masks and the player steps, NumPy's legacy
// global generator for where the player and the boxes go. Seeded alike, the same room comes out.
import type { NumpyRandomState } from "../../python/numpy-random.ts";
import type { PythonRandom } from "../../python/random.ts";

/** Cell codes of gym_sokoban's room matrices. */
export const WALL = 0;
export const FLOOR = 1;
export const TARGET = 2;
export const BOX_ON_TARGET = 3;
export const BOX = 4;
export const PLAYER = 5;

/** The two generators the Python draws from: `random` (Python's module-level Random) and `np.random`. */
export interface SokobanRandom {
  py: PythonRandom;
  np: NumpyRandomState;
}

/** A rows x cols integer matrix, row-major (NumPy's order, so "first where" scans match `np.where`). */
export class Grid {
  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly cells: Int8Array = new Int8Array(rows * cols),
  ) {}

  get(r: number, c: number): number {
    return this.cells[r * this.cols + c]!;
  }

  set(r: number, c: number, value: number): void {
    this.cells[r * this.cols + c] = value;
  }

  copy(): Grid {
    return new Grid(this.rows, this.cols, this.cells.slice());
  }

  /** `grid[grid == from] = to`. */
  replace(from: number, to: number): void {
    for (let i = 0; i < this.cells.length; i++) if (this.cells[i] === from) this.cells[i] = to;
  }

  count(value: number): number {
    let n = 0;
    for (const cell of this.cells) if (cell === value) n++;
    return n;
  }

  /** Flat indices of the cells equal to value, row-major (`np.where(grid == value)`). */
  where(value: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.cells.length; i++) if (this.cells[i] === value) out.push(i);
    return out;
  }

  /** [row, col] of the first cell equal to value (`np.where(...)[0][0], [1][0]`), or undefined. */
  first(value: number): [number, number] | undefined {
    const i = this.cells.indexOf(value);
    return i < 0 ? undefined : [Math.floor(i / this.cols), i % this.cols];
  }

  rowsOf(): number[][] {
    const out: number[][] = [];
    for (let r = 0; r < this.rows; r++) out.push(Array.from(this.cells.subarray(r * this.cols, (r + 1) * this.cols)));
    return out;
  }
}

/** The Python raises RuntimeError (too few free cells) or RuntimeWarning (no box moved); the env then retries. */
export class RoomGenerationError extends Error {
  override name = "RoomGenerationError";
}

/** gym_sokoban's CHANGE_COORDINATES: 0 up, 1 down, 2 left, 3 right, as (d_row, d_col). */
export const CHANGE_COORDINATES: ReadonlyArray<readonly [number, number]> = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

const MASKS: ReadonlyArray<ReadonlyArray<readonly number[]>> = [
  [
    [0, 0, 0],
    [1, 1, 1],
    [0, 0, 0],
  ],
  [
    [0, 1, 0],
    [0, 1, 0],
    [0, 1, 0],
  ],
  [
    [0, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
  ],
  [
    [0, 0, 0],
    [1, 1, 0],
    [1, 1, 0],
  ],
  [
    [0, 0, 0],
    [0, 1, 1],
    [0, 1, 0],
  ],
];

const DIRECTIONS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

/** The reverse search stops adding states past this many explored ones, as the Python does. */
const MAX_EXPLORED_STATES = 300000;

export interface GeneratedRoom {
  /** The fixed layout: walls, floor, targets. */
  roomStructure: Grid;
  /** Walls, floor, targets, boxes (4) and the player (5). */
  roomState: Grid;
  /** Each box's target (flat index) to the box's current cell (flat index). */
  boxMapping: Map<number, number>;
  /** The reverse search's pulls that led to the chosen state. */
  actionSequence: number[];
}

export interface GenerateRoomOptions {
  dim: readonly [number, number];
  pChangeDirections?: number;
  numSteps?: number;
  numBoxes?: number;
  tries?: number;
  secondPlayer?: boolean;
  searchDepth?: number;
}

/** `generate_room(dim, p_change_directions, num_steps, num_boxes, tries, second_player, search_depth)`. */
export function generateRoom(options: GenerateRoomOptions, rng: SokobanRandom): GeneratedRoom {
  const dim = options.dim;
  const pChange = options.pChangeDirections ?? 0.35;
  const numSteps = options.numSteps ?? 25;
  const numBoxes = options.numBoxes ?? 3;
  const tries = options.tries ?? 4;
  const secondPlayer = options.secondPlayer ?? false;
  const searchDepth = options.searchDepth ?? 100;

  let roomStructure = new Grid(dim[0], dim[1]);
  let roomState = new Grid(dim[0], dim[1]);
  let boxMapping = new Map<number, number>();
  let actionSequence: number[] = [];
  for (let attempt = 0; attempt < tries; attempt++) {
    const room = roomTopologyGeneration(dim, pChange, numSteps, rng.py);
    placeBoxesAndPlayer(room, numBoxes, secondPlayer, rng.np);
    roomStructure = room.copy();
    roomStructure.replace(PLAYER, FLOOR);
    roomState = room.copy();
    roomState.replace(TARGET, BOX);
    ({ roomState, boxMapping, actionSequence } = reversePlaying(roomState, roomStructure, searchDepth));
    roomState.replace(BOX_ON_TARGET, BOX);
    if (boxDisplacementScore(boxMapping, dim[1]) > 0) break;
  }
  const score = boxDisplacementScore(boxMapping, dim[1]);
  if (score === 0) throw new RoomGenerationError("Generated Model with score == 0");
  addRandomPlayerMovement(roomState, roomStructure, score === 1 ? 0.8 : 0.5, 0.5, 3, rng.py);
  return { roomStructure, roomState, boxMapping, actionSequence };
}

/** `room_topology_generation`: a walk of 3x3 masks from a random start, walls all round. */
export function roomTopologyGeneration(
  dim: readonly [number, number],
  pChangeDirections: number,
  numSteps: number,
  py: PythonRandom,
): Grid {
  const [dimX, dimY] = dim;
  let direction = py.sample(DIRECTIONS, 1)[0]!;
  // The list literal draws x before y.
  const position = [py.randint(1, dimX - 1), py.randint(1, dimY - 1)] as [number, number];
  const level = new Grid(dimX, dimY);
  for (let step = 0; step < numSteps; step++) {
    if (py.random() < pChangeDirections) direction = py.sample(DIRECTIONS, 1)[0]!;
    position[0] = Math.max(Math.min(position[0] + direction[0], dimX - 2), 1);
    position[1] = Math.max(Math.min(position[1] + direction[1], dimY - 2), 1);
    const mask = py.sample(MASKS, 1)[0]!;
    const r0 = position[0] - 1;
    const c0 = position[1] - 1;
    // NumPy's slice assignment clips at the edge; the clamped position keeps the 3x3 inside.
    for (let dr = 0; dr < 3; dr++) {
      for (let dc = 0; dc < 3; dc++) {
        const r = r0 + dr;
        const c = c0 + dc;
        if (r < dimX && c < dimY) level.set(r, c, level.get(r, c) + mask[dr]![dc]!);
      }
    }
  }
  level.cells.forEach((cell, i) => {
    if (cell > 0) level.cells[i] = 1;
  });
  for (let r = 0; r < dimX; r++) {
    level.set(r, 0, WALL);
    level.set(r, dimY - 1, WALL);
  }
  for (let c = 0; c < dimY; c++) {
    level.set(0, c, WALL);
    level.set(dimX - 1, c, WALL);
  }
  return level;
}

/** `place_boxes_and_player`: the player, then each box, on a uniformly drawn free cell (np.random.randint). */
export function placeBoxesAndPlayer(room: Grid, numBoxes: number, secondPlayer: boolean, np: NumpyRandomState): void {
  let free = room.where(FLOOR);
  const numPlayers = secondPlayer ? 2 : 1;
  if (free.length <= numBoxes + numPlayers) {
    throw new RoomGenerationError(
      `Not enough free spots (${free.length}) to place ${numPlayers} player(s) and ${numBoxes} boxes.`,
    );
  }
  room.cells[free[np.randint(0, free.length, 1)[0]!]!] = PLAYER;
  if (secondPlayer) room.cells[free[np.randint(0, free.length, 1)[0]!]!] = PLAYER;
  for (let box = 0; box < numBoxes; box++) {
    free = room.where(FLOOR);
    room.cells[free[np.randint(0, free.length, 1)[0]!]!] = TARGET;
  }
}

/** `add_random_player_movement`: maybe up to maxSteps random steps onto free cells not visited yet. */
export function addRandomPlayerMovement(
  roomState: Grid,
  roomStructure: Grid,
  moveProbability: number,
  continueProbability: number,
  maxSteps: number,
  py: PythonRandom,
): void {
  if (py.random() > moveProbability) return;
  let player = roomState.first(PLAYER)!;
  const visited = [player];
  let steps = 0;
  while (steps < maxSteps) {
    const valid: Array<[number, number]> = [];
    for (const change of CHANGE_COORDINATES) {
      const next: [number, number] = [player[0] + change[0], player[1] + change[1]];
      const cell = roomState.get(next[0], next[1]);
      if ((cell === FLOOR || cell === TARGET) && !visited.some(([r, c]) => r === next[0] && c === next[1])) {
        valid.push(next);
      }
    }
    if (valid.length === 0) break;
    const next = py.choice(valid);
    roomState.set(player[0], player[1], roomStructure.get(player[0], player[1]));
    roomState.set(next[0], next[1], PLAYER);
    player = next;
    visited.push(player);
    steps++;
    if (steps >= maxSteps || py.random() > continueProbability) break;
  }
}

interface SearchNode {
  state: Grid;
  mapping: Map<number, number>;
  boxSwaps: number;
  /** The target (flat index) of the box pulled last, -1 before any pull. */
  lastPull: number;
  ttl: number;
  actions: number[];
}

/** `reverse_playing`: depth-first over pulls (LIFO, actions 0..3 pushed in order), best score kept. */
export function reversePlaying(
  roomState: Grid,
  roomStructure: Grid,
  searchDepth: number,
): { roomState: Grid; boxMapping: Map<number, number>; actionSequence: number[] } {
  const cols = roomStructure.cols;
  const boxMapping = new Map<number, number>();
  for (const target of roomStructure.where(TARGET)) boxMapping.set(target, target);
  const numBoxes = boxMapping.size;

  const explored = new Set<string>();
  let bestScore = -1;
  let bestRoom = roomState.copy();
  let bestMapping = new Map(boxMapping);
  let bestActions: number[] = [];

  const stack: SearchNode[] = [
    { state: roomState.copy(), mapping: new Map(boxMapping), boxSwaps: 0, lastPull: -1, ttl: searchDepth, actions: [] },
  ];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const ttl = node.ttl - 1;
    if (ttl <= 0 || explored.size >= MAX_EXPLORED_STATES) continue;
    // marshal.dumps of the array is its raw cell bytes: the same key for the same cells.
    const key = Buffer.from(node.state.cells.buffer, node.state.cells.byteOffset, node.state.cells.length).toString(
      "latin1",
    );
    if (explored.has(key)) continue;

    let score = node.boxSwaps * boxDisplacementScore(node.mapping, cols);
    if (node.state.count(TARGET) !== numBoxes) score = 0;
    if (score > bestScore) {
      bestRoom = node.state.copy();
      bestScore = score;
      bestMapping = new Map(node.mapping);
      bestActions = [...node.actions];
    }
    explored.add(key);

    for (let action = 0; action < 4; action++) {
      const state = node.state.copy();
      const mapping = new Map(node.mapping);
      const lastPull = reverseMove(state, roomStructure, mapping, node.lastPull, action);
      stack.push({
        state,
        mapping,
        boxSwaps: lastPull !== node.lastPull ? node.boxSwaps + 1 : node.boxSwaps,
        lastPull,
        ttl,
        actions: [...node.actions, action],
      });
    }
  }
  return { roomState: bestRoom, boxMapping: bestMapping, actionSequence: bestActions };
}

/** `reverse_move`: the player steps (actions 0..3 also pull a box behind it); returns the new last pull. */
export function reverseMove(
  roomState: Grid,
  roomStructure: Grid,
  boxMapping: Map<number, number>,
  lastPull: number,
  action: number,
): number {
  const cols = roomState.cols;
  const [pr, pc] = roomState.first(PLAYER)!;
  const change = CHANGE_COORDINATES[action % 4]!;
  const nr = pr + change[0];
  const nc = pc + change[1];
  const next = roomState.get(nr, nc);
  if (next !== FLOOR && next !== TARGET) return lastPull;
  roomState.set(pr, pc, roomStructure.get(pr, pc));
  roomState.set(nr, nc, PLAYER);
  if (action < 4) {
    const br = pr - change[0];
    const bc = pc - change[1];
    const behind = roomState.get(br, bc);
    if (behind === BOX_ON_TARGET || behind === BOX) {
      roomState.set(pr, pc, BOX_ON_TARGET);
      roomState.set(br, bc, roomStructure.get(br, bc));
      const boxCell = br * cols + bc;
      for (const [target, location] of boxMapping) {
        if (location === boxCell) {
          boxMapping.set(target, pr * cols + pc);
          lastPull = target;
        }
      }
    }
  }
  return lastPull;
}

/** `box_displacement_score`: the summed Manhattan distance of each box from its target. */
export function boxDisplacementScore(boxMapping: ReadonlyMap<number, number>, cols: number): number {
  let score = 0;
  for (const [target, location] of boxMapping) {
    score +=
      Math.abs(Math.floor(location / cols) - Math.floor(target / cols)) + Math.abs((location % cols) - (target % cols));
  }
  return score;
}
