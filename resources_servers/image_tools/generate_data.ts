// Writes image_tools' example pivot rows: a picture drawn by sharp, a short trajectory prefix, and the demonstrated
// image-tool call at that turn. Our own pictures and actions (NeMo Gym's rows come from internal SFT data).
//   node --import tsx resources_servers/image_tools/generate_data.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { circlesPng, imageDataUrl } from "../../src/testing/images.ts";

const SYSTEM = "You can inspect images with tools: image_zoom_in_tool(bbox_2d, img_idx, factor), image_crop_tool(bbox_2d, img_idx) (like image_zoom_in_tool but without magnification), image_rotate_tool(degrees, img_idx), image_flip_tool(axis, img_idx), color_at_tool(point_2d, img_idx), find_color_tool(color, img_idx), count_objects_tool(img_idx). Coordinates are 0-1000. Call one tool per turn as <tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></tool_call>.";
const PIVOTS = [
  { question: "What colour is the small circle in the top-left corner?", action: { name: "image_zoom_in_tool", arguments: { bbox_2d: [0, 0, 300, 300], img_idx: 0, label: "top-left circle" } } },
  { question: "Is the picture upside down? Turn it if it is.", action: { name: "image_rotate_tool", arguments: { degrees: 180, img_idx: 0 } } },
  { question: "What is the exact colour at the centre of the large circle?", action: { name: "color_at_tool", arguments: { point_2d: [650, 600], img_idx: 0 } } },
];

const png = await circlesPng(400, 400, [{ x: 60, y: 60, radius: 30, fill: "rgb(220,50,47)" }, { x: 260, y: 240, radius: 90, fill: "rgb(38,139,210)" }]);
const rows = PIVOTS.map(({ question, action }, turn) => ({
  responses_create_params: {
    input: [
      { role: "system", content: SYSTEM },
      { role: "user", content: [{ type: "input_image", image_url: imageDataUrl(png), detail: "auto" }, { type: "input_text", text: question }] },
    ],
    metadata: { extra_body: JSON.stringify({ stop: ["</tool_call>"], include_stop_str_in_output: true }) },
  },
  expected_action: action,
  metadata: { source_id: `circles-${turn}`, turn_index: 1, tool_name: action.name },
}));
const out = join(import.meta.dirname, "data", "example.jsonl");
writeFileSync(out, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
console.log(`Generated ${rows.length} examples: ${out}`);
