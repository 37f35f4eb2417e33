// Single-box (or n-box) Sokoban in Gymnasium style (NeMo Gym's grl_sokoban): /reset builds the row's seeded room,
// each /step reads one move from the model's text and plays it with gym_sokoban's rules and rewards. The game itself
// is src/ports/grl (rooms equal to NeMo's Python for the same seed); this file is the server: env_config, the
// row's overrides, the prompt text around the board, and the per-rollout episode.
import { z } from "zod";
import { extractText, gymnasiumServer, HttpError } from "../../src/server/index.ts";
import { ActionParseError, parseSokobanAction } from "../../src/ports/grl/actions.ts";
import { checked, checkedLookup, checkRenderMode, fieldError, intValue, mergeEnvConfig } from "../../src/ports/grl/env-config.ts";
import { GYM_SOKOBAN_ACTIONS, SOKOBAN_DEFAULT_ACTION_LOOKUP, SOKOBAN_DEFAULT_GRID_LOOKUP, SokobanEnv, SokobanResetError } from "../../src/ports/grl/sokoban-env.ts";

/** The row keys that override env_config, in NeMo's order. */
const OVERRIDABLE = ["grid_lookup", "action_lookup", "search_depth", "dim_room", "max_steps", "num_boxes", "render_mode"] as const;

/** The server's env_config when the YAML has none (NeMo's default_factory): note search_depth 100, not the env's 300. */
const DEFAULT_ENV_CONFIG: Readonly<Record<string, unknown>> = {
  grid_lookup: Object.fromEntries(SOKOBAN_DEFAULT_GRID_LOOKUP),
  action_lookup: Object.fromEntries(SOKOBAN_DEFAULT_ACTION_LOOKUP),
  search_depth: 100,
  dim_room: [6, 6],
  max_steps: 100,
  num_boxes: 1,
  render_mode: "text",
};

const ConfigSchema = z.object({
  // A YAML env_config replaces the whole default dict (pydantic's default_factory runs only when it is absent); its
  // missing keys then take the env class's defaults (search_depth 300). Keys NeMo's env does not read are ignored.
  env_config: z.record(z.string(), z.unknown()).default(() => ({ ...DEFAULT_ENV_CONFIG })),
});
type Config = z.output<typeof ConfigSchema>;

const MetadataSchema = z.looseObject({
  // np.random.seed takes ints in [0, 2**32); none: the process's unseeded generators, as in NeMo.
  seed: z.number().int().min(0).max(0xffffffff).nullish(),
});
type Metadata = z.output<typeof MetadataSchema>;

interface Episode {
  env: SokobanEnv;
  totalReward: number;
}

const dimRoomValue = z.tuple([z.number().int().min(3), z.number().int().min(3)], { error: "must be [rows, cols], each an integer of at least 3" });

function envFor(config: Config, metadata: Metadata): SokobanEnv {
  const { values, sources } = mergeEnvConfig(config.env_config, metadata, OVERRIDABLE);
  checkRenderMode(values, sources);
  const actionLookup = checkedLookup("action_lookup", values, sources);
  for (const id of actionLookup?.keys() ?? []) {
    // gym_sokoban asserts its action ids (0..8); another id would fail every step (a 500 in NeMo Gym).
    if (!GYM_SOKOBAN_ACTIONS.has(id)) throw fieldError("action_lookup", sources.action_lookup, `action id ${id} is not one of gym_sokoban's actions 0..8`, values.action_lookup);
  }
  const optional = <S extends z.ZodType>(key: string, schema: S) => (values[key] === undefined ? undefined : checked(key, values, sources, schema));
  return new SokobanEnv({
    gridLookup: checkedLookup("grid_lookup", values, sources),
    actionLookup,
    searchDepth: optional("search_depth", intValue),
    dimRoom: optional("dim_room", dimRoomValue),
    maxSteps: optional("max_steps", intValue),
    numBoxes: optional("num_boxes", intValue.min(0)),
  });
}

/** The user message around a board (NeMo's _format_observation). */
export function formatSokobanObservation(board: string): string {
  return (
    `Sokoban board:\n${board}\n\n` +
    "Legend: #=wall, _=floor, O=target, X=box, √=box on target, P=player, S=player on target.\n" +
    "Respond with exactly one move using <action>Up</action>, <action>Down</action>, <action>Left</action>, or <action>Right</action>."
  );
}

export default gymnasiumServer<Episode, Config, typeof MetadataSchema>({
  name: "GrlSokobanResourcesServer",
  config: ConfigSchema,
  metadata: MetadataSchema,
  floatFields: ["total_reward"],
  // A seeded room is the same room every time; an unseeded one comes from this process's entropy.
  replayable: (metadata) => metadata.seed !== undefined && metadata.seed !== null,
  reset(metadata, { config }) {
    const env = envFor(config, metadata);
    let board: string;
    try {
      board = env.reset(metadata.seed);
    } catch (error) {
      if (error instanceof SokobanResetError) throw new HttpError(422, error.message);
      throw error;
    }
    return { state: { env, totalReward: 0 }, observation: formatSokobanObservation(board), info: {} };
  },
  step(episode, action) {
    const { env } = episode;
    let actionId: number;
    try {
      actionId = parseSokobanAction(extractText(action), env.actionLookup);
    } catch (error) {
      if (error instanceof ActionParseError) throw new HttpError(400, error.message);
      throw error;
    }
    const result = env.step(actionId);
    episode.totalReward += result.reward;
    const info = { ...result.info, action_id: actionId, action_label: env.actionLookup.get(actionId)!, total_reward: episode.totalReward };
    // The last board goes back bare (no legend), as NeMo's step returns it when the episode is done.
    return { observation: result.done ? result.observation : formatSokobanObservation(result.observation), reward: result.reward, terminated: result.done, truncated: false, info };
  },
});
