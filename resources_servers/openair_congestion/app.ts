// 5G RAN congestion control, Gymnasium style (NeMo Gym's OpenAirCongestionEnv): each turn the policy reads cell and
// UE KPIs and makes exactly one of eight bounded tool calls; /step checks the call (strict JSON, the tool's
// structural schema), runs it through the backend (guardrail, transition, decomposed KPI reward) and answers the
// next observation with the step's reward, which gymnasium_agent sums. A missing, malformed, unknown or second call
// advances as noop plus protocol_violation_penalty, so bad output can neither end an episode early nor outscore noop.
//
// Backends: `dataset_replay` (recorded KPI snapshots; diagnostic only) is ported. `replay`, NeMo Gym's default
// causal synthetic backend, draws its scenarios and KPI noise from NumPy's default_rng (PCG64 seeded through
// SeedSequence, normal draws by NumPy's ziggurat), which this project has not ported: /reset answers 501 naming it.
import { isAbsolute, join } from "node:path";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Ajv, type ValidateFunction } from "ajv";
import { gymnasiumServer, toolOutput, functionCalls } from "../../src/server/gymnasium-server.ts";
import type { ServerContext } from "../../src/server/index.ts";
import { HttpError } from "../../src/protocol/errors.ts";
import { isPyDict, pythonRepr, toJsonValue, type PyDict } from "../../src/python/values.ts";
import type { ToolCall } from "./guardrail.ts";
import { toPolicyText, type Observation } from "./observation.ts";
import { DEFAULT_WEIGHTS, REWARD_FLOAT_FIELDS, type RewardWeights } from "./rewards.ts";
import { DATASET_CAPABILITIES, loadDataset, rewardContract, selectEpisodeKey, startEpisode, stepEpisode, UnknownScenarioError, type DatasetEpisode } from "./dataset-backend.ts";
import { StrictJsonError, strictJsonLoads } from "./strict-json.ts";
import { structuralSchema, TOOL_NAMES, TOOL_SCHEMA_BY_NAME } from "./tools.ts";

const SERVER_DIR = import.meta.dirname;
const OBSERVATION_RENDER = "openair_natural_language_v1";
const NO_TOOL_CALL_MSG = "No tool call detected. Issue exactly one tool call per turn from the configured action space (use `noop` to stand pat). Applied penalized noop.";
const REPLAY_NOT_PORTED =
  "openair_congestion backend 'replay' is not ported: its scenarios and KPI noise come from NumPy's default_rng (PCG64 seeded through SeedSequence, ziggurat normal draws), which this project has no port of; set backend: dataset_replay with a dataset_path to replay recorded KPI snapshots";

// pydantic's strict positive int (a bool or float is refused by name, as NeMo Gym's field validators do).
const positiveInt = (name: string) =>
  z.unknown().refine((v) => typeof v === "number" && Number.isInteger(v) && v >= 1, `${name} must be a positive integer`).transform((v) => v as number);

const Config = z.object({
  backend: z.string().default("replay"),
  pool_size: positiveInt("pool_size").default(32),
  max_steps_default: positiveInt("max_steps_default").default(60),
  dataset_path: z.string().default("data/fixtures/sample_provided.jsonl"),
  cell_capacity_mbps: z.number().default(60.0),
  reward_weights: z.record(z.string(), z.number()).nullish(),
  agent_max_steps: positiveInt("agent_max_steps").default(16),
  session_ttl_s: z.unknown().refine((v) => typeof v === "number" && Number.isFinite(v) && v > 0, "session_ttl_s must be a positive finite number").transform((v) => v as number).default(3600.0),
  protocol_violation_penalty: z.number().refine((v) => Number.isFinite(v) && v < 0, "protocol_violation_penalty must be finite and negative").default(-1.0),
});
type Config = z.output<typeof Config>;

/** The backend an instance runs: the env var OPENAIR_CONGESTION_BACKEND wins over `backend` (NeMo Gym's select_backend). */
const backendName = (config: Config) => (process.env.OPENAIR_CONGESTION_BACKEND || config.backend || "replay").trim().toLowerCase();

interface Instance {
  dataset: ReturnType<typeof loadDataset>;
  weights: RewardWeights;
  liveEpisodes: number;
  /** The live episode of each session, so a re-reset frees the old slot before taking a new one. */
  bySession: Map<string, EpisodeState>;
}
/** An instance's backend, or the 501 a backend this port does not run answers at /reset. */
const instances = new WeakMap<object, Instance | HttpError>();

/**
 * Builds the instance's backend at start, as NeMo Gym's model_post_init does: an unknown backend, a bad weight or
 * capacity, or a dataset row NeMo Gym's loader refuses stops the server with the reason (file and line for a row).
 */
function buildBackend(server: ServerContext<Config>): void {
  const config = server.config;
  // NeMo Gym reclaims a crashed client's episode after session_ttl_s; here the library's idle expiry does that job.
  const idleTtlS = (config as Config & { session_idle_ttl_s: number }).session_idle_ttl_s;
  if (config.session_ttl_s !== idleTtlS) {
    throw new Error(`openair_congestion: session_ttl_s=${config.session_ttl_s} must equal session_idle_ttl_s=${idleTtlS}: this port reclaims idle episodes after session_idle_ttl_s`);
  }
  const name = backendName(config);
  if (name === "replay") return void instances.set(server, new HttpError(501, REPLAY_NOT_PORTED));
  if (name === "oai_collector") throw new Error("backend 'oai_collector' is not implemented in this contribution; supported backends are 'replay' and diagnostic-only 'dataset_replay'");
  if (name !== "dataset_replay") throw new Error(`unknown backend '${name}'; supported backends: 'replay', 'dataset_replay'`);
  if (!Number.isFinite(config.cell_capacity_mbps) || config.cell_capacity_mbps <= 0) throw new Error("cell_capacity_mbps must be greater than zero");
  const weights = { ...DEFAULT_WEIGHTS };
  for (const [key, value] of Object.entries(config.reward_weights ?? {})) {
    if (!(key in DEFAULT_WEIGHTS)) throw new Error(`reward_weights contains unknown field '${key}'`);
    if (!Number.isFinite(value)) throw new Error(`reward_weights.${key}: reward_weights.${key} must be a finite number`);
    weights[key as keyof RewardWeights] = value;
  }
  const path = isAbsolute(config.dataset_path) ? config.dataset_path : join(SERVER_DIR, config.dataset_path);
  instances.set(server, { dataset: loadDataset(path), weights, liveEpisodes: 0, bySession: new Map() });
}

function instanceOf(server: ServerContext<Config>): Instance {
  const instance = instances.get(server);
  if (instance === undefined) throw new Error("openair_congestion: backend not built (routes did not run)");
  if (instance instanceof HttpError) throw instance;
  return instance;
}

interface EpisodeState {
  instance: Instance;
  sessionId: string;
  episode: DatasetEpisode;
  contract: Record<string, unknown>;
  cumulative_reward: number;
  n_steps: number;
  agent_steps: number;
  max_agent_steps: number;
  lastStep?: { requestId: string; result: StepResult };
  released: boolean;
}
type StepResult = { observation: string | null; reward: number; terminated: boolean; truncated: boolean; info: Record<string, unknown> };

const nonNegativeInt = (name: string) => z.number().refine((v) => Number.isInteger(v) && v >= 0, `${name} must be a non-negative integer`);
const Metadata = z.looseObject({
  seed: nonNegativeInt("seed").nullish(),
  max_steps: positiveInt("max_steps").nullish(),
  scenario_id: z.unknown().optional(),
  _ng_step_request_id: z.string().min(1).max(128, "_ng_step_request_id must be a non-empty string of at most 128 characters").nullish(),
});

// The structural tool schemas (types and shape only); value bounds are the guardrail's.
const ajv = new Ajv({ strict: false, allErrors: false });
const validators = new Map<string, ValidateFunction>(TOOL_NAMES.map((name) => [name, ajv.compile(structuralSchema((TOOL_SCHEMA_BY_NAME.get(name)!.function as { parameters: object }).parameters) as object)]));

/** A jsonschema-style first line for ajv's first error (NeMo Gym's text is jsonschema's str(ValidationError)). */
function schemaErrorText(validate: ValidateFunction, args: unknown): string {
  const error = validate.errors![0]!;
  const at = error.instancePath.split("/").slice(1).reduce<any>((value, key) => value?.[key], args);
  if (error.keyword === "required") return `${pythonRepr((error.params as { missingProperty: string }).missingProperty)} is a required property`;
  if (error.keyword === "additionalProperties") return `Additional properties are not allowed (${pythonRepr((error.params as { additionalProperty: string }).additionalProperty)} was unexpected)`;
  if (error.keyword === "type") return `${pythonRepr(strictJsonLoads(JSON.stringify(at ?? null)))} is not of type ${pythonRepr((error.params as { type: string }).type)}`;
  return error.message ?? "invalid arguments";
}

/** The one call as the env's ToolCall, or the reason it is a protocol violation (Python's str(exc)). */
function parseCall(call: { name: string; arguments: string }): ToolCall | { error: string } {
  let args: PyDict;
  try {
    const parsed = (call.arguments ?? "").trim() === "" ? new Map() : strictJsonLoads(call.arguments);
    if (!isPyDict(parsed)) return { error: `arguments must be a JSON object, got ${Array.isArray(parsed) ? "list" : parsed === null ? "NoneType" : typeof parsed === "string" ? "str" : typeof parsed === "boolean" ? "bool" : typeof parsed === "bigint" ? "int" : "float"}` };
    args = parsed;
  } catch (error) {
    if (error instanceof StrictJsonError) return { error: error.message };
    throw error;
  }
  if (!TOOL_NAMES.includes(call.name)) {
    return { error: `1 validation error for ToolCall\nname\n  Value error, unknown tool ${pythonRepr(call.name)}; valid: (${TOOL_NAMES.map((n) => pythonRepr(n)).join(", ")})` };
  }
  const jsonArgs = toJsonValue(args);
  const validate = validators.get(call.name)!;
  if (!validate(jsonArgs)) return { error: schemaErrorText(validate, jsonArgs) };
  return { name: call.name, arguments: args };
}

const NOOP: ToolCall = { name: "noop", arguments: new Map() };

function release(state: EpisodeState) {
  if (state.released) return;
  state.released = true;
  state.instance.liveEpisodes -= 1;
  if (state.instance.bySession.get(state.sessionId) === state) state.instance.bySession.delete(state.sessionId);
}

export default gymnasiumServer({
  name: "OpenAirCongestionEnv",
  config: Config,
  metadata: Metadata,
  floatFields: [...REWARD_FLOAT_FIELDS, "cell_capacity_mbps"],

  reset(metadata, { config, server, sessionId }) {
    const instance = instanceOf(server as ServerContext<Config>);
    // A client retry can reset twice with the same cookie: the old episode's slot is freed first.
    const stale = instance.bySession.get(sessionId);
    if (stale !== undefined) release(stale);
    const seed = metadata.seed ?? 0;
    // The agent drives at most agent_max_steps turns: the episode's budget never exceeds it.
    const effectiveMaxSteps = Math.min(metadata.max_steps ?? config.max_steps_default, config.agent_max_steps);
    let key: string;
    try {
      key = selectEpisodeKey(instance.dataset, metadata.scenario_id === undefined || metadata.scenario_id === null ? undefined : String(metadata.scenario_id), seed);
    } catch (error) {
      if (error instanceof UnknownScenarioError) throw new HttpError(422, error.message);
      throw error;
    }
    if (instance.liveEpisodes >= config.pool_size) throw new HttpError(503, `dataset episode pool exhausted (${config.pool_size} live); close episodes or raise pool_size`);
    const episode = startEpisode(instance.dataset, key, `ds_${randomUUID().replace(/-/g, "").slice(0, 12)}`, effectiveMaxSteps);
    instance.liveEpisodes += 1;
    const contract = { ...DATASET_CAPABILITIES, ...rewardContract(instance.weights), observation_render: OBSERVATION_RENDER, supports_explicit_close: true, supports_step_idempotency: true };
    const state: EpisodeState = { instance, sessionId, episode, contract, cumulative_reward: 0.0, n_steps: 0, agent_steps: 0, max_agent_steps: effectiveMaxSteps, released: false };
    instance.bySession.set(sessionId, state);
    return {
      state,
      observation: toPolicyText(episode.trajectory[0]!),
      info: { episode_id: episode.episodeId, seed, scenario_id: key, tier: "replay", ...contract },
    };
  },

  step(state: EpisodeState, action, metadata, { config }) {
    // A transport retry with the same request id gets the first answer, not a second transition.
    const requestId = metadata._ng_step_request_id ?? undefined;
    if (requestId !== undefined && state.lastStep?.requestId === requestId) return state.lastStep.result;
    const result = stepOnce(state, config, functionCalls(action));
    if (requestId !== undefined) state.lastStep = { requestId, result };
    if (result.terminated || result.truncated) release(state);
    return result;
  },
  disposeState: release,

  routes(app, server, episodes) {
    buildBackend(server as ServerContext<Config>);
    // Cookie-scoped, idempotent cleanup: frees the episode's slot without a reset.
    app.post("/close", async (request) => {
      const episode = await episodes.get(request.sessionId);
      if (episode === undefined) return { ok: true, already_closed: true, summary: {} };
      const n_steps = (episode.state as EpisodeState).episode.stepIdx;
      await episodes.delete(request.sessionId);
      return { ok: true, already_closed: false, summary: { ok: true, n_steps } };
    });
  },
});

function stepOnce(state: EpisodeState, config: Config, calls: { call_id: string; name: string; arguments: string }[]): StepResult {
  state.agent_steps += 1;
  const outOfBudget = state.agent_steps >= state.max_agent_steps;
  if (calls.length === 0) return protocolViolation(state, config, "no_tool_call", NO_TOOL_CALL_MSG, []);
  if (calls.length !== 1) {
    const message = "Exactly one tool call is required; applied penalized noop.";
    return protocolViolation(state, config, "multiple_tool_calls", message, calls.map((call) => toolOutput(call, { accepted: false, error: message })));
  }
  const call = calls[0]!;
  const parsed = parseCall(call);
  if ("error" in parsed) {
    return protocolViolation(state, config, "invalid_tool_call", "Invalid tool call rejected; applied penalized noop.", [toolOutput(call, { accepted: false, error: parsed.error })]);
  }
  const { observation, reward, done, info } = stepEpisode(state.episode, parsed, { cellCapacityMbps: config.cell_capacity_mbps, weights: state.instance.weights });
  const stepInfo = { ...info, ...state.contract };
  state.cumulative_reward += reward;
  state.n_steps += 1;
  const accepted = stepInfo.guardrail_accepted;
  const rejectionReason = stepInfo.rejection_reason;
  const stepIdx = stepInfo.step_idx;
  const terminated = done;
  return {
    observation: toPolicyText(observation),
    reward,
    terminated,
    truncated: !terminated && outOfBudget,
    info: {
      ...stepInfo,
      tool_outputs: [toolOutput(call, { accepted, rejection_reason: rejectionReason, step_idx: stepIdx })],
      guardrail_accepted: accepted,
      rejection_reason: rejectionReason,
      step_idx: stepIdx,
      episode_id: state.episode.episodeId,
      n_steps: state.n_steps,
      cumulative_reward: state.cumulative_reward,
    },
  };
}

/** An invalid turn: the backend's noop transition plus the (negative) penalty, reported as a rejection. */
function protocolViolation(state: EpisodeState, config: Config, error: string, message: string, toolOutputs: unknown[]): StepResult {
  const penalty = config.protocol_violation_penalty;
  const { observation, reward: baseReward, done, info } = stepEpisode(state.episode, NOOP, { cellCapacityMbps: config.cell_capacity_mbps, weights: state.instance.weights });
  const stepInfo: Record<string, unknown> = { ...info, ...state.contract };
  const reward = baseReward + penalty;
  state.cumulative_reward += reward;
  state.n_steps += 1;
  const stepIdx = stepInfo.step_idx;
  stepInfo.reward_terms = { ...(stepInfo.reward_terms as Record<string, number>), protocol_violation: penalty, total: reward };
  const shown: Observation = { ...observation, agent_aux: { last_action: { name: "noop", arguments: new Map() }, last_reward: reward, last_rejection: message, step_idx: stepIdx as number } };
  const terminated = done;
  return {
    observation: toPolicyText(shown),
    reward,
    terminated,
    truncated: !terminated && state.agent_steps >= state.max_agent_steps,
    info: {
      ...stepInfo,
      ...state.contract,
      error,
      message,
      protocol_violation: true,
      protocol_rejection: true,
      guardrail_accepted: false,
      rejection_reason: message,
      applied_fallback_action: { name: "noop", arguments: {} },
      tool_outputs: toolOutputs,
      step_idx: stepIdx,
      episode_id: state.episode.episodeId,
      n_steps: state.n_steps,
      cumulative_reward: state.cumulative_reward,
    },
  };
}
