// src/ports/image-tools: NeMo Gym's image tools (base.py) on pictures drawn here with sharp. Sizes, boxes, counts and
// pixel reads are checked against what Pillow / numpy / scipy compute for the same input (worked out by hand from
// base.py's arithmetic); resampled pixels are not compared (sharp's kernels are not Pillow's bit for bit).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { circlesPng, imageDataUrl, rgbPng } from "../../src/testing/images.ts";
import { fromJsonValue, type PyValue } from "../../src/python/values.ts";
import { pythonJsonDumpsTyped } from "../../src/python/json-dumps.ts";
import { executeImageTool, maybeResizeBbox, smartResize } from "../../src/ports/image-tools/tools.ts";
import { coerceBbox, hasMalformedImageToolMarkup, hasMalformedImageToolRawGeneration, parseImageToolCalls } from "../../src/ports/image-tools/parse.ts";
import { thumbnailSize } from "../../src/ports/image-tools/image.ts";

const work = mkdtempSync(join(tmpdir(), "image-tools-"));
test.after(() => rmSync(work, { recursive: true, force: true }));
const args = (value: Record<string, unknown>) => fromJsonValue(value);
const run = async (tool: string, a: Record<string, unknown>, images: string[]) => {
  const { path, result } = await executeImageTool(tool, args(a), images, work, { cropFormat: "png" });
  return { path, json: JSON.parse(pythonJsonDumpsTyped(result)), text: pythonJsonDumpsTyped(result), saved: await sharp(path).metadata() };
};
const picture = async () => imageDataUrl(await circlesPng(400, 300, [{ x: 100, y: 100, radius: 40, fill: "rgb(255,0,0)" }, { x: 300, y: 200, radius: 30, fill: "rgb(255,0,0)" }, { x: 300, y: 60, radius: 20, fill: "rgb(0,0,255)" }]));

test("parsing: XML and JSON calls, parameter values as JSON or text, ids by form", () => {
  const text = '<tool_call>\n<function=image_crop_tool>\n<parameter=bbox_2d>\n[1, 2, 3, 4]\n</parameter>\n<parameter=label>\nthe sign\n</parameter>\n</function>\n</tool_call> then <tool_call>{"name": "color_at_tool", "arguments": {"point_2d": [5, 6.0]}}</tool_call>';
  const calls = parseImageToolCalls(text);
  assert.deepEqual(calls.map((c) => [c.id, c.name, c.source, pythonJsonDumpsTyped(c.arguments)]), [
    ["xml_call_0", "image_crop_tool", "xml", '{"bbox_2d": [1, 2, 3, 4], "label": "the sign"}'],
    ["json_call_0", "color_at_tool", "json", '{"point_2d": [5, 6.0]}'],
  ]);
  assert.equal(hasMalformedImageToolMarkup(text), false);
  assert.equal(hasMalformedImageToolMarkup("<tool_call><function=x>"), true, "markup that does not parse");
  assert.equal(hasMalformedImageToolMarkup('</think><tool_call>{"name": "x"}</tool_call>'), true, "a think tag left in content");
  assert.equal(hasMalformedImageToolRawGeneration('</think><tool_call>{"name": "x"}</tool_call>'), false, "raw generation closes thinking once, first");
  assert.equal(hasMalformedImageToolRawGeneration("no close"), true);
});

test("coerce_bbox: lists, JSON strings and loose numbers; corners ordered; else null", () => {
  assert.deepEqual(coerceBbox(fromJsonValue([300, 20, 100, 40])), [100, 20, 300, 40]);
  assert.deepEqual(coerceBbox("(1, 2) to (3.5, 4)"), [1, 2, 3.5, 4]);
  assert.deepEqual(coerceBbox("[1, 2, 3, 4]"), [1, 2, 3, 4]);
  assert.equal(coerceBbox(fromJsonValue([1, 2, 3])), null);
  assert.equal(coerceBbox(fromJsonValue([1, 2, 3, null])), null);
});

test("_smart_resize, _maybe_resize_bbox and thumbnail sizes as Python computes them", () => {
  // round(300 / 32) = 9 (half-even of 9.375) → 288; 300*3 = 900 → 896; then clamped up to min 262144 pixels.
  assert.deepEqual(smartResize(100, 300, 32, 32 * 32, 10_000_000), [96, 288]);
  assert.deepEqual(smartResize(300, 300, 32, 262144, 1048576), [512, 512]);
  assert.deepEqual(smartResize(3000, 3000, 32, 262144, 1048576), [1024, 1024]);
  // A 10×10 box grows about its centre to 32 (ceil(10 * 3.2 * 0.5) = 16 each side).
  assert.deepEqual(maybeResizeBbox(100, 100, 110, 110, 400, 300), [89, 89, 121, 121]);
  assert.deepEqual(thumbnailSize(8192, 4000, 4096), [4096, 2000]);
});

test("zoom: a 0-1000 box to pixels, factor 3, snapped to the 32 grid and clamped into [min, max] pixels", async () => {
  const image = await picture();
  const { json, saved } = await run("image_zoom_in_tool", { bbox_2d: [0, 0, 500, 500], label: "left" }, [image]);
  // box 200×150 px; ×3 = 600×450 → round(450/32)*32 = 448, round(600/32)*32 = 608 (inside 262144-12845056 pixels).
  assert.deepEqual([saved.width, saved.height], [608, 448]);
  assert.deepEqual(json, { box: [0, 0, 500, 500], factor: 3, label: "left", img_idx: 0, size: [608, 448] });
});

test("crop: floor/ceil of the pixel box, clipped; the result written as Python writes it", async () => {
  const image = await picture();
  const { text, saved } = await run("image_crop_tool", { bbox_2d: [10.5, 20.2, 1500, 250], img_idx: 0 }, [image]);
  // 1500 > 1000: pixel mode; [10, 20, min(400, 1500), 250].
  assert.deepEqual([saved.width, saved.height], [390, 230]);
  assert.equal(text, '{"box": [10.5, 20.2, 1500.0, 250.0], "size": [390, 230], "label": "", "img_idx": 0}');
  await assert.rejects(run("image_crop_tool", { bbox_2d: [500, 500, 500, 900] }, [image]), /Invalid crop after clipping: \[200, 150, 200, 270\]/);
  await assert.rejects(run("image_crop_tool", { bbox_2d: [0, 0, 1, 1], img_idx: 2 }, [image]), /^ValueError: img_idx 2 is out of range for 1 image\(s\)$/);
});

test("rotate: quarter turns exact and counter-clockwise; other angles on Pillow's expanded canvas", async () => {
  const rgb = new Uint8Array(2 * 1 * 3);
  rgb.set([255, 0, 0, 0, 0, 255]);
  const strip = imageDataUrl(await rgbPng(2, 1, rgb));
  const { path, json } = await run("image_rotate_tool", { degrees: 90 }, [strip]);
  const { data, info } = await sharp(path).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height], [1, 2]);
  assert.deepEqual([...data.subarray(0, 3)], [0, 0, 255], "counter-clockwise: the right pixel goes up");
  assert.deepEqual(json.size, [1, 2]);
  // Pillow's expand arithmetic (base.py → Image.rotate), run in Python for 400×300 at 30°: 498 × 460.
  assert.deepEqual((await run("image_rotate_tool", { degrees: 30 }, [await picture()])).json.size, [498, 460]);
});

test("flip, color_at: exact pixels", async () => {
  const rgb = new Uint8Array(2 * 1 * 3);
  rgb.set([255, 0, 0, 0, 0, 255]);
  const strip = imageDataUrl(await rgbPng(2, 1, rgb));
  const flipped = await run("image_flip_tool", { axis: "horizontal" }, [strip]);
  assert.deepEqual([...(await sharp(flipped.path).raw().toBuffer()).subarray(0, 3)], [0, 0, 255]);
  const probe = await run("color_at_tool", { point_2d: [250, 333.4] }, [await picture()]);
  assert.deepEqual(probe.json, { point_2d: [250, 333], rgb: [255, 0, 0], label: "", img_idx: 0, size: [150, 150] });
});

test("count_objects (background from the border median) and find_color (by colour): 4-connected blobs in raster order", async () => {
  const image = await picture();
  const counted = await run("count_objects_tool", {}, [image]);
  assert.equal(counted.json.count, 3);
  // Labels go in the raster order of each blob's first pixel: the blue circle (top row 40), then the red ones (rows 60,
  // 170). A centre is the mean pixel index: 280..319 → 299.5 → round(299.5 / 400 * 1000) = 749.
  assert.deepEqual(counted.json.blobs.map((b: { center: number[] }) => b.center), [[749, 198], [249, 332], [749, 665]]);
  const found = await run("find_color_tool", { color: [255, 0, 0], tolerance: 10 }, [image]);
  assert.equal(found.json.count, 2);
  // π(40² + 30²) / (400 × 300) ≈ 0.065, give or take the anti-aliased edge.
  assert.ok(found.json.match_fraction > 0.06 && found.json.match_fraction < 0.07, String(found.json.match_fraction));
  await assert.rejects(run("find_color_tool", {}, [image]), /color must be an \[R, G, B\] list/);
});

test("diff: exact statistics for images of one size", async () => {
  const a = imageDataUrl(await rgbPng(2, 1, new Uint8Array([0, 0, 0, 10, 10, 10])));
  const b = imageDataUrl(await rgbPng(2, 1, new Uint8Array([100, 0, 0, 10, 10, 10])));
  const { json } = await run("image_diff_tool", { img_idx_a: 0, img_idx_b: 1 }, [a, b]);
  assert.deepEqual(json, { mean_abs_diff: 16.67, changed_pixel_fraction: 0.5, label: "", img_idx_a: 0, img_idx_b: 1, changed_bbox: [0, 0, 500, 1000], size: [2, 1] });
});

test("side_by_side: heights matched, 8 px padding; overlay: alpha checked", async () => {
  const image = await picture();
  assert.deepEqual((await run("image_side_by_side_tool", { img_indices: [0, 0], labels: ["a", "b"] }, [image])).json.size, [808, 300]);
  await assert.rejects(run("image_overlay_tool", { img_idx_a: 0, img_idx_b: 0, alpha: 2 }, [image]), /alpha must be in the 0-1 range/);
  await assert.rejects(run("image_side_by_side_tool", { img_indices: [0] }, [image]), /between two and six/);
});
