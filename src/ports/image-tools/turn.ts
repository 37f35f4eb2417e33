// ImageToolsGymToolLogic.process_nonterminal_turn of NeMo Gym's image_tools/base.py: given the assistant's text of
// one turn and the rollout's image-tool metadata, decide what the environment answers — a final answer (done), an
// invalid call (a penalty, and done when terminate_on_invalid_tool_call), a forced-final prompt after max_tool_calls,
// or the tool results (each new image appended to the image store), with the duplicate-call penalty and warning.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { PyException } from "../../python/exception.ts";
import { pythonJsonDumpsTyped } from "../../python/json-dumps.ts";
import { isPyDict, type PyValue } from "../../python/values.ts";
import { bboxIou, coerceBbox, hasMalformedImageToolMarkup, IMAGE_TOOL_NAMES, parseImageToolCalls, pyGet, pyInt } from "./parse.ts";
import { executeImageTool } from "./tools.ts";

export interface ImageToolsLogicConfig {
  crop_dir: string;
  crop_format: string;
  crop_jpeg_quality: number;
  crop_min_pixels: number;
  crop_max_pixels: number;
  max_tool_calls: number;
  max_tool_calls_per_turn: number;
  tool_success_reward: number;
  invalid_tool_call_penalty: number;
  duplicate_tool_call_penalty: number;
  force_final_after_duplicate: boolean;
  terminate_on_invalid_tool_call: boolean;
  duplicate_iou_threshold: number;
  stop_strings: string[] | null;
  forced_final_prompt?: string;
}

export const FORCED_FINAL_PROMPT =
  "This is your FINAL turn. Based on the original images and any image tool results already provided, answer the original question now. Do not call any more tools.";

export interface ImageToolsMetadata {
  ground_truth: string;
  /** The image store: the row's images, then every tool output, indexed by img_idx. */
  image_paths: string[];
  dataset: string;
  tool_call_count: number;
  tool_error_count: number;
  crop_paths: string[];
  seen_tool_sigs: string[];
  seen_bboxes: Record<string, number[][]>;
  force_final_next?: boolean;
}

export type ObservationPart = { type: "text"; text: string } | { type: "image"; image: string };
export interface TurnOutcome {
  observation: { role: "user" | "environment"; content: string | ObservationPart[] };
  reward: number;
  done: boolean;
  /** null when the turn ends the rollout with nothing to carry (a final answer). */
  metadata: ImageToolsMetadata | null;
  /** The final answer's text (a turn without tool calls). */
  answer: string | null;
}

const copyMetadata = (metadata: ImageToolsMetadata): ImageToolsMetadata => ({
  ...metadata,
  image_paths: [...metadata.image_paths],
  crop_paths: [...metadata.crop_paths],
  seen_tool_sigs: [...metadata.seen_tool_sigs],
  seen_bboxes: Object.fromEntries(Object.entries(metadata.seen_bboxes).map(([key, boxes]) => [key, boxes.map((box) => [...box])])),
});

export async function processNonterminalTurn(config: ImageToolsLogicConfig, assistantText: string, metadata: ImageToolsMetadata): Promise<TurnOutcome> {
  const invalid = (message: string): TurnOutcome => {
    const next = copyMetadata(metadata);
    next.tool_error_count += 1;
    return { observation: { role: "user", content: `<tool_response>\n${message}\n</tool_response>` }, reward: config.invalid_tool_call_penalty, done: config.terminate_on_invalid_tool_call, metadata: next, answer: null };
  };

  const calls = parseImageToolCalls(assistantText);
  if (hasMalformedImageToolMarkup(assistantText)) return invalid("Invalid image tool call format.");
  if (calls.length === 0) return { observation: { role: "environment", content: "" }, reward: 0, done: true, metadata: null, answer: assistantText };
  if (metadata.force_final_next) return invalid("No more tool calls are allowed. A final answer was required.");
  if (metadata.tool_call_count >= config.max_tool_calls) {
    const next = copyMetadata(metadata);
    next.force_final_next = true;
    return { observation: { role: "user", content: config.forced_final_prompt ?? FORCED_FINAL_PROMPT }, reward: 0, done: false, metadata: next, answer: null };
  }

  // A Python slice: a negative max_tool_calls_per_turn drops calls from the end, as `calls[:n]` does.
  const selected = calls.slice(0, Math.min(config.max_tool_calls_per_turn, config.max_tool_calls - metadata.tool_call_count));
  const next = copyMetadata(metadata);
  const imagePaths = [...next.image_paths];
  if (imagePaths.length === 0) return invalid("Image tools are unavailable because no source images were provided.");

  const content: ObservationPart[] = [{ type: "text", text: "<tool_response>\n" }];
  let reward = 0;
  let forceFinalNext = false;
  for (const call of selected) {
    const toolName = call.name;
    if (!IMAGE_TOOL_NAMES.has(toolName)) return invalid(`Unknown tool name: ${toolName}`);
    const args: PyValue = isPyDict(call.arguments) || truthy(call.arguments) ? call.arguments : new Map();
    if (!isPyDict(args)) return invalid("Tool arguments must be an object.");

    let exactDuplicate: boolean;
    let nearDuplicateIou: number | undefined;
    let execution: Awaited<ReturnType<typeof executeImageTool>>;
    try {
      const signature = pythonJsonDumpsTyped(new Map<string, PyValue>([["name", toolName], ["arguments", args]]), { sortKeys: true, ensureAscii: false });
      exactDuplicate = next.seen_tool_sigs.includes(signature);
      next.seen_tool_sigs.push(signature);
      if (toolName === "image_zoom_in_tool" || toolName === "image_crop_tool") {
        const bbox = coerceBbox(pyGet(args, "bbox_2d"));
        const imgIdx = pyInt(args.has("img_idx") ? pyGet(args, "img_idx") : 0n);
        if (bbox === null) throw new PyException("ValueError", "bbox_2d must be a list of four numbers");
        const seenForImage = (next.seen_bboxes[`${toolName}:${imgIdx}`] ??= []);
        for (const previous of seenForImage) {
          const iou = bboxIou(previous, bbox);
          if (iou >= config.duplicate_iou_threshold) {
            nearDuplicateIou = iou;
            break;
          }
        }
        seenForImage.push(bbox);
      }
      const workDir = join(config.crop_dir, next.dataset, randomUUID());
      execution = await executeImageTool(toolName, args, imagePaths, workDir, { cropFormat: config.crop_format, cropJpegQuality: config.crop_jpeg_quality, cropMinPixels: config.crop_min_pixels, cropMaxPixels: config.crop_max_pixels });
    } catch (error) {
      // NeMo Gym catches every exception here and shows it to the model; a Python-typed error carries Python's text.
      return invalid(`${toolName} failed: ${(error as Error).message}`);
    }

    let warning: string | undefined;
    if (exactDuplicate) {
      warning = "You already requested this exact tool call. Use the evidence you have and provide the final answer.";
      reward += config.duplicate_tool_call_penalty;
      forceFinalNext = config.force_final_after_duplicate;
    } else if (nearDuplicateIou !== undefined) {
      warning = `This region heavily overlaps a previous ${toolName} result (IoU=${nearDuplicateIou.toFixed(2)}). Use the evidence you have and provide the final answer.`;
      reward += config.duplicate_tool_call_penalty;
      forceFinalNext = config.force_final_after_duplicate;
    } else {
      reward += config.tool_success_reward;
    }

    const toolResult = new Map<string, PyValue>([["ok", true], ...execution.result, ["new_img_indices", [BigInt(imagePaths.length)]]]);
    if (warning !== undefined) toolResult.set("warning", warning);
    content.push({ type: "text", text: `${pythonJsonDumpsTyped(toolResult, { ensureAscii: false })}\n` }, { type: "image", image: execution.path }, { type: "text", text: "\n" });
    imagePaths.push(execution.path);
    next.image_paths = imagePaths;
    next.crop_paths.push(execution.path);
    next.tool_call_count += 1;
  }
  if (calls.length > selected.length) content.push({ type: "text", text: `Only the first ${selected.length} tool call(s) were executed this turn. Call tools one turn at a time.\n` });
  content.push({ type: "text", text: "</tool_response>" });
  next.force_final_next = forceFinalNext;
  return { observation: { role: "user", content }, reward, done: false, metadata: next, answer: null };
}

/** Python truthiness of a parsed value (`tool_call.get("arguments") or {}`). */
function truthy(value: PyValue): boolean {
  if (value === null || value === false || value === 0 || value === 0n || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isPyDict(value)) return value.size > 0;
  return true;
}
