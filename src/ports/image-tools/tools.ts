// execute_image_tool of NeMo Gym's image_tools/base.py: the ten parameter-only image tools on a rollout's image
// store (`image_paths`, indexed by `img_idx`). Each writes its output image to `workDir` and returns a JSON result in
// 0-1000 coordinates. Argument checks raise Python's ValueError texts (the agent shows them to the model as
// "<tool> failed: <message>"). Result values are PyValue-typed (bigint = Python int, number = float) so the agent's
// json.dumps of them prints what Python prints.
import { mkdir, writeFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { PyException, ValueError } from "../../python/exception.ts";
import { pythonRound } from "../../python/float.ts";
import { isPyDict, pythonStr, type PyDict, type PyValue } from "../../python/values.ts";
import { coerceBbox, IMAGE_TOOL_NAMES, pyFloat, pyInt, pyGet } from "./parse.ts";
import { blankImage, blend, crop, drawText, encode, flip, openImage, paste, resize, rotateExpand, thumbnailSize, type RgbImage } from "./image.ts";

export interface ExecuteOptions {
  cropFormat?: string;
  cropJpegQuality?: number;
  cropMinPixels?: number;
  cropMaxPixels?: number;
}

export interface ToolExecution {
  /** The saved output image (absolute), the rollout's next image. */
  path: string;
  result: Map<string, PyValue>;
}

const int = (n: number): bigint => BigInt(n);
/** Python's round() to an int: half to even. */
const roundInt = (x: number): number => pythonRound(x, 0);
const floorDiv = (a: number, b: number) => Math.floor(a / b);

/** _smart_resize: the size snapped to `factor` and clamped into [minPixels, maxPixels]; returns [height, width]. */
export function smartResize(height: number, width: number, factor: number, minPixels: number, maxPixels: number): [number, number] {
  let hBar = Math.max(factor, roundInt(height / factor) * factor);
  let wBar = Math.max(factor, roundInt(width / factor) * factor);
  if (hBar * wBar > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    hBar = floorDiv(height / beta, factor) * factor;
    wBar = floorDiv(width / beta, factor) * factor;
  } else if (hBar * wBar < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    hBar = Math.ceil((height * beta) / factor) * factor;
    wBar = Math.ceil((width * beta) / factor) * factor;
  }
  return [hBar, wBar];
}

/** _bbox_to_pixels: a box beyond 1000 in any coordinate is in pixels, otherwise in thousandths. */
function bboxToPixels(bbox: readonly number[], width: number, height: number): [number, number, number, number] {
  const [x1, y1, x2, y2] = bbox as [number, number, number, number];
  if (Math.max(Math.abs(x1), Math.abs(y1), Math.abs(x2), Math.abs(y2)) > 1000) return [x1, y1, x2, y2];
  return [(x1 / 1000) * width, (y1 / 1000) * height, (x2 / 1000) * width, (y2 / 1000) * height];
}

/** _maybe_resize_bbox: clip to the image; a box under 32 pixels a side grows about its centre to 32. */
export function maybeResizeBbox(l: number, t: number, r: number, b: number, width: number, height: number): [number, number, number, number] {
  let left = Math.max(0, Math.floor(l));
  let top = Math.max(0, Math.floor(t));
  let right = Math.min(width, Math.ceil(r));
  let bottom = Math.min(height, Math.ceil(b));
  const boxH = bottom - top;
  const boxW = right - left;
  if (boxH < 32 || boxW < 32) {
    const centerX = (left + right) / 2;
    const centerY = (top + bottom) / 2;
    const ratio = 32 / Math.max(1, Math.min(boxH, boxW));
    const halfH = Math.ceil(boxH * ratio * 0.5);
    const halfW = Math.ceil(boxW * ratio * 0.5);
    left = Math.max(0, Math.floor(centerX - halfW));
    right = Math.min(width, Math.ceil(centerX + halfW));
    top = Math.max(0, Math.floor(centerY - halfH));
    bottom = Math.min(height, Math.ceil(centerY + halfH));
  }
  return [left, top, right, bottom];
}

const listRepr = (values: readonly number[]) => `[${values.join(", ")}]`;

/** _image_at: `int(value)` as an index into the image store, opened. */
async function imageAt(imagePaths: readonly string[], value: PyValue | undefined, parameter: string): Promise<[number, RgbImage]> {
  let index: number;
  try {
    index = pyInt(value);
  } catch (error) {
    if (error instanceof PyException && (error.type === "TypeError" || error.type === "ValueError")) throw new ValueError(`${parameter} must be an integer`);
    throw error;
  }
  if (index < 0 || index >= imagePaths.length) throw new ValueError(`${parameter} ${index} is out of range for ${imagePaths.length} image(s)`);
  return [index, await openImage(imagePaths[index]!)];
}

/** `float(x)` / `int(x)` whose TypeError and ValueError become the tool's own ValueError text. */
function readOr<T>(read: () => T, message: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof PyException && (error.type === "TypeError" || error.type === "ValueError")) throw new ValueError(message);
    throw error;
  }
}

const clamp1000 = (value: number) => Math.max(0, Math.min(1000, roundInt(value)));
const normalizedBbox = (box: readonly number[], width: number, height: number): bigint[] => [clamp1000((box[0]! / width) * 1000), clamp1000((box[1]! / height) * 1000), clamp1000((box[2]! / width) * 1000), clamp1000((box[3]! / height) * 1000)].map(int);
const normalizedPoint = (x: number, y: number, width: number, height: number): bigint[] => [clamp1000((x / width) * 1000), clamp1000((y / height) * 1000)].map(int);

/** _rgb: an [R, G, B] list of ints 0-255 (None allowed when not required). */
function rgbArgument(value: PyValue | undefined, required: boolean): [number, number, number] | undefined {
  if ((value === undefined || value === null) && !required) return undefined;
  if (!Array.isArray(value) || value.length !== 3) throw new ValueError("color must be an [R, G, B] list");
  const color = value.map((channel) => readOr(() => pyInt(channel), "color must contain three integers")) as [number, number, number];
  if (color.some((channel) => channel < 0 || channel > 255)) throw new ValueError("color channels must be in the 0-255 range");
  return color;
}

interface Blob {
  bbox: [number, number, number, number];
  center: [number, number];
  pixels: number;
}

/**
 * _connected_components: scipy.ndimage.label's 4-connected components, in label order (the raster order of each
 * component's first pixel), those of at least `minSize` pixels, the first `maxBlobs` of them.
 */
export function connectedComponents(mask: Uint8Array, width: number, height: number, minSize: number, maxBlobs = 40): Blob[] {
  const seen = new Uint8Array(mask.length);
  const blobs: Blob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    seen[start] = 1;
    stack.push(start);
    let [minX, minY, maxX, maxY, pixels, sumX, sumY] = [width, height, -1, -1, 0, 0, 0];
    while (stack.length > 0) {
      const at = stack.pop()!;
      const x = at % width;
      const y = (at - x) / width;
      pixels++;
      sumX += x;
      sumY += y;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
      for (const next of [x > 0 ? at - 1 : -1, x < width - 1 ? at + 1 : -1, y > 0 ? at - width : -1, y < height - 1 ? at + width : -1]) {
        if (next >= 0 && mask[next] && !seen[next]) {
          seen[next] = 1;
          stack.push(next);
        }
      }
    }
    if (pixels < minSize) continue;
    blobs.push({ bbox: [minX, minY, maxX + 1, maxY + 1], center: [sumX / pixels, sumY / pixels], pixels });
    if (blobs.length >= maxBlobs) break;
  }
  return blobs;
}

/** np.median of the border pixels (top row, bottom row, left column, right column; corners twice), per channel, as int16. */
function borderMedian(image: RgbImage): [number, number, number] {
  const { width, height, data } = image;
  const indices: number[] = [];
  for (let x = 0; x < width; x++) indices.push(x);
  for (let x = 0; x < width; x++) indices.push((height - 1) * width + x);
  for (let y = 0; y < height; y++) indices.push(y * width);
  for (let y = 0; y < height; y++) indices.push(y * width + width - 1);
  return [0, 1, 2].map((channel) => {
    const values = indices.map((i) => data[i * 3 + channel]!).sort((a, b) => a - b);
    const mid = values.length >> 1;
    const median = values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
    return Math.trunc(median);
  }) as [number, number, number];
}

/** An outline of `lineWidth` pixels inside [x1, y1, x2, y2] (inclusive), as ImageDraw.rectangle draws it. */
function outline(image: RgbImage, [x1, y1, x2, y2]: readonly number[], lineWidth: number, rgb: readonly number[]): void {
  const set = (x: number, y: number) => {
    if (x >= 0 && y >= 0 && x < image.width && y < image.height) image.data.set(rgb, (y * image.width + x) * 3);
  };
  for (let w = 0; w < lineWidth; w++) {
    for (let x = x1! + w; x <= x2! - w; x++) (set(x, y1! + w), set(x, y2! - w));
    for (let y = y1! + w; y <= y2! - w; y++) (set(x1! + w, y), set(x2! - w, y));
  }
}

/** _save_image_output: RGB, at most 4096 a side (Lanczos thumbnail), saved as `<uuid>.jpg` (quality) or `.png`. */
async function saveImageOutput(image: RgbImage, workDir: string, format: string, quality: number): Promise<[string, [number, number]]> {
  const [width, height] = thumbnailSize(image.width, image.height, 4096);
  const output = width === image.width && height === image.height ? image : await resize(image, width, height, "lanczos");
  const normalized = format.toLowerCase();
  if (normalized !== "jpg" && normalized !== "jpeg" && normalized !== "png") throw new ValueError(`Unsupported crop_format: ${format}`);
  await mkdir(workDir, { recursive: true });
  const path = resolve(join(workDir, `${randomUUID()}.${normalized === "png" ? "png" : "jpg"}`));
  await writeFile(path, await encode(output, normalized === "png" ? "png" : "jpeg", quality));
  return [path, [output.width, output.height]];
}

export async function executeImageTool(toolName: string, args: PyValue, imagePaths: readonly string[], workDir: string, options: ExecuteOptions = {}): Promise<ToolExecution> {
  const { cropFormat = "png", cropJpegQuality = 95, cropMinPixels = 256 * 32 * 32, cropMaxPixels = 12845056 } = options;
  if (!IMAGE_TOOL_NAMES.has(toolName)) throw new ValueError(`Unknown tool name: ${toolName}`);
  if (!isPyDict(args)) throw new ValueError("Tool arguments must be an object");
  const get = (key: string) => pyGet(args, key);
  const label = args.has("label") ? pythonStr(get("label")!) : "";
  const result = new Map<string, PyValue>();
  let output: RgbImage;

  if (toolName === "image_zoom_in_tool") {
    const bbox = coerceBbox(get("bbox_2d"));
    if (bbox === null) throw new ValueError("bbox_2d must be a list of four numbers");
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const [left, top, right, bottom] = maybeResizeBbox(...bboxToPixels(bbox, image.width, image.height), image.width, image.height);
    if (right <= left || bottom <= top) throw new ValueError(`Invalid crop after clipping: ${listRepr([left, top, right, bottom])}`);
    const factor = args.has("factor") ? pyFloat(get("factor")) : 3;
    if (!Number.isFinite(factor) || factor <= 0) throw new ValueError("factor must be a positive finite number");
    const [newH, newW] = smartResize(Math.max(1, roundInt((bottom - top) * factor)), Math.max(1, roundInt((right - left) * factor)), 32, cropMinPixels, cropMaxPixels);
    output = await resize(crop(image, left, top, right, bottom), newW, newH, "bicubic");
    result.set("box", bbox).set("factor", factor).set("label", label).set("img_idx", int(index));
  } else if (toolName === "image_crop_tool") {
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const bbox = coerceBbox(get("bbox_2d"));
    if (bbox === null) throw new ValueError("bbox_2d must be a list of four numbers");
    const [x1, y1, x2, y2] = bboxToPixels(bbox, image.width, image.height);
    const box = [Math.max(0, Math.floor(x1)), Math.max(0, Math.floor(y1)), Math.min(image.width, Math.ceil(x2)), Math.min(image.height, Math.ceil(y2))] as const;
    if (box[2] <= box[0] || box[3] <= box[1]) throw new ValueError(`Invalid crop after clipping: ${listRepr(box)}`);
    output = crop(image, ...box);
    result.set("box", bbox).set("size", [int(output.width), int(output.height)]).set("label", label).set("img_idx", int(index));
  } else if (toolName === "image_rotate_tool") {
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const degrees = readOr(() => (args.has("degrees") ? pyFloat(get("degrees")) : pyFloat(undefined)), "degrees must be a number");
    if (!Number.isFinite(degrees)) throw new ValueError("degrees must be finite");
    output = await rotateExpand(image, degrees, (x) => pythonRound(x, 15));
    result.set("degrees", degrees).set("size", [int(output.width), int(output.height)]).set("label", label).set("img_idx", int(index));
  } else if (toolName === "image_flip_tool") {
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const axis = args.has("axis") ? pythonStr(get("axis")!) : "";
    if (axis !== "horizontal" && axis !== "vertical") throw new ValueError('axis must be "horizontal" or "vertical"');
    output = flip(image, axis);
    result.set("axis", axis).set("size", [int(output.width), int(output.height)]).set("label", label).set("img_idx", int(index));
  } else if (toolName === "image_diff_tool" || toolName === "image_overlay_tool") {
    const [indexA, imageA] = await imageAt(imagePaths, get("img_idx_a"), "img_idx_a");
    const [indexB, rawB] = await imageAt(imagePaths, get("img_idx_b"), "img_idx_b");
    if (toolName === "image_overlay_tool") {
      const alpha = readOr(() => (args.has("alpha") ? pyFloat(get("alpha")) : 0.5), "alpha must be a number");
      if (!(alpha >= 0 && alpha <= 1)) throw new ValueError("alpha must be in the 0-1 range");
      output = blend(imageA, await resize(rawB, imageA.width, imageA.height, "bicubic"), alpha);
      result.set("alpha", alpha).set("label", label).set("img_idx_a", int(indexA)).set("img_idx_b", int(indexB));
    } else {
      const imageB = await resize(rawB, imageA.width, imageA.height, "bicubic");
      const pixelCount = imageA.width * imageA.height;
      const difference = Buffer.alloc(imageA.data.length);
      const gray = new Uint8Array(pixelCount);
      const changed = new Uint8Array(pixelCount);
      let differenceSum = 0;
      let changedCount = 0;
      let [minX, minY, maxX, maxY] = [Infinity, Infinity, -1, -1];
      for (let p = 0; p < pixelCount; p++) {
        let max = 0;
        for (let c = 0; c < 3; c++) {
          const value = Math.abs(imageA.data[p * 3 + c]! - imageB.data[p * 3 + c]!);
          difference[p * 3 + c] = value;
          differenceSum += value;
          max = Math.max(max, value);
        }
        gray[p] = max;
        if (max > 30) {
          changed[p] = 1;
          changedCount++;
          const [x, y] = [p % imageA.width, Math.floor(p / imageA.width)];
          [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)];
        }
      }
      result.set("mean_abs_diff", pythonRound(differenceSum / difference.length, 2)).set("changed_pixel_fraction", pythonRound(changedCount / pixelCount, 4)).set("label", label).set("img_idx_a", int(indexA)).set("img_idx_b", int(indexB));
      if (changedCount > 0) result.set("changed_bbox", normalizedBbox([minX, minY, maxX + 1, maxY + 1], imageA.width, imageA.height));
      const heat = blankImage(imageA.width, imageA.height, [0, 0, 0]);
      for (let p = 0; p < pixelCount; p++) heat.data[p * 3] = Math.min(255, gray[p]! * 3);
      output = blend(imageA, heat, 0.6);
    }
  } else if (toolName === "image_side_by_side_tool") {
    const rawIndices = get("img_indices");
    if (!Array.isArray(rawIndices) || rawIndices.length < 2 || rawIndices.length > 6) throw new ValueError("img_indices must contain between two and six image indices");
    const loaded: RgbImage[] = [];
    for (const value of rawIndices) loaded.push((await imageAt(imagePaths, value, "img_indices"))[1]);
    const indices = rawIndices.map((value) => int(pyInt(value)));
    const height = Math.max(...loaded.map((image) => image.height));
    const scaled = await Promise.all(loaded.map((image) => resize(image, Math.max(1, roundInt((image.width * height) / image.height)), height, "bicubic")));
    const labelsValue = get("labels");
    const labels = labelsValue === undefined || labelsValue === null || labelsValue === false || labelsValue === "" || labelsValue === 0n || labelsValue === 0 || (isPyDict(labelsValue) && labelsValue.size === 0) ? [] : labelsValue;
    if (!Array.isArray(labels)) throw new ValueError("labels must be an array when provided");
    const padding = 8;
    output = blankImage(scaled.reduce((sum, image) => sum + image.width, 0) + padding * (scaled.length - 1), height, [255, 255, 255]);
    let x = 0;
    for (const [i, image] of scaled.entries()) {
      const part = i < labels.length ? await drawText(image, [{ x: 4, y: 4, text: pythonStr(labels[i]!) }]) : image;
      paste(output, part, x, 0);
      x += image.width + padding;
    }
    result.set("img_indices", indices).set("size", [int(output.width), int(output.height)]).set("label", label);
  } else if (toolName === "count_objects_tool" || toolName === "find_color_tool") {
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const tolerance = readOr(() => (args.has("tolerance") ? pyInt(get("tolerance")) : 40), "tolerance must be an integer");
    if (tolerance < 0 || tolerance > 255) throw new ValueError("tolerance must be in the 0-255 range");
    const color = rgbArgument(get("color"), toolName === "find_color_tool");
    const pixelCount = image.width * image.height;
    const mask = new Uint8Array(pixelCount);
    const background = color === undefined ? borderMedian(image) : undefined;
    for (let p = 0; p < pixelCount; p++) {
      const channel = (c: number) => image.data[p * 3 + c]!;
      mask[p] = color !== undefined ? Number([0, 1, 2].every((c) => Math.abs(channel(c) - color[c]!) <= tolerance)) : Number([0, 1, 2].some((c) => Math.abs(channel(c) - background![c]!) > tolerance));
    }
    const minSize = readOr(() => (args.has("min_size") ? pyInt(get("min_size")) : 30), "min_size must be an integer");
    if (minSize < 1) throw new ValueError("min_size must be positive");
    const blobs = connectedComponents(mask, image.width, image.height, toolName === "count_objects_tool" ? minSize : 20);
    const normalizedBlobs: PyDict[] = blobs.map((blob) => {
      const center = normalizedPoint(blob.center[0], blob.center[1], image.width, image.height);
      return new Map<string, PyValue>([["bbox", normalizedBbox(blob.bbox, image.width, image.height)], ["center", center], ["centroid", center], ["pixels", int(blob.pixels)]]);
    });
    if (toolName === "count_objects_tool") {
      const marked: RgbImage = { ...image, data: Buffer.from(image.data) };
      for (const blob of blobs) outline(marked, blob.bbox, 2, [255, 0, 0]);
      output = await drawText(marked, blobs.map((blob, i) => ({ x: blob.bbox[0] + 2, y: blob.bbox[1] + 2, text: String(i + 1) })));
      result.set("count", int(normalizedBlobs.length)).set("blobs", normalizedBlobs).set("label", label).set("img_idx", int(index));
    } else {
      output = { ...image, data: Buffer.from(image.data) };
      let matched = 0;
      for (let p = 0; p < pixelCount; p++) if (mask[p]) (output.data.set([255, 0, 255], p * 3), matched++);
      result.set("match_fraction", pythonRound(matched / pixelCount, 4)).set("count", int(normalizedBlobs.length)).set("blobs", normalizedBlobs).set("label", label).set("img_idx", int(index));
    }
  } else {
    // color_at_tool
    const [index, image] = await imageAt(imagePaths, args.has("img_idx") ? get("img_idx") : 0n, "img_idx");
    const point = get("point_2d");
    if (!Array.isArray(point) || point.length !== 2) throw new ValueError("point_2d must be an [x, y] list");
    const [nx, ny] = point.map((value) => readOr(() => pyFloat(value), "point_2d must contain two numbers")) as [number, number];
    if (!(nx >= 0 && nx <= 1000 && ny >= 0 && ny <= 1000)) throw new ValueError("point_2d coordinates must be in the 0-1000 range");
    const x = Math.min(image.width - 1, Math.max(0, roundInt((nx / 1000) * image.width)));
    const y = Math.min(image.height - 1, Math.max(0, roundInt((ny / 1000) * image.height)));
    const rgb = [...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3)].map(int);
    const [left, top] = [Math.max(0, x - 12), Math.max(0, y - 12)];
    output = await resize(crop(image, left, top, Math.min(image.width, x + 13), Math.min(image.height, y + 13)), 150, 150, "nearest");
    result.set("point_2d", [int(roundInt(nx)), int(roundInt(ny))]).set("rgb", rgb).set("label", label).set("img_idx", int(index));
  }

  const [path, size] = await saveImageOutput(output, workDir, cropFormat, cropJpegQuality);
  result.set("size", [int(size[0]), int(size[1])]);
  return { path, result };
}
