// The image_tools pivot verifier, level by level (fastify inject): the call parsed from the text (XML or JSON form),
// tool name (zoom = crop), target image, then each family's argument score; binary and continuous modes, the extra
// call penalty, Python errors as unknown_error; the example rows and the verifier cases.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRowsAreRunRequests, assertVerifierCasesScore, assistantMessage, injectServers, readRows, responseWith, type InjectedGraph } from "../../../src/testing/index.ts";
import imageTools from "../app.ts";

type Item = Record<string, any>;
const dataDir = join(import.meta.dirname, "../data");
const params = { input: [{ role: "user", content: [{ type: "input_text", text: "Which sign is red?" }] }] };
const zoom = { name: "image_zoom_in_tool", arguments: { bbox_2d: [100, 100, 300, 300], img_idx: 0, label: "the sign" } };

let graph: InjectedGraph;
before(async () => {
  graph = await injectServers({
    image_tools_pivot: [imageTools],
    continuous: [imageTools, { reward_mode: "continuous" }],
    exact_names: [imageTools, { unify_region_inspect_tools: false, penalize_extra_tool_calls: false }],
    no_target: [imageTools, { enable_target_match: false }],
  });
});
after(() => graph.close());

const xml = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${typeof v === "string" ? v : JSON.stringify(v)}\n</parameter>`).join("\n")}\n</function>\n</tool_call>`;
const verify = (text: string, row: Item = {}, server = "image_tools_pivot") =>
  graph.server(server).post("/verify", { responses_create_params: params, expected_action: zoom, ...row, response: responseWith([assistantMessage(text)]) });
async function body(text: string, row: Item = {}, server?: string): Promise<Item> {
  const answer = await verify(text, row, server);
  assert.equal(answer.status, 200, answer.text);
  return answer.json<Item>();
}
const pick = (b: Item, ...keys: string[]) => Object.fromEntries(keys.map((k) => [k, b[k]]));

describe("the verify response", () => {
  test("has NeMo Gym's fields in order, argument_score written as a float", async () => {
    const answer = await verify(xml("image_zoom_in_tool", { bbox_2d: [100, 100, 300, 300], img_idx: 0 }), { uuid: 7, metadata: { turn: 2 } });
    const b = answer.json<Item>();
    assert.deepEqual(Object.keys(b), ["responses_create_params", "response", "reward", "uuid", "expected_action", "model_output", "tool_name_match", "rollout_tool_name", "expected_tool_name", "target_match", "argument_score", "argument_detail", "tool_family", "num_rollout_tool_calls", "failure_reason", "metadata"]);
    assert.deepEqual(pick(b, "reward", "uuid", "tool_family", "argument_detail", "failure_reason", "metadata"), { reward: 1, uuid: 7, tool_family: "bbox", argument_detail: "exact_bbox", failure_reason: "none", metadata: { turn: 2 } });
    assert.match(answer.text, /"argument_score":1\.0/);
    assert.equal(b.model_output, 'image_zoom_in_tool({"bbox_2d": [100, 100, 300, 300], "img_idx": 0})', "json.dumps of the parsed arguments, label left out");
  });

  test("no tool call: no_tool_call_in_rollout, the text's last 500 characters as model_output", async () => {
    const text = `${"x".repeat(600)}the answer`;
    const b = await body(text);
    assert.deepEqual(pick(b, "reward", "failure_reason", "num_rollout_tool_calls", "target_match", "argument_score"), { reward: 0, failure_reason: "no_tool_call_in_rollout", num_rollout_tool_calls: 0, target_match: null, argument_score: null });
    assert.equal(b.model_output, text.slice(-500));
  });

  test("no usable expected action: expected_action_invalid; metadata.expected_action and expected_answer JSON are fallbacks", async () => {
    assert.equal((await body(xml("image_zoom_in_tool", zoom.arguments), { expected_action: { arguments: {} } })).failure_reason, "expected_action_invalid");
    const call = xml("image_zoom_in_tool", { bbox_2d: [100, 100, 300, 300] });
    assert.equal((await body(call, { expected_action: null, metadata: { expected_action: zoom } })).reward, 1);
    assert.equal((await body(call, { expected_action: null, expected_answer: JSON.stringify({ ...zoom, arguments: JSON.stringify(zoom.arguments) }) })).reward, 1, "arguments given as a JSON string");
  });
});

describe("the parsed call", () => {
  test("the JSON form counts as the XML one; a JSON call with tool_name is read too", async () => {
    assert.equal((await body(`<tool_call>{"name": "image_crop_tool", "arguments": {"bbox_2d": [100, 100, 300, 300]}}</tool_call>`)).reward, 1);
    assert.equal((await body(`<tool_call>{"tool_name": "image_zoom_in_tool", "arguments": {"bbox_2d": "[100, 100, 300, 300]"}}</tool_call>`)).reward, 1);
  });

  test("XML parameter values are JSON when they parse, else the raw text (a bbox as loose numbers still parses)", async () => {
    assert.equal((await body(xml("image_zoom_in_tool", { bbox_2d: "(100, 100), (300, 300)" }))).argument_detail, "exact_bbox");
  });

  test("only the first call is scored; more than one scores 0 unless penalize_extra_tool_calls is off", async () => {
    const two = xml("image_zoom_in_tool", zoom.arguments) + xml("image_crop_tool", zoom.arguments);
    assert.deepEqual(pick(await body(two), "reward", "num_rollout_tool_calls", "failure_reason"), { reward: 0, num_rollout_tool_calls: 2, failure_reason: "none" });
    assert.equal((await body(two, {}, "exact_names")).reward, 1);
  });

  test("JSON arguments that are not an object are a Python AttributeError: reward 0, unknown_error", async () => {
    assert.deepEqual(pick(await body(`<tool_call>{"name": "image_zoom_in_tool", "arguments": [1, 2]}</tool_call>`), "reward", "failure_reason"), { reward: 0, failure_reason: "unknown_error" });
    // Falsy arguments are `or {}`: no arguments, so the bbox cannot be read.
    assert.equal((await body(`<tool_call>{"name": "image_zoom_in_tool", "arguments": []}</tool_call>`)).argument_detail, "rollout_bbox_unparseable");
  });
});

describe("Level 0 and 1", () => {
  test("zoom and crop are one decision unless unify_region_inspect_tools is off; other names mismatch", async () => {
    const crop = xml("image_crop_tool", { bbox_2d: [100, 100, 300, 300] });
    assert.equal((await body(crop)).reward, 1);
    assert.deepEqual(pick(await body(crop, {}, "exact_names"), "reward", "failure_reason", "rollout_tool_name", "expected_tool_name"), { reward: 0, failure_reason: "tool_name_mismatch", rollout_tool_name: "image_crop_tool", expected_tool_name: "image_zoom_in_tool" });
    assert.equal((await body(xml("image_rotate_tool", { degrees: 90 }))).failure_reason, "tool_name_mismatch");
  });

  test("another img_idx is a target mismatch; a missing one cannot disprove; enable_target_match off skips Level 1", async () => {
    const other = xml("image_zoom_in_tool", { bbox_2d: [100, 100, 300, 300], img_idx: 1 });
    assert.deepEqual(pick(await body(other), "reward", "target_match", "failure_reason"), { reward: 0, target_match: false, failure_reason: "target_mismatch" });
    assert.equal((await body(other, {}, "no_target")).target_match, null);
    assert.equal((await body(other, {}, "no_target")).reward, 1);
    assert.equal((await body(xml("image_zoom_in_tool", { bbox_2d: [100, 100, 300, 300], img_idx: "0" }))).target_match, true, "int('0')");
  });

  test("pair tools compare img_idx_a / img_idx_b; side_by_side compares img_indices as a set", async () => {
    const diff = { name: "image_diff_tool", arguments: { img_idx_a: 0, img_idx_b: 1 } };
    assert.equal((await body(xml("image_diff_tool", { img_idx_a: 0, img_idx_b: 2 }), { expected_action: diff })).failure_reason, "target_mismatch");
    assert.deepEqual(pick(await body(xml("image_diff_tool", { img_idx_a: 0 }), { expected_action: diff }), "reward", "argument_detail"), { reward: 1, argument_detail: "index_only" });
    const sbs = { name: "image_side_by_side_tool", arguments: { img_indices: [0, 2, 1] } };
    assert.equal((await body(xml("image_side_by_side_tool", { img_indices: [1, 0, 2] }), { expected_action: sbs })).reward, 1);
    assert.equal((await body(xml("image_side_by_side_tool", { img_indices: [1, 0] }), { expected_action: sbs })).reward, 0);
  });
});

describe("Level 2", () => {
  test("bbox: IoU against the threshold (binary), or the IoU itself (continuous)", async () => {
    // [100,100,300,300] vs [200,100,300,300]: IoU 0.5 exactly, which meets the 0.5 threshold.
    const half = xml("image_zoom_in_tool", { bbox_2d: [200, 100, 300, 300] });
    assert.deepEqual(pick(await body(half), "reward", "argument_score", "argument_detail"), { reward: 1, argument_score: 0.5, argument_detail: "iou" });
    assert.equal((await body(xml("image_zoom_in_tool", { bbox_2d: [300, 300, 200, 100] }))).argument_score, 0.5, "corners in any order");
    const quarter = xml("image_zoom_in_tool", { bbox_2d: [200, 200, 300, 300] });
    assert.deepEqual(pick(await body(quarter), "reward", "argument_score", "failure_reason"), { reward: 0, argument_score: 0.25, failure_reason: "argument_below_threshold" });
    assert.deepEqual(pick(await body(quarter, {}, "continuous"), "reward", "failure_reason"), { reward: 0.25, failure_reason: "argument_below_threshold" });
    assert.equal((await body(xml("image_zoom_in_tool", { bbox_2d: "no box" }))).argument_detail, "rollout_bbox_unparseable");
  });

  test("a degenerate demonstrated box reproduced exactly scores 1", async () => {
    const flat = { name: "image_crop_tool", arguments: { bbox_2d: [167, 1000, 1000, 1000] } };
    assert.equal((await body(xml("image_crop_tool", { bbox_2d: [167, 1000, 1000, 1000] }), { expected_action: flat })).reward, 1);
  });

  test("point: 1 - distance / 1000", async () => {
    const at = { name: "color_at_tool", arguments: { point_2d: [500, 500] } };
    const b = await body(xml("color_at_tool", { point_2d: [530, 540] }), { expected_action: at }, "continuous");
    assert.deepEqual(pick(b, "reward", "argument_detail"), { reward: 0.95, argument_detail: "point_distance" });
  });

  test("color: channel-wise closeness; without two RGB lists, equality of the raw values", async () => {
    const find = { name: "find_color_tool", arguments: { color: [255, 0, 0] } };
    const b = await body(xml("find_color_tool", { color: [240, 15, 0] }), { expected_action: find }, "continuous");
    assert.equal(b.reward, 1 - 30 / 765);
    assert.equal((await body(xml("count_objects_tool", {}), { expected_action: { name: "count_objects_tool", arguments: {} } })).argument_detail, "color_absent");
    assert.equal((await body(xml("find_color_tool", { color: "red" }), { expected_action: find })).argument_detail, "color_mismatch");
  });

  test("scalar: degrees modulo 360, axis as lower-cased text", async () => {
    const rotate = { name: "image_rotate_tool", arguments: { degrees: 350 } };
    assert.equal((await body(xml("image_rotate_tool", { degrees: -10 }), { expected_action: rotate })).reward, 1);
    assert.equal((await body(xml("image_rotate_tool", { degrees: 10 }), { expected_action: rotate })).reward, 0);
    const flip = { name: "image_flip_tool", arguments: { axis: "horizontal" } };
    assert.equal((await body(xml("image_flip_tool", { axis: " Horizontal " }), { expected_action: flip })).reward, 1);
    assert.equal((await body(xml("image_flip_tool", {}), { expected_action: { name: "image_flip_tool", arguments: {} } })).argument_detail, "scalar_no_key");
  });

  test("overlay alpha within numeric_tolerance", async () => {
    const overlay = { name: "image_overlay_tool", arguments: { img_idx_a: 0, img_idx_b: 1, alpha: 0.5 } };
    assert.equal((await body(xml("image_overlay_tool", { img_idx_a: 0, img_idx_b: 1, alpha: 0.5000001 }), { expected_action: overlay })).reward, 1);
    assert.equal((await body(xml("image_overlay_tool", { img_idx_a: 0, img_idx_b: 1, alpha: 0.6 }), { expected_action: overlay })).reward, 0);
  });
});

describe("the data", () => {
  test("example rows are /run requests with an expected action", () => {
    const rows = readRows(join(dataDir, "example.jsonl"));
    assertRowsAreRunRequests(rows);
    for (const row of rows) assert.ok((row.expected_action as Item).name);
  });
  test("verifier cases score as written", () => assertVerifierCasesScore(graph.server("image_tools_pivot"), join(dataDir, "verifier_cases.jsonl"), { minCases: 5 }));
});
