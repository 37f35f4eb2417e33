// Writes gui_coordinate's example rows: coloured circles on white (drawn by sharp), the task to point at one, and
// its centre as expected_answer in normalised 0-1 coordinates. Our own pictures and values, none of NeMo Gym's.
//   node --import tsx resources_servers/gui_coordinate/generate_data.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { circlesPng, imageDataUrl } from "../../src/testing/images.ts";

const PICTURES = [
  { width: 400, height: 300, target: "yellow", circles: [{ x: 80, y: 70, color: "red" }, { x: 300, y: 220, color: "yellow" }, { x: 190, y: 150, color: "blue" }] },
  { width: 320, height: 320, target: "green", circles: [{ x: 60, y: 260, color: "green" }, { x: 250, y: 60, color: "purple" }] },
  { width: 500, height: 250, target: "orange", circles: [{ x: 420, y: 190, color: "cyan" }, { x: 110, y: 60, color: "orange" }, { x: 260, y: 130, color: "pink" }] },
];
const RGB: Record<string, string> = { red: "rgb(220,50,47)", yellow: "rgb(181,137,0)", blue: "rgb(38,139,210)", green: "rgb(133,153,0)", purple: "rgb(108,113,196)", cyan: "rgb(42,161,152)", orange: "rgb(203,75,22)", pink: "rgb(211,54,130)" };

const rows = [];
for (const picture of PICTURES) {
  const png = await circlesPng(picture.width, picture.height, picture.circles.map((c) => ({ x: c.x, y: c.y, radius: 24, fill: RGB[c.color]! })));
  const target = picture.circles.find((c) => c.color === picture.target)!;
  const text = `Point at the centre of the ${picture.target} circle. Respond with the coordinates as <point>(x, y)</point>, where x and y are thousandths of the image width and height (0-1000).`;
  rows.push({
    responses_create_params: { input: [{ role: "user", type: "message", content: [{ type: "input_image", image_url: imageDataUrl(png), detail: "auto" }, { type: "input_text", text }] }] },
    expected_answer: `${(target.x / picture.width).toFixed(4)},${(target.y / picture.height).toFixed(4)}`,
    max_dist: 0.15,
    metadata: { target_color: picture.target },
  });
}
const out = join(import.meta.dirname, "data", "example.jsonl");
writeFileSync(out, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
console.log(`Generated ${rows.length} examples: ${out}`);
