// GUI coordinate grounding: the model points with `<point>(x, y)</point>` in thousandths of the image's width and
// height; the reward falls off with the Euclidean distance to `expected_answer` ("x,y", normalised 0-1).
// Rules, as NeMo Gym's GuiCoordinateResourcesServer:
// - the text is every assistant message's text parts joined by newlines, stripped;
// - the prediction is the first `<point>` match (brackets optional), each number / 1000;
// - expected_answer must be two numbers Python's float() reads, split on ","; otherwise, or with no point, reward 0.0
//   and extracted_x / extracted_y / distance null;
// - distance >= max_dist (row field, default 0.15) scores 0.0, otherwise (1 - distance / max_dist) ** 2.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonFloat, pythonInt } from "../../src/python/numbers.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { PyException } from "../../src/python/exception.ts";

const POINT_PATTERN = compilePythonRegex(String.raw`<point>\s*\[?\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*\]?\s*</point>`);

/** Every assistant message's text: a string content, or each content part's `text`. */
function assistantText(response: NeMoGymResponse): string {
  const texts: string[] = [];
  for (const item of response.output as unknown as Record<string, unknown>[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content as Record<string, unknown>[]) if (typeof part.text === "string") texts.push(part.text);
  }
  return pythonStrip(texts.join("\n"));
}

/** `"x,y"` as two floats, or undefined where NeMo Gym's _parse_gt returns None. */
function groundTruth(expectedAnswer: string): [number, number] | undefined {
  const parts = expectedAnswer.split(",");
  if (parts.length !== 2) return undefined;
  try {
    const point: [number, number] = [pythonFloat(parts[0]), pythonFloat(parts[1])];
    // NeMo Gym scores nan / inf and then cannot write the answer (JSON has neither): its 500. Here, a 422 naming it.
    if (!point.every(Number.isFinite)) throw new RequestValidationError([{ type: "value_error", loc: ["body", "expected_answer"], msg: "expected_answer coordinates must be finite numbers", input: expectedAnswer }]);
    return point;
  } catch (error) {
    if (error instanceof PyException) return undefined;
    throw error;
  }
}

export default resourcesServer({
  name: "GuiCoordinateResourcesServer",
  tools: {},
  verify: {
    input: z.object({
      expected_answer: z.string(),
      // A NaN max_dist makes NeMo Gym's reward NaN, which it cannot write (its 500): refused here by name.
      max_dist: z.number().refine((value) => !Number.isNaN(value), { message: "max_dist must be a number, not NaN" }).default(0.15),
      metadata: z.record(z.string(), z.unknown()).nullish(),
    }),
    run(_state, { response, expected_answer, max_dist }) {
      const gt = groundTruth(expected_answer);
      const match = POINT_PATTERN.search(assistantText(response));
      if (gt === undefined || match === undefined) return { reward: 0, expected_answer, extracted_x: null, extracted_y: null, distance: null };
      const [x, y] = [pythonInt(match.groups[1]!) / 1000, pythonInt(match.groups[2]!) / 1000];
      // `** 0.5` is C's pow, correctly rounded as sqrt is; `** 2` of a float is the product.
      const distance = Math.sqrt((x - gt[0]) * (x - gt[0]) + (y - gt[1]) * (y - gt[1]));
      const closeness = 1 - distance / max_dist;
      const reward = distance >= max_dist ? 0 : closeness * closeness;
      return { reward, expected_answer, extracted_x: x, extracted_y: y, distance };
    },
  },
  floatFields: ["extracted_x", "extracted_y", "distance"],
});
