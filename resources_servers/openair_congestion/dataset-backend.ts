// NeMo Gym's dataset_replay backend: recorded KPI-snapshot episodes served in order. The action never changes the
// next observation (it is recorded), but it still passes the guardrail and earns the standard reward over the served
// (previous, current) pair — a diagnostic of the reward and the data, not a causal environment for training.
import { readFileSync, existsSync } from "node:fs";
import { extname } from "node:path";
import { toJsonValue, type PyDict } from "../../src/python/values.ts";
import { check, type HistoryEntry, type ToolCall } from "./guardrail.ts";
import { DatasetRowError, rowToObservation, type Observation } from "./observation.ts";
import { computeBreakdown, DEFAULT_WEIGHTS, REWARD_PROFILE, type RewardWeights } from "./rewards.ts";
import { StrictJsonError, strictJsonLoads } from "./strict-json.ts";
import { TOOL_NAMES } from "./tools.ts";

export const DATASET_DYNAMICS_MODE = "provided_data_passthrough_v1";

export const DATASET_CAPABILITIES = {
  backend: "dataset_replay",
  dynamics_mode: DATASET_DYNAMICS_MODE,
  action_affects_observation: false,
  causal_action_effects: false,
  training_usable: false,
  diagnostic_only: true,
};

interface EpisodeSource {
  observations: Observation[];
  recordedActions: (ToolCall | null)[];
}

/** A dataset NeMo Gym's loader refuses at start: the file and line, and why. */
export class DatasetLoadError extends Error {}

/** A recorded action as ToolCall.model_validate reads it: {name, arguments} or the chat-completions {function: …} shape. */
function recordedToolCall(raw: unknown): ToolCall {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new DatasetRowError("recorded_action must be an object");
  let { name, arguments: args } = raw as { name?: unknown; arguments?: unknown };
  const fn = (raw as { function?: unknown }).function;
  if (fn !== null && typeof fn === "object" && !Array.isArray(fn)) {
    name = (fn as { name?: unknown }).name;
    args = (fn as { arguments?: unknown }).arguments ?? {};
    if (typeof args === "string") args = args.trim() === "" ? {} : JSON.parse(args);
  }
  if (typeof name !== "string" || !TOOL_NAMES.includes(name)) throw new DatasetRowError(`recorded_action: unknown tool ${JSON.stringify(name)}`);
  if (args === undefined) args = {};
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw new DatasetRowError("recorded_action.arguments must be an object");
  return { name, arguments: strictJsonLoads(JSON.stringify(args)) as PyDict };
}

/** The dataset's episodes by key (episode_id, else episode, else one 'episode_0'), each validated and in step order. */
export function loadDataset(path: string): Map<string, EpisodeSource> {
  if (!existsSync(path)) throw new DatasetLoadError(`dataset file not found: ${path}. Point the config's 'dataset_path' at the dataset JSONL (see README, Dataset Formats).`);
  if (extname(path).toLowerCase() !== ".jsonl") throw new DatasetLoadError(`unsupported dataset extension '${extname(path)}'; expected nested snapshot JSONL (.jsonl)`);
  const grouped = new Map<string, { row: Record<string, unknown>; lineno: number }[]>();
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((rawLine, i) => {
      const line = rawLine.trim();
      if (line === "") return;
      const lineno = i + 1;
      let row: unknown;
      try {
        row = toJsonValue(strictJsonLoads(line));
      } catch (error) {
        if (error instanceof StrictJsonError) throw new DatasetLoadError(`${path}:${lineno}: not valid JSON: ${error.message}`);
        throw error;
      }
      if (row === null || typeof row !== "object" || Array.isArray(row)) throw new DatasetLoadError(`${path}:${lineno}: row must be a JSON object`);
      const record = row as Record<string, unknown>;
      if (!Array.isArray(record.cells) || record.cells.length === 0) {
        throw new DatasetLoadError(`${path}:${lineno}: expected nested KPI snapshot row with a non-empty 'cells' array; GRPO trace rows are not supported`);
      }
      const key = String(record.episode_id || record.episode || "episode_0");
      if (!grouped.has(key)) grouped.set(key, []);
      grouped.get(key)!.push({ row: record, lineno });
    });

  const episodes = new Map<string, EpisodeSource>();
  for (const [key, group] of grouped) {
    // Order: an explicit 'step' on every row wins, then 't_s' on every row, then file order (stable).
    const withStep = group.filter((g) => g.row.step !== undefined && g.row.step !== null);
    if (withStep.length > 0) {
      const missing = group.find((g) => g.row.step === undefined || g.row.step === null);
      if (missing) throw new DatasetLoadError(`${path}:${missing.lineno} (episode '${key}'): 'step' must be present on every row when used`);
      const seen = new Map<number, number>();
      for (const g of group) {
        const step = g.row.step;
        if (typeof step !== "number" || !Number.isInteger(step)) throw new DatasetLoadError(`${path}:${g.lineno} (episode '${key}'): 'step' must be an integer, got ${JSON.stringify(step)}`);
        if (seen.has(step)) throw new DatasetLoadError(`${path}:${g.lineno} (episode '${key}'): duplicate 'step' value ${step} (first seen on line ${seen.get(step)})`);
        seen.set(step, g.lineno);
      }
      group.sort((a, b) => (a.row.step as number) - (b.row.step as number));
    } else if (group.every((g) => g.row.t_s !== undefined && g.row.t_s !== null)) {
      for (const g of group) if (typeof g.row.t_s !== "number") throw new DatasetLoadError(`${path}:${g.lineno}: non-numeric 't_s' value ${JSON.stringify(g.row.t_s)}`);
      group.sort((a, b) => (a.row.t_s as number) - (b.row.t_s as number));
    }
    const source: EpisodeSource = { observations: [], recordedActions: [] };
    group.forEach((g, stepIdx) => {
      try {
        source.observations.push(rowToObservation(g.row, stepIdx, `src_${key.slice(0, 56)}`));
        source.recordedActions.push(g.row.recorded_action === undefined || g.row.recorded_action === null ? null : recordedToolCall(g.row.recorded_action));
      } catch (error) {
        if (error instanceof DatasetRowError || error instanceof StrictJsonError || error instanceof SyntaxError) {
          throw new DatasetLoadError(`${path}:${g.lineno} (episode '${key}', step ${stepIdx}): ${error.message}`);
        }
        throw error;
      }
    });
    if (source.observations.length < 2) {
      throw new DatasetLoadError(`episode '${key}' has only ${source.observations.length} row(s); need >= 2 observations per episode (each step consumes an obs pair)`);
    }
    episodes.set(key, source);
  }
  if (episodes.size === 0) throw new DatasetLoadError(`dataset file ${path} contains no rows`);
  return episodes;
}

export interface DatasetEpisode {
  episodeId: string;
  scenarioId: string;
  maxSteps: number;
  trajectory: Observation[];
  recordedActions: (ToolCall | null)[];
  stepIdx: number;
  history: HistoryEntry[];
}

/** A task row's choice of episode: its scenario_id exactly, else keys[seed % n] over the sorted keys. */
export function selectEpisodeKey(episodes: Map<string, EpisodeSource>, scenarioId: string | undefined, seed: number): string {
  const keys = [...episodes.keys()].sort();
  if (scenarioId !== undefined) {
    if (!episodes.has(scenarioId)) throw new UnknownScenarioError(`scenario_id '${scenarioId}' not in dataset; available: [${keys.map((k) => `'${k}'`).join(", ")}]`);
    return scenarioId;
  }
  return keys[seed % keys.length]!;
}
export class UnknownScenarioError extends Error {}

export function startEpisode(episodes: Map<string, EpisodeSource>, key: string, episodeId: string, budget: number): DatasetEpisode {
  const source = episodes.get(key)!;
  const trajectory = source.observations.map((obs) => ({ ...obs, episode_id: episodeId }));
  return { episodeId, scenarioId: key, maxSteps: Math.max(1, Math.min(trajectory.length - 1, budget)), trajectory, recordedActions: [...source.recordedActions], stepIdx: 0, history: [] };
}

export interface BackendStep {
  observation: Observation;
  reward: number;
  done: boolean;
  info: Record<string, unknown>;
}

export function rewardContract(weights: RewardWeights) {
  return { reward_profile: REWARD_PROFILE.version, reward_weights: { ...weights }, prb_pressure_threshold: REWARD_PROFILE.prb_pressure_threshold };
}

/** One recorded transition scored for `toolCall` (NeMo Gym's DatasetReplayBackend.step). */
export function stepEpisode(episode: DatasetEpisode, toolCall: ToolCall, options: { cellCapacityMbps: number; weights: RewardWeights }): BackendStep {
  const prev = episode.trajectory[episode.stepIdx]!;
  const nowS = episode.stepIdx;
  const topology = { n_cells: Math.max(1, prev.global.n_cells), ue_ids_by_cell: new Map(prev.cells.map((c) => [c.cell_id, new Set(c.ues.map((u) => u.ue_id))])) };
  const verdict = check(toolCall, topology, episode.history, nowS);
  const rejected = !verdict.accepted;
  const nextIdx = Math.min(episode.stepIdx + 1, episode.trajectory.length - 1);
  const recorded = episode.recordedActions[episode.stepIdx] ?? null;
  const breakdown = computeBreakdown(prev, episode.trajectory[nextIdx]!, toolCall, { rejected, weights: options.weights, cellCapacityMbps: options.cellCapacityMbps, prbPressureThreshold: REWARD_PROFILE.prb_pressure_threshold });
  const reward = breakdown.total;
  let history = [...episode.history];
  if (!rejected) {
    history.push({ action: toolCall, t_s: nowS });
    if (history.length > 64) history = history.slice(-32);
  }
  const observation: Observation = { ...episode.trajectory[nextIdx]!, agent_aux: { last_action: toolCall, last_reward: reward, last_rejection: verdict.reason, step_idx: nextIdx } };
  const info = {
    guardrail_accepted: verdict.accepted,
    rejection_reason: verdict.reason,
    step_idx: nextIdx,
    kpi_source: "dataset_replay",
    reward_measurements: breakdown.measurements,
    reward_terms: breakdown.terms,
    reward_version: REWARD_PROFILE.version,
    recorded_action: recorded === null ? null : { name: recorded.name, arguments: toJsonValue(recorded.arguments) },
    ...rewardContract(options.weights),
    ...DATASET_CAPABILITIES,
  };
  episode.stepIdx = nextIdx;
  episode.history = history;
  episode.trajectory[nextIdx] = observation;
  return { observation, reward, done: nextIdx >= episode.maxSteps, info };
}

export { DEFAULT_WEIGHTS };
