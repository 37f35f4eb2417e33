// OpenEnv's maze_env (envs/maze_env/server/maze_env_environment.py and maze.py): an 8x8 grid, start (0,0), exit
// (7,7), cells as (col, row). Actions 0 up, 1 down, 2 left, 3 right. Each step's reward: +10 on reaching the exit,
// -0.25 re-entering a visited cell, -0.05 any other move, -0.75 into a wall or off the grid. The episode ends on
// the exit (win) or when the episode's total falls below -0.5 * cells (lose).
import { randomUUID } from "node:crypto";
import { ActionValidationError, isRecord } from "../../../src/ports/openenv/protocol.ts";
import type { Observation, OpenEnvEnvironment, OpenEnvEnvironmentSpec } from "../../../src/ports/openenv/env-server.ts";

export const DEFAULT_MAZE: readonly (readonly number[])[] = [
  [0, 0, 0, 0, 0, 1, 0, 0],
  [1, 1, 0, 1, 0, 1, 0, 1],
  [0, 0, 0, 1, 0, 0, 0, 1],
  [0, 1, 1, 1, 1, 1, 0, 0],
  [0, 0, 0, 0, 0, 0, 1, 0],
  [1, 0, 1, 1, 1, 0, 0, 0],
  [0, 0, 0, 0, 1, 0, 1, 0],
  [0, 1, 1, 0, 0, 0, 0, 0],
];

const UP = 0, DOWN = 1, LEFT = 2, RIGHT = 3;
/** Maze.actions' order: the order possible_actions lists them in. */
const ACTION_ORDER = [LEFT, RIGHT, UP, DOWN];
type Cell = [number, number];
type Status = "win" | "lose" | "playing";

class MazeGame {
  readonly rows = DEFAULT_MAZE.length;
  readonly cols = DEFAULT_MAZE[0]!.length;
  readonly exit: Cell = [this.cols - 1, this.rows - 1];
  private readonly minimumReward = -0.5 * this.rows * this.cols;
  current: Cell = [0, 0];
  previous: Cell = [0, 0];
  totalReward = 0;
  private visited = new Set<string>();

  reset(start: Cell): void {
    const [col, row] = start;
    if (!(col >= 0 && col < this.cols && row >= 0 && row < this.rows)) throw new Error(`Error: start cell at (${col}, ${row}) is not inside maze`);
    if (DEFAULT_MAZE[row]![col] === 1) throw new Error(`Error: start cell at (${col}, ${row}) is not free`);
    if (col === this.exit[0] && row === this.exit[1]) throw new Error(`Error: start- and exit cell cannot be the same (${col}, ${row})`);
    this.current = this.previous = [col, row];
    this.totalReward = 0;
    this.visited = new Set();
  }

  possibleActions(cell: Cell = this.current): number[] {
    const [col, row] = cell;
    const blocked = (c: number, r: number) => DEFAULT_MAZE[r]![c] === 1;
    return ACTION_ORDER.filter((action) => {
      if (action === UP) return !(row === 0 || blocked(col, row - 1));
      if (action === DOWN) return !(row === this.rows - 1 || blocked(col, row + 1));
      if (action === LEFT) return !(col === 0 || blocked(col - 1, row));
      return !(col === this.cols - 1 || blocked(col + 1, row));
    });
  }

  status(): Status {
    if (this.current[0] === this.exit[0] && this.current[1] === this.exit[1]) return "win";
    if (this.totalReward < this.minimumReward) return "lose";
    return "playing";
  }

  /** Maze.step: the move's reward, added to the total before the status is read. */
  step(action: number): { reward: number; status: Status } {
    const possible = this.possibleActions();
    let reward: number;
    if (possible.length === 0) reward = this.minimumReward - 1;
    else if (possible.includes(action)) {
      let [col, row] = this.current;
      if (action === LEFT) col -= 1;
      else if (action === UP) row -= 1;
      if (action === RIGHT) col += 1;
      else if (action === DOWN) row += 1;
      this.previous = this.current;
      this.current = [col, row];
      const key = `${col},${row}`;
      if (col === this.exit[0] && row === this.exit[1]) reward = 10.0;
      else if (this.visited.has(key)) reward = -0.25;
      else reward = -0.05;
      this.visited.add(key);
    } else reward = -0.75;
    this.totalReward += reward;
    const status = this.status();
    // maze.py formats Action(action).name for a debug log line eagerly: an action outside 0-3 raises there, after
    // the penalty was added to the total.
    if (![UP, DOWN, LEFT, RIGHT].includes(action)) throw new Error(`${action} is not a valid Action`);
    return { reward, status };
  }
}

/** MazeAction(action: int) under pydantic's lax rules: an int, an integral float, a bool, or a string of an int. */
function parseMazeAction(action: Record<string, unknown>): number {
  for (const key of Object.keys(action)) {
    if (key !== "action" && key !== "metadata") throw new ActionValidationError("MazeAction", [{ type: "extra_forbidden", loc: [key], msg: "Extra inputs are not permitted", input: action[key] }]);
  }
  if (action.metadata !== undefined && !isRecord(action.metadata)) throw new ActionValidationError("MazeAction", [{ type: "dict_type", loc: ["metadata"], msg: "Input should be a valid dictionary", input: action.metadata }]);
  const value = action.action;
  if (value === undefined) throw new ActionValidationError("MazeAction", [{ type: "missing", loc: ["action"], msg: "Field required", input: action }]);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (Number.isInteger(value)) return value;
    throw new ActionValidationError("MazeAction", [{ type: "int_from_float", loc: ["action"], msg: "Input should be a valid integer, got a number with a fractional part", input: value }]);
  }
  if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  if (typeof value === "string") throw new ActionValidationError("MazeAction", [{ type: "int_parsing", loc: ["action"], msg: "Input should be a valid integer, unable to parse string as an integer", input: value }]);
  throw new ActionValidationError("MazeAction", [{ type: "int_type", loc: ["action"], msg: "Input should be a valid integer", input: value }]);
}

class MazeEnvironment implements OpenEnvEnvironment {
  private readonly game = new MazeGame();
  private episodeId: string = randomUUID();
  private stepCount = 0;

  reset(kwargs: Record<string, unknown>): Observation {
    const start = kwargs.start_cell;
    const cell: Cell = Array.isArray(start) && start.length === 2 && start.every((x) => Number.isInteger(x)) ? [start[0] as number, start[1] as number] : [0, 0];
    if (start !== undefined && start !== null && !(Array.isArray(start) && start.length === 2)) throw new Error(`start_cell must be [col, row], not ${JSON.stringify(start)}`);
    this.game.reset(cell);
    this.episodeId = randomUUID();
    this.stepCount = 0;
    return this.observation(0.0, false, "playing");
  }

  step(action: Record<string, unknown>): Observation {
    const move = parseMazeAction(action);
    this.stepCount++;
    const { reward, status } = this.game.step(move);
    const done = status === "win" || status === "lose";
    return this.observation(reward, done, status);
  }

  private observation(reward: number, done: boolean, status: Status): Observation {
    return {
      fields: {
        legal_actions: done ? [] : this.game.possibleActions(),
        current_position: [...this.game.current],
        previous_position: [...this.game.previous],
      },
      reward,
      done,
      metadata: { maze: DEFAULT_MAZE.map((row) => [...row]), status, exit_cell: [...this.game.exit], step: this.stepCount },
    };
  }

  state() {
    const status = this.game.status();
    return { episode_id: this.episodeId, step_count: this.stepCount, done: status !== "playing", current_position: [...this.game.current], exit_cell: [...this.game.exit], status };
  }
}

export const mazeEnvironment: OpenEnvEnvironmentSpec = {
  name: "maze_env",
  description: "An 8x8 gridworld maze: reach the exit (OpenEnv's maze_env).",
  create: () => new MazeEnvironment(),
  schemas: {
    action: { title: "MazeAction", type: "object", properties: { metadata: { type: "object" }, action: { type: "integer" } }, required: ["action"], additionalProperties: false },
    observation: { title: "MazeObservation", type: "object", properties: { legal_actions: { type: "array", items: { type: "integer" } }, current_position: { type: "array", items: { type: "integer" } }, previous_position: { type: "array", items: { type: "integer" } } } },
    state: { title: "MazeState", type: "object", properties: { episode_id: { type: ["string", "null"] }, step_count: { type: "integer" }, done: { type: "boolean" }, current_position: { type: "array" }, exit_cell: { type: "array" }, status: { type: "string" } } },
  },
};
