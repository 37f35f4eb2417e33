// The two translations at the Gym boundary: a trial becomes a NeMo Gym `/run` row, and a `/run` reply
// becomes the gateway's result (reward, completed/truncated, metrics). Pure functions; no I/O.
import { isJsonObject, type JsonObject, type JsonValue, type TrialRequest, type TrialReward } from "./types.ts";
import { jsonTruthy } from "../python/json-value.ts";

export { isJsonObject };

/** What a finished `/run` contributes to a trial's terminal snapshot. */
export interface RunResult {
  status: "completed" | "truncated";
  reward: TrialReward;
  metrics: JsonObject;
  artifact_ref: string | null;
}

/** Evaluation flags an agent reports at top level; the trainer reads them from metrics. */
const COPIED_FLAGS = ["resolved", "patch_exists", "agent_error_kind", "agent_timed_out", "eval_timed_out", "oom_killed", "eval_oom_killed"] as const;

/** Metadata keys consumed into responses_create_params rather than sent as row fields. */
const CONSUMED_METADATA_KEYS = new Set(["responses_create_params", "tools", "parallel_tool_calls", "developer_message"]);


/** `"<task>-<rollout>"`: the agent rebuilds this id from the two indices, so the split is on the last `-`. */
export function splitRolloutId(rolloutId: string): { taskIndex: string; rolloutIndex: string } {
  const dash = rolloutId.lastIndexOf("-");
  if (dash <= 0 || dash === rolloutId.length - 1) throw new Error(`rollout id '${rolloutId}' must look like '<task>-<rollout>'`);
  return { taskIndex: rolloutId.slice(0, dash), rolloutIndex: rolloutId.slice(dash + 1) };
}

/**
 * The `/run` body for a trial. A native Gym row (task.responses_create_params is an object) is sent as is;
 * a Relax row ({messages, metadata, …}) is rebuilt into one. Either way the rollout correlation indices are
 * injected, so every model call the agent makes comes back under `/ng-rollout/<rolloutId>`.
 */
export function buildRunPayload(request: TrialRequest, rolloutId: string): JsonObject {
  const { taskIndex, rolloutIndex } = splitRolloutId(rolloutId);
  const task = structuredClone(request.environment.task);
  const payload = isJsonObject(task.responses_create_params) ? task : fromRelaxRow(task, request.generation);
  payload._ng_task_index = taskIndex;
  payload._ng_rollout_index = rolloutIndex;
  return payload;
}

/** `task` is already a private copy. Later sources override earlier ones, in the documented order. */
function fromRelaxRow(task: JsonObject, generation: JsonObject): JsonObject {
  const { messages = [], metadata = {}, ...taskFields } = task;
  if (!Array.isArray(messages)) throw new Error("environment.task.messages must be a list of messages");
  if (!isJsonObject(metadata)) throw new Error("environment.task.metadata must be an object");
  const preserved = metadata.responses_create_params ?? {};
  if (!isJsonObject(preserved)) throw new Error("environment.task.metadata.responses_create_params must be an object");

  const params: JsonObject = { input: messages, ...preserved };
  if ("tools" in metadata) params.tools = metadata.tools;
  if ("parallel_tool_calls" in metadata) params.parallel_tool_calls = metadata.parallel_tool_calls;
  if (jsonTruthy(metadata.developer_message)) params.instructions = metadata.developer_message;
  const configured = generation.responses_create_params;
  if (isJsonObject(configured)) Object.assign(params, structuredClone(configured));

  const metadataFields = Object.fromEntries(Object.entries(metadata).filter(([key]) => !CONSUMED_METADATA_KEYS.has(key)));
  // Verifiers read their answer keys (ground_truth, expected_answer, …) from the row's top level.
  const payload: JsonObject = { responses_create_params: params, ...taskFields, ...metadataFields };
  // A stray non-object `responses_create_params` task field must not replace the one built here.
  payload.responses_create_params = params;
  return payload;
}

/** Counts of the final response's output items: what the trainer sees of the episode's shape. */
function outputCounts(response: JsonValue | undefined): JsonObject {
  if (!isJsonObject(response) || !Array.isArray(response.output)) return {};
  const output = response.output;
  const typed = (type: string) => output.filter((item) => isJsonObject(item) && item.type === type).length;
  return {
    model_output_items: output.length,
    tool_calls: typed("function_call"),
    tool_outputs: typed("function_call_output"),
    assistant_messages: typed("message"),
  };
}

function rewardOf(value: JsonValue | undefined): TrialReward {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" || isJsonObject(value)) return value;
  // The client rejects any other shape; failing here names the cause instead.
  throw new Error(`/run answered a ${Array.isArray(value) ? "list" : typeof value} reward; expected a number, an object or null`);
}

/** A `/run` reply → the trial's result. Throws when the reply is not a JSON object or its reward has no valid shape. */
export function normalizeRunResult(environment: string, payload: unknown): RunResult {
  if (!isJsonObject(payload)) throw new Error(`/run must answer a JSON object, got ${Array.isArray(payload) ? "a list" : payload === null ? "null" : typeof payload}`);
  const reply = structuredClone(payload);
  let reward = rewardOf(reply.reward);
  const metrics: JsonObject = { ...(isJsonObject(reply.metrics) ? reply.metrics : {}), ...outputCounts(reply.response) };
  for (const flag of COPIED_FLAGS) if (flag in reply) metrics[flag] = reply[flag]!;
  // R2E-Gym scores 0 both for "no patch" and "patch applied, tests failed"; the second is progress GRPO should see.
  if (environment === "r2e_gym" && reward === 0 && metrics.patch_exists === true) reward = 0.1;
  return {
    status: jsonTruthy(reply.truncated) ? "truncated" : "completed",
    reward,
    metrics,
    artifact_ref: typeof reply.artifact_ref === "string" ? reply.artifact_ref : null,
  };
}
