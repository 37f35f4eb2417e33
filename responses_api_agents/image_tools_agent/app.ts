// NeMo Gym's image_tools_agent: adds iterative image inspection to another agent's task. Up to max_steps times it
// calls the model (stop strings and include_stop_str_in_output passed through metadata.extra_body), reads image-tool
// calls from the assistant's text, runs them on the rollout's image store (the row's input images, then every tool
// output: src/ports/image-tools) and sends the results back as a user message with the new image; a turn without a
// tool call (or a terminal invalid one) ends the loop. /run verifies the last assistant message on the resources
// server that `image_tools_base_agent_ref.name` maps to (resource_servers_by_agent); the reward is the environment's
// plus the tool-use shaping reward (capped by tool_success_reward_cap whenever a turn produced an image).
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { NeMoGymResponse, Usage } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { addUsage, alwaysVerifiesKeys, callModel, responsesApiAgent, rolloutIdForRow, rolloutPathPrefix, seedSession, verifyRollout, type ServerContext } from "../../src/server/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { isPyDict } from "../../src/python/values.ts";
import { jsonStr } from "../../src/python/json-value.ts";
import { decodeImage, encode } from "../../src/ports/image-tools/image.ts";
import { hasMalformedImageToolMarkup, parseImageToolCalls } from "../../src/ports/image-tools/parse.ts";
import { processNonterminalTurn, type ImageToolsMetadata, type TurnOutcome } from "../../src/ports/image-tools/turn.ts";

const ServerRef = <T extends string>(type: T) => z.object({ type: z.literal(type), name: z.string() });

const ImageToolsAgentConfig = z.looseObject({
  model_server: ServerRef("responses_api_models"),
  resource_servers_by_agent: z.record(z.string(), ServerRef("resources_servers")),
  max_steps: z.number().int().default(5),
  max_output_tokens: z.number().int().nullable().default(4096),
  stop_strings: z.array(z.string()).default(["</tool_call>"]),
  include_stop_str_in_output: z.boolean().default(true),
  crop_dir: z.string().default("image_tool_outputs"),
  crop_format: z.string().default("jpeg"),
  crop_jpeg_quality: z.number().int().default(95),
  crop_min_pixels: z.number().int().default(262144),
  crop_max_pixels: z.number().int().default(1048576),
  max_tool_calls: z.number().int().default(4),
  max_tool_calls_per_turn: z.number().int().default(1),
  tool_success_reward: z.number().default(0.02),
  tool_success_reward_cap: z.number().default(0.05),
  invalid_tool_call_penalty: z.number().default(-0.05),
  duplicate_tool_call_penalty: z.number().default(-0.02),
  force_final_after_duplicate: z.boolean().default(true),
  terminate_on_invalid_tool_call: z.boolean().default(true),
  duplicate_iou_threshold: z.number().default(0.5),
});
type Config = z.output<typeof ImageToolsAgentConfig>;
type Agent = ServerContext<Config>;
type Item = Record<string, unknown>;

/** The text of the response's assistant messages (string content, or each part's `text`), joined, stripped. */
export function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output as unknown as Item[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content as Item[]) if (typeof part?.text === "string") texts.push(part.text);
  }
  return pythonStrip(texts.join("\n"));
}

/** _extract_image_refs: the URL of every input_image / image_url / image part of the input messages. */
export function imageRefs(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const refs: string[] = [];
  for (const item of input as Item[]) {
    if (!Array.isArray(item?.content)) continue;
    for (const part of item.content as Item[]) {
      if (typeof part !== "object" || part === null || !["input_image", "image_url", "image"].includes(part.type as string)) continue;
      let url: unknown = "image_url" in part ? part.image_url : (part.image ?? "");
      if (typeof url === "object" && url !== null) url = (url as Item).url ?? "";
      if (url) refs.push(url as string);
    }
  }
  return refs;
}

/** _pil_to_data_url: the saved tool image re-encoded in crop_format (Pillow's default JPEG quality, 75). */
async function imageDataUrl(path: string, format: string): Promise<string> {
  const upper = format.toUpperCase();
  if (upper !== "JPEG" && upper !== "PNG") throw new Error(`Pillow has no image format '${upper}' to save the tool image as`);
  const bytes = await encode(await decodeImage(await readFile(path)), upper === "PNG" ? "png" : "jpeg", 75);
  return `data:image/${upper.toLowerCase()};base64,${bytes.toString("base64")}`;
}

/** _tool_user_message: the observation as a user message (tool images inlined as data URLs) and the images it shows. */
async function toolUserMessage(observation: TurnOutcome["observation"], format: string): Promise<[Item, string[]]> {
  if (typeof observation.content === "string") return [{ content: observation.content, role: "user", type: "message" }, []];
  const converted: Item[] = [];
  const images: string[] = [];
  for (const part of observation.content) {
    if (part.type === "text") converted.push({ type: "input_text", text: part.text });
    else {
      images.push(part.image);
      converted.push({ type: "input_image", image_url: await imageDataUrl(part.image, format), detail: "auto" });
    }
  }
  return [{ content: converted, role: "user", type: "message" }, images];
}

/** metadata.extra_body (a JSON string) with the stop strings merged in, as NeMo Gym routes them to vLLM. */
function withStopStrings(metadata: unknown, config: Config): unknown {
  const extra: [string, unknown][] = [];
  if (config.stop_strings.length > 0) extra.push(["stop", config.stop_strings]);
  if (config.include_stop_str_in_output) extra.push(["include_stop_str_in_output", true]);
  if (extra.length === 0) return metadata;
  const current = { ...((metadata as Item | null | undefined) ?? {}) };
  const loaded = pythonJsonLoads(typeof current.extra_body === "string" ? current.extra_body : "{}");
  if (!isPyDict(loaded)) throw new Error("metadata.extra_body is not a JSON object: NeMo Gym's dict.update fails on it");
  for (const [key, value] of extra) loaded.set(key, value as never);
  current.extra_body = pythonJsonDumpsTyped(loaded);
  return current;
}

export interface LoopOutcome {
  response: NeMoGymResponse;
  cookies: Record<string, string>;
  info: {
    image_tools_aux_reward: number;
    image_tools_call_count: number;
    image_tools_error_count: number;
    image_tools_output_paths: string[];
    image_tools_generation_image_paths: string[][];
  };
}

/** _run_image_tools_loop. */
async function imageToolsLoop(agent: Agent, rawParams: Item, rowMetadata: Item, cookies: Record<string, string>, modelPath: string, signal: AbortSignal): Promise<LoopOutcome> {
  const { config } = agent;
  const params: Item = structuredClone(rawParams);
  if ((params.max_output_tokens ?? null) === null && config.max_output_tokens !== null) params.max_output_tokens = config.max_output_tokens;
  let metadata: ImageToolsMetadata = {
    ground_truth: "",
    image_paths: imageRefs(params.input),
    dataset: "dataset" in rowMetadata ? jsonStr(rowMetadata.dataset) : "unknown",
    tool_call_count: 0,
    tool_error_count: 0,
    crop_paths: [],
    seen_tool_sigs: [],
    seen_bboxes: {},
  };
  const baseInput: unknown[] = typeof params.input === "string" ? [{ content: params.input, role: "user", type: "message" }] : [...((params.input as unknown[]) ?? [])];
  const newOutputs: unknown[] = [];
  let usage: Usage | null = null;
  let modelCookies = cookies;
  let auxReward = 0;
  const generationImagePaths: string[][] = [[]];
  let lastResponse: NeMoGymResponse | undefined;

  for (let step = 0; step < config.max_steps; step++) {
    signal.throwIfAborted();
    const body = { ...params, input: [...baseInput, ...newOutputs], metadata: withStopStrings(params.metadata, config) };
    const model = await callModel(agent, config.model_server.name, modelPath, { json: body, cookies: modelCookies, signal });
    modelCookies = model.cookies;
    lastResponse = model.response;
    newOutputs.push(...model.response.output);
    usage = addUsage(usage, model.response.usage);

    const text = assistantText(model.response);
    const calls = parseImageToolCalls(text);
    const malformed = hasMalformedImageToolMarkup(text);
    const turn = await processNonterminalTurn(logicConfig(config), text, metadata);
    auxReward += turn.reward;
    if (turn.metadata !== null) metadata = turn.metadata;
    if (calls.length === 0 && !malformed) break;
    if (turn.done || turn.metadata === null) break;

    const [userMessage, images] = await toolUserMessage(turn.observation, config.crop_format);
    newOutputs.push(userMessage);
    generationImagePaths.push(images);
    if (images.length > 0) auxReward = Math.min(auxReward, config.tool_success_reward_cap);
  }
  // max_steps 0 (or less): NeMo Gym's RuntimeError, a failed rollout and never a score.
  if (lastResponse === undefined) throw new Error("ImageToolsAgent did not receive a model response");
  return {
    response: { ...lastResponse, output: newOutputs as NeMoGymResponse["output"], usage },
    cookies: modelCookies,
    info: {
      image_tools_aux_reward: auxReward,
      image_tools_call_count: metadata.tool_call_count,
      image_tools_error_count: metadata.tool_error_count,
      image_tools_output_paths: [...metadata.crop_paths],
      image_tools_generation_image_paths: generationImagePaths,
    },
  };
}

const logicConfig = (config: Config) => ({ ...config, stop_strings: config.stop_strings });

/** _final_assistant_response: the response with only its last assistant message (or as is, without one). */
function finalAssistantResponse(response: NeMoGymResponse): NeMoGymResponse {
  const last = [...response.output].reverse().find((item) => item.type === "message" && (item as Item).role === "assistant");
  return last === undefined ? response : { ...response, output: [last] };
}

/** _resource_name: the resources server that the row's base agent maps to (a 422 naming the field otherwise). */
function resourcesServerOf(row: Item, config: Config): string {
  const ref = row.image_tools_base_agent_ref;
  const loc = ["body", "image_tools_base_agent_ref"];
  if (typeof ref !== "object" || ref === null || Object.keys(ref).length === 0) throw new RequestValidationError([{ type: "missing", loc, msg: "image_tools_base_agent_ref is required", input: ref ?? null }]);
  const name = (ref as Item).name;
  if (typeof name !== "string") throw new RequestValidationError([{ type: "missing", loc: [...loc, "name"], msg: "Field required", input: ref }]);
  const server = config.resource_servers_by_agent[name];
  if (server === undefined) throw new RequestValidationError([{ type: "value_error", loc: [...loc, "name"], msg: `No resource server mapping for base agent '${name}'`, input: name }]);
  return server.name;
}

/** The fields ImageToolsAgentVerifyResponse declares, in its order; the verify response's other fields follow. */
const DECLARED = ["responses_create_params", "response", "reward", "base_reward", "image_tools_aux_reward", "image_tools_call_count", "image_tools_error_count", "image_tools_output_paths", "image_tools_generation_image_paths", "image_tools_base_agent_ref"];

export default responsesApiAgent({
  name: "ImageToolsAgent",
  config: ImageToolsAgentConfig,
  refusedConfigKeys: alwaysVerifiesKeys("image_tools_agent"),
  // ImageToolsAgentVerifyResponse's floats.
  floatFields: ["base_reward", "image_tools_aux_reward"],

  async responses({ rawParams, cookies, rolloutId, signal }, agent) {
    const loop = await imageToolsLoop(agent, rawParams as Item, {}, cookies, `${rolloutPathPrefix(rolloutId)}/v1/responses`, signal);
    return { response: loop.response, cookies: loop.cookies };
  },

  async run({ row, cookies, signal }, agent) {
    const resources = resourcesServerOf(row, agent.config);
    const sessionCookies = await seedSession(agent, resources, { row, cookies, signal });
    const { responses_create_params: _params, response: _response, ...rowMetadata } = row as Item;
    const modelPath = `${rolloutPathPrefix(rolloutIdForRow(row, agent.globalConfig))}/v1/responses`;
    const loop = await imageToolsLoop(agent, row.responses_create_params as Item, rowMetadata, cookies, modelPath, signal);
    const verified = await verifyRollout(agent, resources, { json: { ...row, response: finalAssistantResponse(loop.response) }, cookies: sessionCookies, signal });
    const baseReward = Number(verified.reward);
    const answer: Item = {
      ...verified,
      base_reward: baseReward,
      reward: baseReward + loop.info.image_tools_aux_reward,
      image_tools_base_agent_ref: row.image_tools_base_agent_ref ?? null,
      ...loop.info,
      response: loop.response,
    };
    const ordered: Item = {};
    for (const key of DECLARED) ordered[key] = answer[key];
    for (const [key, value] of Object.entries(answer)) if (!(key in ordered)) ordered[key] = value;
    return ordered;
  },

  // NeMo Gym's aggregate_metrics is the base agent's default: metrics computed here, over the verify responses given.
});
