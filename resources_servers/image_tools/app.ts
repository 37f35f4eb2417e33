// PivotRL verifier for VLM image-tool trajectories (NeMo Gym's ImageToolsPivotResourcesServer): one row is one
// decision point of a demonstrated trajectory; the model emits one image-tool call in its text and is scored
// against the demonstrated call. No tool runs here (image_tools_agent runs them). Cheapest check first:
//   Level 0  the tool name (zoom and crop one decision when unify_region_inspect_tools);
//   Level 1  the image(s) it targets (enable_target_match);
//   Level 2  the primary argument per tool family: bbox IoU, point closeness, colour closeness, degrees mod 360 /
//            axis, alpha; `label` / `labels` never count.
// binary: 1.0 iff the score reaches argument_threshold; otherwise the score is the reward. With
// penalize_extra_tool_calls, more than one call scores 0. Any Python error inside verify is NeMo Gym's broad
// `except`: reward 0.0, failure_reason "unknown_error".
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { PyException, PyJsonDecodeError } from "../../src/python/exception.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { pythonStrip, pythonLower } from "../../src/python/str.ts";
import { fromJsonValue, isPyDict, pythonEquals, pythonStr, type PyDict, type PyValue } from "../../src/python/values.ts";
import { bboxIou, coerceBbox, parseImageToolCalls, pyFloat, pyInt } from "../../src/ports/image-tools/parse.ts";

const FAMILIES: Record<string, string> = {
  image_zoom_in_tool: "bbox",
  image_crop_tool: "bbox",
  color_at_tool: "point",
  find_color_tool: "color",
  count_objects_tool: "color",
  image_diff_tool: "pair",
  image_overlay_tool: "pair",
  image_side_by_side_tool: "multi",
  image_rotate_tool: "scalar",
  image_flip_tool: "scalar",
};
const toolFamily = (name: string) => FAMILIES[name] ?? "unknown";
/** Free-text arguments that never gate the reward. */
const IGNORED_ARGS = new Set(["label", "labels"]);
/** image_crop_tool is image_zoom_in_tool at factor 1, and factor is not compared: one Level 0 decision. */
const REGION_INSPECT_TOOLS = new Set(["image_zoom_in_tool", "image_crop_tool"]);

const FailureCode = {
  NONE: "none",
  EXPECTED_ACTION_INVALID: "expected_action_invalid",
  NO_TOOL_CALL_IN_ROLLOUT: "no_tool_call_in_rollout",
  TOOL_NAME_MISMATCH: "tool_name_mismatch",
  TARGET_MISMATCH: "target_mismatch",
  ARGUMENT_BELOW_THRESHOLD: "argument_below_threshold",
  UNKNOWN_ERROR: "unknown_error",
} as const;

/** `_as_int` / `_as_float`: None where Python's int() / float() raise TypeError or ValueError (OverflowError escapes). */
function asNumber(read: (value: PyValue | undefined) => number, value: PyValue | undefined): number | undefined {
  try {
    return read(value);
  } catch (error) {
    if (error instanceof PyException && (error.type === "TypeError" || error.type === "ValueError")) return undefined;
    throw error;
  }
}
const asInt = (value: PyValue | undefined) => asNumber(pyInt, value);
const asFloat = (value: PyValue | undefined) => asNumber(pyFloat, value);

/** A string argument as json.loads reads it (None when it is not JSON), anything else as is. */
function loadedIfString(value: PyValue | undefined): PyValue | undefined | null {
  if (typeof value !== "string") return value;
  try {
    return pythonJsonLoads(value);
  } catch (error) {
    if (error instanceof PyJsonDecodeError) return null;
    throw error;
  }
}

function coercePoint(value: PyValue | undefined): [number, number] | undefined {
  const loaded = loadedIfString(value);
  if (typeof value === "string" && loaded === null) return undefined;
  if (!Array.isArray(loaded) || loaded.length !== 2) return undefined;
  const x = asFloat(loaded[0]);
  const y = asFloat(loaded[1]);
  return x === undefined || y === undefined ? undefined : [x, y];
}

function coerceInts(value: PyValue | undefined, length?: number): number[] | undefined {
  const loaded = loadedIfString(value);
  if (typeof value === "string" && loaded === null) return undefined;
  // isinstance(value, int): a bool is an int too.
  if (length === undefined && (typeof loaded === "bigint" || typeof loaded === "boolean")) return [pyInt(loaded)];
  if (!Array.isArray(loaded) || (length !== undefined && loaded.length !== length)) return undefined;
  const out: number[] = [];
  for (const item of loaded) {
    const int = asInt(item);
    if (int === undefined) return undefined;
    out.push(int);
  }
  return out;
}
const coerceIndexList = (value: PyValue | undefined) => coerceInts(value);
const coerceColor = (value: PyValue | undefined) => coerceInts(value, 3);

/** Python's float `a % b` (the sign of b). */
function pythonMod(a: number, b: number): number {
  const mod = a % b;
  return mod !== 0 && b < 0 !== mod < 0 ? mod + b : mod;
}

function targetMatches(family: string, rollout: PyDict, expected: PyDict): boolean {
  if (["bbox", "point", "color", "scalar"].includes(family)) {
    const r = asInt(rollout.get("img_idx"));
    const e = asInt(expected.get("img_idx"));
    // Missing on either side cannot disprove: Level 2 decides.
    return r === undefined || e === undefined || r === e;
  }
  if (family === "pair") {
    for (const key of ["img_idx_a", "img_idx_b"]) {
      const r = asInt(rollout.get(key));
      const e = asInt(expected.get(key));
      if (r !== undefined && e !== undefined && r !== e) return false;
    }
    return true;
  }
  if (family === "multi") {
    const r = coerceIndexList(rollout.get("img_indices"));
    const e = coerceIndexList(expected.get("img_indices"));
    if (r === undefined || e === undefined) return true;
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b).join(",");
    return sorted(r) === sorted(e);
  }
  return true;
}

function argumentScore(family: string, rollout: PyDict, expected: PyDict, tolerance: number): [number, string] {
  if (family === "bbox") {
    const r = coerceBbox(rollout.get("bbox_2d"));
    const e = coerceBbox(expected.get("bbox_2d"));
    if (e === null) return [1, "expected_bbox_unparseable"];
    if (r === null) return [0, "rollout_bbox_unparseable"];
    // The demonstrated box reproduced exactly always scores 1 (a zero-area box's IoU with itself is 0).
    if (r.every((v, i) => v === e[i])) return [1, "exact_bbox"];
    return [bboxIou(r, e), "iou"];
  }
  if (family === "point") {
    const r = coercePoint(rollout.get("point_2d"));
    const e = coercePoint(expected.get("point_2d"));
    if (e === undefined) return [1, "expected_point_unparseable"];
    if (r === undefined) return [0, "rollout_point_unparseable"];
    // `** 2` is the product and `** 0.5` glibc's correctly rounded pow, i.e. sqrt.
    const [dx, dy] = [r[0] - e[0], r[1] - e[1]];
    const distance = Math.sqrt(dx * dx + dy * dy);
    return [Math.max(0, 1 - distance / 1000), "point_distance"];
  }
  if (family === "color") {
    const r = coerceColor(rollout.get("color"));
    const e = coerceColor(expected.get("color"));
    if (r === undefined || e === undefined) return pythonEquals(rollout.get("color") ?? null, expected.get("color") ?? null) ? [1, "color_absent"] : [0, "color_mismatch"];
    const diff = (Math.abs(r[0]! - e[0]!) + Math.abs(r[1]! - e[1]!) + Math.abs(r[2]! - e[2]!)) / (3 * 255);
    return [Math.max(0, 1 - diff), "color_distance"];
  }
  if (family === "scalar") {
    for (const key of ["degrees", "axis"]) {
      if (!expected.has(key)) continue;
      const e = expected.get(key)!;
      const r = rollout.get(key);
      const eFloat = asFloat(e);
      const rFloat = asFloat(r);
      if (eFloat !== undefined && rFloat !== undefined) {
        if (key === "degrees") {
          // Rotations are modular: 350 and -10 are the same action.
          const delta = Math.abs(pythonMod(rFloat - eFloat, 360));
          const shortest = 360 - delta < delta ? 360 - delta : delta;
          return [shortest <= tolerance ? 1 : 0, "degrees"];
        }
        return [Math.abs(rFloat - eFloat) <= tolerance ? 1 : 0, key];
      }
      const text = (value: PyValue | undefined) => pythonLower(pythonStrip(pythonStr(value ?? null)));
      return [text(r) === text(e) ? 1 : 0, key];
    }
    return [1, "scalar_no_key"];
  }
  if (family === "pair" || family === "multi") {
    const e = asFloat(expected.get("alpha"));
    const r = asFloat(rollout.get("alpha"));
    if (e !== undefined && r !== undefined) return [Math.abs(r - e) <= tolerance ? 1 : 0, "alpha"];
    return [1, "index_only"];
  }
  return [1, "unknown_family"];
}

/** extract_assistant_text: the text of every output item with content (a string, or its parts' `text`), joined. */
function outputText(response: NeMoGymResponse): string {
  const parts: string[] = [];
  for (const item of response.output as unknown as Record<string, unknown>[]) {
    const content = item.content;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) for (const chunk of content as Record<string, unknown>[]) if (typeof chunk?.text === "string") parts.push(chunk.text);
  }
  return parts.join("\n");
}

/** Python truthiness of a JSON value (`if body.expected_action:`). */
const truthy = (value: unknown) => !(value === null || value === undefined || value === "" || value === false || value === 0 || (typeof value === "object" && Object.keys(value).length === 0));

/** extract_expected_action: the row's expected_action, else metadata.expected_action, else expected_answer as JSON. */
function expectedAction(request: { expected_action?: unknown; metadata?: Record<string, unknown> | null; expected_answer?: string | null }): { name: string; arguments: PyDict } | undefined {
  const candidates: PyValue[] = [];
  if (truthy(request.expected_action)) candidates.push(fromJsonValue(request.expected_action));
  if (truthy(request.metadata)) candidates.push(fromJsonValue(request.metadata!.expected_action ?? null));
  if (truthy(request.expected_answer)) {
    try {
      candidates.push(pythonJsonLoads(request.expected_answer!));
    } catch (error) {
      if (!(error instanceof PyJsonDecodeError)) throw error;
    }
  }
  for (const candidate of candidates) {
    if (!isPyDict(candidate)) continue;
    const name = candidate.get("name");
    if (!(name !== undefined && name !== null && name !== "" && name !== false && name !== 0n && name !== 0 && !(Array.isArray(name) && name.length === 0) && !(isPyDict(name) && name.size === 0))) continue;
    let args = candidate.get("arguments");
    if (typeof args === "string") {
      try {
        args = pythonJsonLoads(args);
      } catch (error) {
        if (!(error instanceof PyJsonDecodeError)) throw error;
        args = new Map();
      }
    }
    return { name: pythonStr(name), arguments: isPyDict(args) ? args : new Map() };
  }
  return undefined;
}

/** `_strip_ignored(args or {})`: a falsy value is `{}`; another non-dict has no `.items()` (AttributeError). */
function withoutIgnored(args: PyValue): PyDict {
  const falsy = args === null || args === false || args === 0 || args === 0n || args === "" || (Array.isArray(args) && args.length === 0);
  if (falsy) return new Map();
  if (!isPyDict(args)) throw new PyException("AttributeError", `'${Array.isArray(args) ? "list" : typeof args === "string" ? "str" : "object"}' object has no attribute 'items'`);
  return new Map([...args].filter(([key]) => !IGNORED_ARGS.has(key)));
}

const codePointTail = (text: string, count: number) => Array.from(text).slice(-count).join("");
const codePointHead = (text: string, count: number) => Array.from(text).slice(0, count).join("");

/** Counts generations with no tool call, to log every n-th (log_unparsed_generations). */
let unparsedSeen = 0;

const ImageToolsConfig = z.looseObject({
  reward_mode: z.string().default("binary"),
  enable_target_match: z.boolean().default(true),
  argument_threshold: z.number().default(0.5),
  numeric_tolerance: z.number().default(1e-6),
  penalize_extra_tool_calls: z.boolean().default(true),
  unify_region_inspect_tools: z.boolean().default(true),
  log_unparsed_generations: z.boolean().default(false),
  log_unparsed_every_n: z.number().int().default(50),
});

export default resourcesServer({
  name: "ImageToolsPivotResourcesServer",
  config: ImageToolsConfig,
  tools: {},
  verify: {
    input: z.looseObject({
      uuid: z.union([z.string(), z.number().int()]).nullish(),
      expected_action: z.record(z.string(), z.unknown()).nullish(),
      expected_answer: z.string().nullish(),
      metadata: z.record(z.string(), z.unknown()).nullish(),
    }),
    run(_state, request, { config, server }) {
      const state = {
        reward: 0,
        model_output: "",
        tool_name_match: false,
        rollout_tool_name: null as string | null,
        expected_tool_name: null as string | null,
        target_match: null as boolean | null,
        argument_score: null as number | null,
        argument_detail: null as string | null,
        tool_family: null as string | null,
        num_rollout_tool_calls: 0,
        failure_reason: FailureCode.NONE as string,
      };
      try {
        score(state);
      } catch (error) {
        // NeMo Gym's `except Exception`: a Python error is scored 0 with unknown_error. A JS fault is no Python
        // error: it stays a 500, never a score.
        if (!(error instanceof PyException)) throw error;
        server.log.error(`image_tools_pivot verify error: ${error.type} ${error.message}`);
        state.reward = 0;
        state.failure_reason = FailureCode.UNKNOWN_ERROR;
      }
      return {
        reward: state.reward,
        uuid: request.uuid ?? null,
        expected_action: request.expected_action ?? null,
        model_output: state.model_output,
        tool_name_match: state.tool_name_match,
        rollout_tool_name: state.rollout_tool_name,
        expected_tool_name: state.expected_tool_name,
        target_match: state.target_match,
        argument_score: state.argument_score,
        argument_detail: state.argument_detail,
        tool_family: state.tool_family,
        num_rollout_tool_calls: state.num_rollout_tool_calls,
        failure_reason: state.failure_reason,
        metadata: request.metadata ?? null,
      };

      function score(s: typeof state): void {
        const expected = expectedAction(request);
        if (expected === undefined) return void (s.failure_reason = FailureCode.EXPECTED_ACTION_INVALID);
        const text = outputText(request.response);
        const calls = parseImageToolCalls(text);
        s.num_rollout_tool_calls = calls.length;
        if (calls.length === 0) {
          s.failure_reason = FailureCode.NO_TOOL_CALL_IN_ROLLOUT;
          s.model_output = codePointTail(text, 500);
          unparsedSeen++;
          if (config.log_unparsed_generations && unparsedSeen % Math.max(1, config.log_unparsed_every_n) === 1) {
            server.log.warn(`image_tools_pivot UNPARSED len=${Array.from(text).length} head=${JSON.stringify(codePointHead(text, 400))} tail=${JSON.stringify(codePointTail(text, 400))}`);
          }
          return;
        }
        // A pivot is one action: the first call is scored.
        const rollout = calls[0]!;
        const rollout_args = withoutIgnored(rollout.arguments);
        const expected_args = withoutIgnored(expected.arguments);
        s.model_output = `${rollout.name}(${codePointHead(pythonJsonDumpsTyped(rollout_args), 400)})`;
        s.rollout_tool_name = rollout.name;
        s.expected_tool_name = expected.name;
        const family = toolFamily(expected.name);
        s.tool_family = family;

        const canonical = (name: string) => (config.unify_region_inspect_tools && REGION_INSPECT_TOOLS.has(pythonStrip(name)) ? "<region_inspect>" : pythonStrip(name));
        s.tool_name_match = canonical(rollout.name) === canonical(expected.name);
        if (!s.tool_name_match) return void (s.failure_reason = FailureCode.TOOL_NAME_MISMATCH);

        if (config.enable_target_match) {
          s.target_match = targetMatches(family, rollout_args, expected_args);
          if (!s.target_match) return void (s.failure_reason = FailureCode.TARGET_MISMATCH);
        }

        const [argScore, detail] = argumentScore(family, rollout_args, expected_args, config.numeric_tolerance);
        s.argument_score = argScore;
        s.argument_detail = detail;
        if (config.reward_mode === "binary") {
          s.reward = argScore >= config.argument_threshold ? 1 : 0;
          if (s.reward === 0) s.failure_reason = FailureCode.ARGUMENT_BELOW_THRESHOLD;
        } else {
          s.reward = argScore;
          if (argScore < config.argument_threshold) s.failure_reason = FailureCode.ARGUMENT_BELOW_THRESHOLD;
        }
        // A burst of calls is off-policy even when the first is right.
        if (config.penalize_extra_tool_calls && calls.length > 1) s.reward = 0;
      }
    },
  },
  floatFields: ["argument_score"],
});
