// SWE pivot (NeMo Gym's swe_pivot, for PivotRL on coding-agent trajectories): the model makes the next tool call of a
// recorded trajectory and is scored against the expert's call, level by level, cheapest first (pivot.ts):
//   0. the same tool, or a tool of the same category (edit, bash, search, read, finish, think, planning; 63 names and
//      their CamelCase forms) — else reward 0, `tool_name_mismatch`;
//   1. (enable_target_match) the same target: file, editor sub-command and view range of an edit; command verb, paths
//      and a 0.3 similarity floor of a shell command; the path of a search or read — else 0, `target_mismatch`;
//   2. (enable_argument_similarity) difflib's ratio of the arguments: binary mode 1 at similarity_full_credit or
//      above, else 0; continuous mode 1 there, 0.5 → 1 linearly from similarity_threshold, else 0
//      (`similarity_below_threshold`);
//   4. (enable_diff_size_shaping, continuous mode only) the reward times 1 − diff_size_alpha × min(edit size / 500, 1).
// The expected call is `expected_action`, else `expected_answer` as JSON, else `metadata.expected_action`; none is
// `expected_action_invalid`, a response without a function call `model_output_invalid`, and any exception on the way
// (arguments of the wrong shape, a name that is no string) `unknown_error`, all reward 0. No LLM judge, no tools.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { KeyError, PyJsonDecodeError } from "../../src/python/exception.ts";
import { pythonSlice } from "../../src/python/str.ts";
import { fromJsonValue, isPyDict, type PyDict, type PyValue } from "../../src/python/values.ts";
import { argumentSimilarity, diffSizePenalty, targetMatches, toolInfo, toolNameMatches } from "./pivot.ts";

export const FailureCode = {
  NONE: "none",
  EXPECTED_ACTION_INVALID: "expected_action_invalid",
  MODEL_OUTPUT_INVALID: "model_output_invalid",
  TOOL_NAME_MISMATCH: "tool_name_mismatch",
  TARGET_MISMATCH: "target_mismatch",
  SIMILARITY_BELOW_THRESHOLD: "similarity_below_threshold",
  UNKNOWN_ERROR: "unknown_error",
} as const;
type FailureCode = (typeof FailureCode)[keyof typeof FailureCode];

const ConfigSchema = z.looseObject({
  /** "binary" or "continuous"; any other value is continuous at level 2 and skips level 4, as in NeMo Gym. */
  reward_mode: z.string().default("binary"),
  enable_target_match: z.boolean().default(true),
  enable_argument_similarity: z.boolean().default(true),
  similarity_threshold: z.number().default(0.4),
  similarity_full_credit: z.number().default(0.8),
  enable_diff_size_shaping: z.boolean().default(true),
  diff_size_alpha: z.number().default(0.1),
});
type Config = z.output<typeof ConfigSchema>;

type Call = { name: PyValue; arguments: PyValue };

/** `ea["name"]` of an expected action: a missing name is Python's KeyError. */
function callOf(action: PyDict): Call {
  if (!action.has("name")) throw new KeyError("'name'");
  return { name: action.get("name")!, arguments: action.has("arguments") ? action.get("arguments")! : "" };
}

const isFunctionCall = (value: PyValue | undefined): value is PyDict => isPyDict(value) && value.get("type") === "function_call";
const truthyDict = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && Object.keys(value).length > 0;

/** `_extract_expected_function_call`: expected_action, else expected_answer parsed (a KeyError there is passed over), else metadata's. */
function expectedCall(body: { expected_action?: Record<string, unknown> | null; expected_answer?: string | null; metadata?: Record<string, unknown> | null }): Call | null {
  if (truthyDict(body.expected_action)) {
    const action = fromJsonValue(body.expected_action);
    if (isFunctionCall(action)) return callOf(action);
  }
  if (body.expected_answer) {
    try {
      const action = pythonJsonLoads(body.expected_answer);
      if (isFunctionCall(action)) return callOf(action);
    } catch (error) {
      if (!(error instanceof PyJsonDecodeError || error instanceof KeyError)) throw error;
    }
  }
  if (truthyDict(body.metadata) && Object.hasOwn(body.metadata, "expected_action")) {
    const action = fromJsonValue(body.metadata.expected_action);
    if (isFunctionCall(action)) return callOf(action);
  }
  return null;
}

interface Outcome {
  reward: number;
  model_output: string;
  tool_name_match: boolean;
  target_match: boolean | null;
  similarity_score: number | null;
  diff_size_penalty: number | null;
  failure_reason: FailureCode;
}

/** The levels in order; the outcome so far stays when one of them throws (NeMo Gym's `except Exception`). */
function score(expected: () => Call | null, output: readonly { type: string; name?: string; arguments?: string }[], config: Config, warn: (message: string) => void): Outcome {
  const outcome: Outcome = { reward: 0.0, model_output: "", tool_name_match: false, target_match: null, similarity_score: null, diff_size_penalty: null, failure_reason: FailureCode.NONE };
  const fail = (failure: FailureCode) => Object.assign(outcome, { reward: 0.0, failure_reason: failure });
  try {
    const expectedFunctionCall = expected();
    if (expectedFunctionCall === null) return fail(FailureCode.EXPECTED_ACTION_INVALID);
    const expectedTool = toolInfo(expectedFunctionCall);

    const call = output.find((item) => item.type === "function_call");
    if (call === undefined) {
      outcome.model_output = "(no function_call in response)";
      return fail(FailureCode.MODEL_OUTPUT_INVALID);
    }
    const rolloutTool = toolInfo({ name: call.name ?? "", arguments: call.arguments ?? "" });
    outcome.model_output = `${call.name}(${pythonSlice(pythonJsonDumpsTyped(rolloutTool.args), 0, 500)})`;

    outcome.tool_name_match = toolNameMatches(rolloutTool, expectedTool);
    if (!outcome.tool_name_match) return fail(FailureCode.TOOL_NAME_MISMATCH);
    outcome.reward = 1.0;

    if (config.enable_target_match) {
      outcome.target_match = targetMatches(rolloutTool, expectedTool);
      if (!outcome.target_match) return fail(FailureCode.TARGET_MISMATCH);
    }

    if (config.enable_argument_similarity) {
      const similarity = argumentSimilarity(rolloutTool, expectedTool);
      outcome.similarity_score = similarity;
      const fullCredit = config.similarity_full_credit;
      if (similarity >= fullCredit) outcome.reward = 1.0;
      else if (config.reward_mode !== "binary" && similarity >= config.similarity_threshold) {
        const threshold = config.similarity_threshold;
        outcome.reward = 0.5 + (0.5 * (similarity - threshold)) / (fullCredit - threshold);
      } else return fail(FailureCode.SIMILARITY_BELOW_THRESHOLD);
    }

    if (config.enable_diff_size_shaping && config.reward_mode === "continuous") {
      outcome.diff_size_penalty = diffSizePenalty(rolloutTool, config.diff_size_alpha);
      outcome.reward *= 1.0 - outcome.diff_size_penalty;
    }
  } catch (error) {
    warn(`swe_pivot verify error: ${(error as Error).name} ${(error as Error).message}`);
    fail(FailureCode.UNKNOWN_ERROR);
  }
  return outcome;
}

export default resourcesServer({
  name: "SwePivotResourcesServer",
  config: ConfigSchema,
  tools: {},
  verify: {
    input: z.looseObject({
      uuid: z.union([z.string(), z.number().int()]).nullish(),
      expected_answer: z.string().nullish(),
      expected_action: z.record(z.string(), z.unknown()).nullish(),
      metadata: z.record(z.string(), z.unknown()).nullish(),
    }),
    run(_state, body, { config, server }) {
      const outcome = score(() => expectedCall(body), body.response.output as { type: string; name?: string; arguments?: string }[], config, (message) => server.log.warn(message));
      const { reward, ...levels } = outcome;
      // NeMo Gym's SwePivotVerifyResponse: expected_answer is the row's (or ""), never the expected call.
      return { reward, uuid: body.uuid ?? null, expected_answer: body.expected_answer || "", ...levels, metadata: body.metadata ?? null };
    },
  },
  floatFields: ["similarity_score", "diff_size_penalty"],
});
