// Tetris in Gymnasium style (NeMo Gym's grl_tetris): /reset deals the row's seeded pieces onto an empty board, each
// /step applies every <action> tag of the model's text in order until the game ends. The game is
// src/ports/grl/tetris-env.ts; this file is the server: env_config, the row's overrides, the prompt text, the episode.
//
// NeMo's piece weights start from shape counts its Python drew at construction from the server process's start-up
// entropy (see tetris-env.ts), so with box_type 2 or 3 a seed alone does not fix the pieces. `process_random_seed`
// (this port's key) fixes that start-up state; unset, it is drawn from the OS as NeMo's is, and such rows are not
// re-scored by /verify (501): their replay could deal other pieces.
import { z } from "zod";
import { extractText, gymnasiumServer, HttpError } from "../../src/server/index.ts";
import { PythonRandom } from "../../src/python/random.ts";
import { parseTetrisActions } from "../../src/ports/grl/actions.ts";
import { checked, checkedLookup, intValue, mergeEnvConfig } from "../../src/ports/grl/env-config.ts";
import { processPythonRandom } from "../../src/ports/grl/random-sources.ts";
import { TETRIS_DEFAULT_ACTION_LOOKUP, TETRIS_DEFAULT_GRID_LOOKUP, TetrisEnv, type TetrisStepResult } from "../../src/ports/grl/tetris-env.ts";

/** The row keys that override env_config, in NeMo's order (a row's dim_board is not one of them: NeMo ignores it). */
const OVERRIDABLE = ["grid_lookup", "action_lookup", "render_mode", "dim_x", "dim_y", "box_type"] as const;

const DEFAULT_ENV_CONFIG: Readonly<Record<string, unknown>> = {
  grid_lookup: Object.fromEntries(TETRIS_DEFAULT_GRID_LOOKUP),
  action_lookup: Object.fromEntries(TETRIS_DEFAULT_ACTION_LOOKUP),
  render_mode: "text",
  dim_x: 4,
  dim_y: 4,
  box_type: 3,
};

const ConfigSchema = z.object({
  // A YAML env_config replaces the default dict whole; its missing keys take the env class's defaults (box_type 1).
  env_config: z.record(z.string(), z.unknown()).default(() => ({ ...DEFAULT_ENV_CONFIG })),
  /** This port's: Python `random.seed(n)` for the start-up state NeMo's process draws from the OS; null: the OS. */
  process_random_seed: z.number().int().min(0).nullable().default(null),
});
type Config = z.output<typeof ConfigSchema>;

const MetadataSchema = z.looseObject({
  seed: z.number().int().min(0).max(0xffffffff).nullish(),
});
type Metadata = z.output<typeof MetadataSchema>;

interface Episode {
  env: TetrisEnv;
  totalReward: number;
}

/** The start-up state of each config's process: one per seed, or the process's own. */
const startupStates = new Map<number, PythonRandom>();
function startupRandom(config: Config): PythonRandom {
  const seed = config.process_random_seed;
  if (seed === null) return processPythonRandom();
  let state = startupStates.get(seed);
  if (state === undefined) startupStates.set(seed, (state = new PythonRandom(seed)));
  return state;
}

function resolved(config: Config, metadata: Metadata) {
  const { values, sources } = mergeEnvConfig(config.env_config, metadata, OVERRIDABLE);
  const optional = <S extends z.ZodType>(key: string, schema: S) => (values[key] === undefined ? undefined : checked(key, values, sources, schema));
  const width = optional("dim_x", intValue.min(1)) ?? 4;
  const boxType = values.box_type;
  // A two-wide piece spawns at randint(1, width - 1): a one-wide board raises in NeMo's Python.
  if (width < 2 && (boxType === 2 || boxType === 3)) checked("dim_x", values, sources, intValue.min(2, "must be at least 2 for box_type 2 or 3"));
  return {
    width,
    height: optional("dim_y", intValue.min(1)) ?? 4,
    gridLookup: checkedLookup("grid_lookup", values, sources),
    actionLookup: checkedLookup("action_lookup", values, sources),
    // NeMo compares box_type with 2 and 3; any other value is the single-cell piece. render_mode is never read.
    boxType,
  };
}

/** The user message around a board (NeMo's _format_observation). */
export function formatTetrisObservation(board: string): string {
  return (
    `Tetris board:\n${board}\n\n` +
    "Legend: _=empty, #=settled block, X=falling piece.\n" +
    "Respond with one or more moves using <action>Left</action>, <action>Right</action>, or <action>Down</action>. " +
    "Multiple action tags in one turn are applied in order."
  );
}

export default gymnasiumServer<Episode, Config, typeof MetadataSchema>({
  name: "GrlTetrisResourcesServer",
  config: ConfigSchema,
  metadata: MetadataSchema,
  floatFields: ["total_reward"],
  // The pieces are fixed by the row's seed alone for box_type 1; for 2 and 3 also by the start-up state.
  replayable: (metadata, config) => {
    if (metadata.seed === undefined || metadata.seed === null) return config.process_random_seed !== null;
    const boxType = "box_type" in metadata ? metadata.box_type : config.env_config.box_type;
    return boxType === 2 || boxType === 3 ? config.process_random_seed !== null : true;
  },
  reset(metadata, { config }) {
    const settings = resolved(config, metadata);
    const env = new TetrisEnv({ ...settings, initialRandom: startupRandom(config), processRandom: startupRandom(config) });
    return { state: { env, totalReward: 0 }, observation: formatTetrisObservation(env.reset(metadata.seed)), info: {} };
  },
  step(episode, action) {
    const { env } = episode;
    const ids = parseTetrisActions(extractText(action), env.actionLookup);
    if (ids.length === 0) throw new HttpError(400, "No <action>Left|Right|Down</action> tags found in response.");
    let stepReward = 0;
    let last: TetrisStepResult | undefined;
    const applied: Array<Record<string, unknown>> = [];
    for (const id of ids) {
      last = env.step(id);
      stepReward += last.reward;
      episode.totalReward += last.reward;
      applied.push({ action_id: id, action_label: env.actionLookup.get(id)!, reward: last.reward, info: last.info });
      if (last.done) break;
    }
    const info = { ...last!.info, total_reward: episode.totalReward, num_actions_applied: applied.length, actions: applied };
    return { observation: last!.done ? last!.observation : formatTetrisObservation(last!.observation), reward: stepReward, terminated: last!.done, truncated: false, info };
  },
});
