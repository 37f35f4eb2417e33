// image_tools_agent's loop, rule by rule, over real HTTP: a queue-driven model, the real circle_count server as the
// mapped environment, pictures drawn here with sharp; then a whole rollout with scripted_model (judge_rules) that
// counts circles with count_objects_tool and answers.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { resourcesServer, responsesApiModel } from "../../../src/server/index.ts";
import { http, serverDefinition, startServers, type InProcessGraph } from "../../../src/testing/index.ts";
import { circlesPng, imageDataUrl } from "../../../src/testing/images.ts";
import imageToolsAgent from "../app.ts";

type Item = Record<string, any>;
type Turn = { output: Item[]; usage?: unknown };
const modelTurns: Turn[] = [];
const modelRequests: Item[] = [];
const verifyRequests: Item[] = [];

const message = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const usage = (input: number, output: number, cached: number, reasoning: number) => ({ input_tokens: input, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + output });
const xmlCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${JSON.stringify(v)}\n</parameter>`).join("\n")}\n</function>\n</tool_call>`;
const zoomCall = (bbox = [0, 0, 500, 500]) => xmlCall("image_zoom_in_tool", { bbox_2d: bbox, img_idx: 0 });

const model = responsesApiModel({
  name: "QueueModel",
  config: z.looseObject({}),
  async responses({ params, rawParams }) {
    modelRequests.push(structuredClone(rawParams) as Item);
    const turn: Turn = modelTurns.shift() ?? { output: [message("\\boxed{0}")] };
    return {
      id: `resp_${modelRequests.length}`, created_at: 1, error: null, incomplete_details: null, instructions: null, metadata: null, model: "queue",
      object: "response", output: turn.output, parallel_tool_calls: true, temperature: null, tool_choice: "auto", tools: params.tools, top_p: null, usage: turn.usage ?? null,
    } as any;
  },
});

/** A model whose second call hangs until its caller goes away (a resources-server definition serving /v1/responses). */
let hangEntered: () => void = () => {};
let hangAborted: () => void = () => {};
let hangCalls = 0;
const hangingModel = resourcesServer({
  name: "HangingModel",
  tools: {},
  verify: { run: () => 0 },
  routes: (app) => {
    app.post("/v1/responses", async (request, reply) => {
      hangCalls++;
      if (hangCalls === 1) return { id: "r1", created_at: 1, model: "hang", object: "response", output: [message(zoomCall())], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
      hangEntered();
      await new Promise<void>((resolve) => reply.raw.once("close", () => resolve()));
      hangAborted();
      return reply.code(499).send({});
    });
  },
});

const crops = mkdtempSync(join(tmpdir(), "image-tools-agent-"));
const agentFields = (extra: Item = {}) => ({
  model_server: { type: "responses_api_models", name: "policy_model" },
  resource_servers_by_agent: { circle_count_simple_agent: { type: "resources_servers", name: "circle_count" } },
  crop_dir: crops,
  ...extra,
});
let graph: InProcessGraph;
const client = http();
let image: string;
const CIRCLES = [
  { x: 60, y: 60, radius: 25, color: "red" },
  { x: 200, y: 60, radius: 25, color: "blue" },
  { x: 130, y: 180, radius: 25, color: "red" },
];

before(async () => {
  image = imageDataUrl(await circlesPng(260, 240, CIRCLES.map((c) => ({ ...c, fill: c.color }))));
  const circleCount = await serverDefinition("resources_servers/circle_count");
  // A resources server that records what /verify is sent, then scores as circle_count does.
  graph = await startServers({
    circle_count: [circleCount],
    policy_model: [model],
    agent: [imageToolsAgent, agentFields({ max_steps: 4, max_tool_calls: 2, tool_success_reward_cap: 0.03 })],
    lenient: [imageToolsAgent, agentFields({ terminate_on_invalid_tool_call: false, max_steps: 3 })],
  });
});
after(async () => {
  await graph.close();
  await client.close();
  rmSync(crops, { recursive: true, force: true });
});
beforeEach(() => {
  modelTurns.length = 0;
  modelRequests.length = 0;
  verifyRequests.length = 0;
});

const rowWith = (extra: Item = {}) => ({
  responses_create_params: { input: [{ role: "user", content: [{ type: "input_image", image_url: image, detail: "auto" }, { type: "input_text", text: "How many red circles are in the image?" }] }] },
  circles: CIRCLES,
  target_color: "red",
  image_tools_base_agent_ref: { type: "responses_api_agents", name: "circle_count_simple_agent" },
  ...extra,
});
const run = (row: Item, agent = "agent", options: { signal?: AbortSignal } = {}) => client.request(`${graph.url(agent)}/run`, { method: "POST", json: row, ...options });
async function ran(row: Item = rowWith(), agent = "agent"): Promise<Item> {
  const answer = await run(row, agent);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
}

test("a turn without a tool call ends the loop: one model call, the mapped server verifies, reward = base + aux", async () => {
  modelTurns.push({ output: [message("\\boxed{2}")] });
  const body = await ran();
  assert.equal(modelRequests.length, 1);
  assert.deepEqual(Object.keys(body).slice(0, 10), ["responses_create_params", "response", "reward", "base_reward", "image_tools_aux_reward", "image_tools_call_count", "image_tools_error_count", "image_tools_output_paths", "image_tools_generation_image_paths", "image_tools_base_agent_ref"]);
  assert.deepEqual(Object.keys(body).slice(10), ["predicted_count", "expected_count", "correct"], "the environment's own fields follow");
  assert.deepEqual([body.reward, body.base_reward, body.image_tools_aux_reward, body.image_tools_call_count, body.image_tools_generation_image_paths], [1, 1, 0, 0, [[]]]);
});

test("the answer writes its floats as Python does: reward, base_reward and image_tools_aux_reward with their .0", async () => {
  modelTurns.push({ output: [message("\\boxed{2}")] });
  const answer = await run(rowWith());
  assert.match(answer.text, /"reward":1\.0,"base_reward":1\.0,"image_tools_aux_reward":0\.0,"image_tools_call_count":0,/);
});

test("the stop strings go to the model in metadata.extra_body, merged with the row's; max_output_tokens defaults to 4096", async () => {
  await ran(rowWith({ responses_create_params: { ...rowWith().responses_create_params, metadata: { extra_body: '{"top_k": 5}', tag: "x" } } }));
  assert.deepEqual(modelRequests[0]!.metadata, { extra_body: '{"top_k": 5, "stop": ["</tool_call>"], "include_stop_str_in_output": true}', tag: "x" });
  assert.equal(modelRequests[0]!.max_output_tokens, 4096);
  await ran(rowWith({ responses_create_params: { ...rowWith().responses_create_params, max_output_tokens: 77 } }));
  assert.equal(modelRequests[1]!.max_output_tokens, 77);
});

test("a tool call runs on the row's image: its result and the new image come back as a user message; the aux reward counts it", async () => {
  modelTurns.push({ output: [message(zoomCall())] }, { output: [message("\\boxed{2}")] });
  const body = await ran();
  assert.equal(modelRequests.length, 2);
  const toolTurn = modelRequests[1]!.input.at(-1);
  assert.equal(toolTurn.role, "user");
  assert.equal(toolTurn.type, "message");
  const [open, result, picture, newline, close] = toolTurn.content;
  assert.deepEqual([open, newline, close], [{ type: "input_text", text: "<tool_response>\n" }, { type: "input_text", text: "\n" }, { type: "input_text", text: "</tool_response>" }]);
  // 130×120 px box ×3 = 390×360 → the 32 grid 384×352, then raised to crop_min_pixels (262144): 544×512.
  assert.equal(result.text, '{"ok": true, "box": [0.0, 0.0, 500.0, 500.0], "factor": 3.0, "label": "", "img_idx": 0, "size": [544, 512], "new_img_indices": [1]}\n');
  assert.match(picture.image_url, /^data:image\/jpeg;base64,/);
  assert.equal(picture.detail, "auto");
  assert.equal(body.image_tools_call_count, 1);
  assert.equal(body.image_tools_aux_reward, 0.02);
  assert.equal(body.reward, 1.02);
  assert.equal(body.image_tools_output_paths.length, 1);
  assert.ok(existsSync(body.image_tools_output_paths[0]) && body.image_tools_output_paths[0].startsWith(crops), "saved under crop_dir/<dataset>/<uuid>/");
  assert.deepEqual(body.image_tools_generation_image_paths, [[], body.image_tools_output_paths]);
});

test("verify sees only the last assistant message; the answer's response has every turn, tool messages included", async () => {
  modelTurns.push({ output: [message(zoomCall())] }, { output: [message("\\boxed{2}")] });
  const body = await ran();
  assert.deepEqual(body.response.output.map((item: Item) => item.role), ["assistant", "user", "assistant"]);
  const reverified = await graph.client.post("circle_count", "/verify", { json: { ...rowWith(), response: { ...body.response, output: body.response.output.slice(0, 1) } } });
  assert.equal(reverified.json<Item>().predicted_count, null, "the tool-call turn alone has no answer: only the last message was scored");
});

test("the aux reward is capped at tool_success_reward_cap after a turn that produced an image", async () => {
  modelTurns.push({ output: [message(zoomCall([0, 0, 300, 300]))] }, { output: [message(zoomCall([600, 600, 1000, 1000]))] }, { output: [message("\\boxed{2}")] });
  const body = await ran();
  assert.equal(body.image_tools_call_count, 2);
  assert.equal(body.image_tools_aux_reward, 0.03, "0.02 + 0.02 capped at 0.03");
});

test("a duplicate call is penalised and warned, and the next tool call is refused: a final answer was required", async () => {
  modelTurns.push({ output: [message(zoomCall())] }, { output: [message(zoomCall())] }, { output: [message(zoomCall([0, 500, 500, 1000]))] });
  const body = await ran();
  const warned = JSON.parse(modelRequests[2]!.input.at(-1).content[1].text);
  assert.match(warned.warning, /^You already requested this exact tool call/);
  assert.equal(modelRequests.length, 3, "the refused call ends the rollout (terminate_on_invalid_tool_call)");
  assert.deepEqual([body.image_tools_error_count, body.image_tools_aux_reward], [1, 0.02 - 0.02 - 0.05]);
});

test("a near-duplicate region (IoU >= 0.5 on the same image) is warned with its IoU", async () => {
  modelTurns.push({ output: [message(zoomCall([0, 0, 500, 500]))] }, { output: [message(zoomCall([0, 0, 500, 400]))] }, { output: [message("\\boxed{2}")] });
  await ran();
  assert.match(JSON.parse(modelRequests[2]!.input.at(-1).content[1].text).warning, /IoU=0\.80\)/);
});

test("malformed markup and a failing tool are invalid calls: a penalty; they end the rollout unless terminate_on_invalid_tool_call is off", async () => {
  modelTurns.push({ output: [message("<tool_call><function=image_zoom_in_tool>")] });
  const ended = await ran();
  assert.deepEqual([modelRequests.length, ended.image_tools_error_count, ended.image_tools_aux_reward], [1, 1, -0.05]);
  modelTurns.push({ output: [message(xmlCall("image_crop_tool", { bbox_2d: [0, 0, 10, 10], img_idx: 3 }))] }, { output: [message("\\boxed{2}")] });
  const went = await ran(rowWith(), "lenient");
  assert.equal(modelRequests.at(-1)!.input.at(-1).content, "<tool_response>\nimage_crop_tool failed: img_idx 3 is out of range for 1 image(s)\n</tool_response>");
  assert.deepEqual([went.reward, went.image_tools_error_count], [1 - 0.05, 1]);
});

test("only max_tool_calls_per_turn calls run in a turn, and the model is told so", async () => {
  modelTurns.push({ output: [message(zoomCall([0, 0, 300, 300]) + zoomCall([600, 600, 1000, 1000]))] }, { output: [message("\\boxed{2}")] });
  const body = await ran();
  const parts = modelRequests[1]!.input.at(-1).content;
  assert.equal(parts.at(-2).text, "Only the first 1 tool call(s) were executed this turn. Call tools one turn at a time.\n");
  assert.equal(body.image_tools_call_count, 1);
});

test("a row without input images: a tool call is invalid (no source images)", async () => {
  modelTurns.push({ output: [message(zoomCall())] });
  const body = await ran(rowWith({ responses_create_params: { input: "How many red circles?" } }));
  assert.deepEqual([body.image_tools_error_count, body.image_tools_aux_reward, modelRequests.length], [1, -0.05, 1]);
  assert.deepEqual(modelRequests[0]!.input, [{ content: "How many red circles?", role: "user", type: "message" }], "a string input becomes one user message");
});

test("after max_tool_calls the model is told to answer (a plain user message), and max_steps bounds the model calls", async () => {
  modelTurns.push(...[[0, 0, 300, 300], [600, 600, 1000, 1000], [0, 600, 300, 1000], [600, 0, 1000, 300]].map((bbox) => ({ output: [message(zoomCall(bbox))] })));
  const body = await ran();
  assert.equal(modelRequests.length, 4, "max_steps 4");
  assert.match(modelRequests[3]!.input.at(-1).content, /^This is your FINAL turn\./);
  assert.equal(body.image_tools_call_count, 2);
});

test("usage is summed over the turns; with more than one turn cached and reasoning tokens are zeroed (NeMo Gym's rule)", async () => {
  modelTurns.push({ output: [message("\\boxed{2}")], usage: usage(10, 2, 4, 1) });
  assert.deepEqual((await ran()).response.usage, usage(10, 2, 4, 1));
  modelTurns.push({ output: [message(zoomCall())], usage: usage(10, 2, 4, 1) }, { output: [message("\\boxed{2}")], usage: usage(20, 3, 8, 2) });
  assert.deepEqual((await ran()).response.usage, usage(30, 5, 0, 0));
});

test("image_tools_base_agent_ref is required and must name a mapped agent (a 422 naming it)", async () => {
  const missing = await run(rowWith({ image_tools_base_agent_ref: undefined }));
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.json<Item>().detail[0].loc, ["body", "image_tools_base_agent_ref"]);
  const unknown = await run(rowWith({ image_tools_base_agent_ref: { name: "mcqa_simple_agent" } }));
  assert.equal(unknown.status, 422);
  assert.match(unknown.text, /No resource server mapping for base agent 'mcqa_simple_agent'/);
  assert.equal(modelRequests.length, 0);
});

test("/v1/responses runs the same loop without verifying", async () => {
  modelTurns.push({ output: [message(zoomCall())] }, { output: [message("two")] });
  const answer = await client.request(`${graph.url("agent")}/v1/responses`, { method: "POST", json: rowWith().responses_create_params });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.json<Item>().output.map((item: Item) => item.role), ["assistant", "user", "assistant"]);
});

test("a rollout whose caller hangs up stops: no model call after it", async () => {
  const hung = await startServers({ circle_count: [await serverDefinition("resources_servers/circle_count")], policy_model: [hangingModel], agent: [imageToolsAgent, agentFields({ max_steps: 5 })] });
  try {
    const entered = new Promise<void>((resolve) => (hangEntered = resolve));
    const aborted = new Promise<void>((resolve) => (hangAborted = resolve));
    const hangUp = new AbortController();
    const pending = client.request(`${hung.url("agent")}/run`, { method: "POST", json: rowWith(), signal: hangUp.signal });
    await entered;
    hangUp.abort();
    await assert.rejects(pending);
    await aborted;
    assert.equal(hangCalls, 2, "the tool ran, the second model call was cut off, and no third came");
  } finally {
    await hung.close();
  }
});

test("a whole rollout with scripted_model: count_objects_tool finds the red circles, the model answers from its result", async () => {
  const e2e = await startServers({
    circle_count: [await serverDefinition("resources_servers/circle_count")],
    policy_model: [
      await serverDefinition("responses_api_models/scripted_model"),
      {
        mode: "judge_rules",
        judge_rules: [
          // After the tool answered: the count it reported, boxed.
          { match: '"ok": true, "count": 2,', answer: "The tool found two red blobs. \\boxed{2}" },
          { match: "How many red circles", answer: xmlCall("count_objects_tool", { color: [255, 0, 0], img_idx: 0 }) },
        ],
      },
    ],
    agent: [imageToolsAgent, agentFields({ max_steps: 3 })],
  });
  try {
    const answer = await client.request(`${e2e.url("agent")}/run`, { method: "POST", json: rowWith() });
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<Item>();
    assert.deepEqual([body.base_reward, body.image_tools_aux_reward, body.reward, body.predicted_count, body.expected_count], [1, 0.02, 1.02, 2, 2]);
    assert.match(body.response.model, /^scripted-/);
    assert.equal(body.image_tools_call_count, 1);
  } finally {
    await e2e.close();
  }
});
