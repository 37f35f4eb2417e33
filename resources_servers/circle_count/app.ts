// Count the circles of the asked colour: the model's `\boxed{N}` against the row's circles. The image is only the
// model's view; verify counts the row's `circles` whose colour is `target_color` (NeMo Gym never opens the image).
// Rules, as NeMo Gym's CircleCountResourcesServer:
// - the answer is the first `\boxed{<digits>}` in the response's output_text (all output_text parts, joined);
// - expected_count is how many circles have `color == target_color`;
// - reward 1.0 iff an answer was found and equals it; the answer carries predicted_count, expected_count, correct.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonInt } from "../../src/python/numbers.ts";

// Python's `\d` is any Unicode decimal digit, and int() reads them all.
const BOXED_COUNT = compilePythonRegex(String.raw`\\boxed\{(\d+)\}`);

/** A circle's `color`: NeMo Gym indexes `c["color"]` (a KeyError, its 500, when absent); here a 422 naming it. */
function colorOf(circle: Record<string, unknown>, index: number): unknown {
  if (!("color" in circle)) throw new RequestValidationError([{ type: "missing", loc: ["body", "circles", index, "color"], msg: "Field required", input: circle }]);
  return circle.color;
}

export default resourcesServer({
  name: "CircleCountResourcesServer",
  tools: {},
  verify: {
    input: z.object({ circles: z.array(z.record(z.string(), z.unknown())).default([]), target_color: z.string().default("") }),
    run(_state, { response, circles, target_color }) {
      const match = BOXED_COUNT.search(responseOutputText(response));
      const predicted_count = match ? pythonInt(match.groups[1]!) : null;
      const expected_count = circles.filter((circle, index) => colorOf(circle, index) === target_color).length;
      const correct = predicted_count !== null && predicted_count === expected_count;
      return { reward: correct ? 1 : 0, predicted_count, expected_count, correct };
    },
  },
});
