// Writes circle_click's (and, with --task count, circle_count's) example rows: a few coloured circles on white, drawn
// by sharp, with the row fields verify reads. NeMo Gym's generate_data.py draws with Pillow from Python's random; these
// rows come from a small seeded generator of our own, so no row is one of NeMo Gym's.
//   node --import tsx resources_servers/circle_click/generate_data.ts [--task click|count] [--n 5] [--size 400] [--out path]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { circlesPng, imageDataUrl } from "../../src/testing/images.ts";
import { CLICK_PARAMETERS } from "./app.ts";

/** The palette NeMo Gym's generator uses (name → RGB). */
export const CIRCLE_COLORS: Record<string, [number, number, number]> = {
  red: [220, 50, 47],
  blue: [38, 139, 210],
  green: [133, 153, 0],
  yellow: [181, 137, 0],
  purple: [108, 113, 196],
  orange: [203, 75, 22],
  cyan: [42, 161, 152],
  pink: [211, 54, 130],
};

export interface Circle {
  x: number;
  y: number;
  radius: number;
  color: string;
}

const CLICK_SYSTEM_PROMPT =
  "You are a visual assistant. The image has pixel coordinates starting at (0, 0) in the top-left corner. " +
  "Use the click tool to click on the center of the specified colored circle. " +
  "You must pass a single integer for x and a single integer for y. " +
  "Do NOT use lists, arrays, or bounding box coordinates.";
const COUNT_SYSTEM_PROMPT = "You are a visual assistant. Count the number of circles of the specified color in the image. Output your final answer in \\boxed{} format, e.g. \\boxed{3}.";

export const CLICK_TOOL = {
  type: "function",
  name: "click",
  description: "Click at pixel coordinates (x, y) in the image. Both x and y must be single integers, not lists.",
  parameters: CLICK_PARAMETERS,
  strict: true,
};

/** A tiny deterministic generator (mulberry32), so the written rows are reproducible. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (low: number, high: number) => low + Math.floor(next() * (high - low + 1)), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/** Circles that do not touch (centres more than two radii and a gap apart), inside the image with a margin. */
export function placeCircles(count: number, size: number, radius: number, colors: readonly string[], seed: number): Circle[] {
  const random = seeded(seed);
  const margin = radius + 5;
  const circles: Circle[] = [];
  for (let i = 0; i < count; i++) {
    for (let attempt = 0; attempt < 500; attempt++) {
      const x = random.int(margin, size - margin);
      const y = random.int(margin, size - margin);
      if (circles.every((c) => Math.hypot(x - c.x, y - c.y) > 2 * radius + 8)) {
        circles.push({ x, y, radius, color: colors[i % colors.length]! });
        break;
      }
    }
  }
  return circles;
}

export const rgbOf = (color: string) => `rgb(${CIRCLE_COLORS[color]!.join(",")})`;

export async function circleRow(task: "click" | "count", seed: number, size: number): Promise<Record<string, unknown>> {
  const random = seeded(seed * 7919 + 13);
  const names = Object.keys(CIRCLE_COLORS);
  const radius = random.int(Math.round(size / 20), Math.round(size / 10));
  // click: one circle per colour; count: several colours, some repeated.
  const colors = task === "click" ? [...names].sort(() => random.int(0, 2) - 1).slice(0, random.int(3, 5)) : Array.from({ length: random.int(4, 8) }, () => random.pick(names.slice(0, 4)));
  const circles = placeCircles(colors.length, size, radius, colors, seed);
  const target_color = random.pick(circles).color;
  const png = await circlesPng(size, size, circles.map((c) => ({ ...c, fill: rgbOf(c.color) })));
  const image = { type: "input_image", image_url: imageDataUrl(png), detail: "auto" };
  if (task === "count") {
    return {
      responses_create_params: { input: [{ role: "system", content: COUNT_SYSTEM_PROMPT }, { role: "user", content: [image, { type: "input_text", text: `How many ${target_color} circles are in the image?` }] }] },
      circles,
      target_color,
    };
  }
  const others = circles.filter((c) => c.color !== target_color).map((c) => `a ${c.color} circle`).join(", ");
  const text = `This is a ${size}x${size} pixel image. It shows ${others}, and a ${target_color} circle. Click on the ${target_color} circle.`;
  return {
    responses_create_params: { input: [{ role: "system", content: CLICK_SYSTEM_PROMPT }, { role: "user", content: [image, { type: "input_text", text }] }], tools: [CLICK_TOOL] },
    circles,
    target_color,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { task: { type: "string", default: "click" }, n: { type: "string", default: "5" }, size: { type: "string", default: "400" }, "seed-offset": { type: "string", default: "100" }, out: { type: "string" } } });
  const task = values.task === "count" ? "count" : "click";
  const out = values.out ?? join(import.meta.dirname, "..", task === "count" ? "circle_count" : "circle_click", "data", "example.jsonl");
  const rows = [];
  for (let i = 0; i < Number(values.n); i++) rows.push(await circleRow(task, Number(values["seed-offset"]) + i, Number(values.size)));
  writeFileSync(out, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  console.log(`Generated ${rows.length} examples: ${out}`);
}
