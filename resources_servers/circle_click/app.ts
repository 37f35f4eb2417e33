// Click the circle of the asked colour: the model's first `click` call against the row's circles. The image is
// only the model's view; verify reads the circles' stated centres and radii (NeMo Gym never opens the image).
// Rules, as NeMo Gym's CircleClickResourcesServer:
// - the first function_call named `click` is the click; its `x`/`y` pass Python's `int()` or the click is none;
// - the first circle of the target colour decides: hit iff the click is within its radius (distance <= radius);
// - reward 1.0 on a hit, else 0.0; the answer carries clicked_x, clicked_y and hit.
import { z } from "zod";
import { resourcesServer, tool } from "../../src/server/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { OverflowError, PyException } from "../../src/python/exception.ts";
import { jsonLoads } from "../../src/python/json-value.ts";
import { pythonIntOfJson } from "../../src/python/numbers.ts";

type Circle = Record<string, unknown>;

/**
 * A circle's field as verify reads it. NeMo Gym indexes `circle["x"]` and does arithmetic on it, so a missing key or a
 * value that is no number is its KeyError / TypeError (a 500); here it is a 422 naming the field.
 */
function circleField(circle: Circle, index: number, key: "x" | "y" | "radius" | "color"): unknown {
  const value = circle[key];
  const loc = ["body", "circles", index, key];
  if (value === undefined) throw new RequestValidationError([{ type: "missing", loc, msg: "Field required", input: circle }]);
  if (key === "color") return value;
  // Python's arithmetic takes a bool as 0/1.
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "number") throw new RequestValidationError([{ type: "float_type", loc, msg: "Input should be a valid number", input: value }]);
  return value;
}
const circleNumber = (circle: Circle, index: number, key: "x" | "y" | "radius") => circleField(circle, index, key) as number;

/** ClickRequest's `x: Any` / `y: Any`: any JSON value, but present. */
const anyRequired = z.custom<unknown>((value) => value !== undefined, { message: "Field required", params: { pydantic: { type: "missing" } } });

/** `int(args["x"]), int(args["y"])` of the first click's arguments, or none where NeMo Gym catches the error. */
function clickedPoint(argumentsText: unknown): { x: number; y: number } | undefined {
  try {
    if (typeof argumentsText !== "string") return undefined;
    const args = jsonLoads(argumentsText);
    if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
    const record = args as Record<string, unknown>;
    if (!("x" in record) || !("y" in record)) return undefined;
    return { x: pythonIntOfJson(record.x), y: pythonIntOfJson(record.y) };
  } catch (error) {
    // NeMo Gym catches JSONDecodeError, KeyError, ValueError and TypeError; int(inf)'s OverflowError escapes it (a 500).
    if (error instanceof PyException && !(error instanceof OverflowError)) return undefined;
    throw error;
  }
}

/** The click tool's parameters as the dataset offers them to the model (NeMo Gym's ClickRequest itself takes `Any`). */
export const CLICK_PARAMETERS = {
  type: "object",
  properties: {
    x: { type: "integer", description: "X pixel coordinate (single integer, not a list)" },
    y: { type: "integer", description: "Y pixel coordinate (single integer, not a list)" },
  },
  required: ["x", "y"],
  additionalProperties: false,
};

export default resourcesServer({
  name: "CircleClickResourcesServer",
  tools: {
    click: tool({
      description: "Click at pixel coordinates (x, y) in the image. Both x and y must be single integers, not lists.",
      input: z.object({ x: anyRequired, y: anyRequired }),
      modelSchema: CLICK_PARAMETERS,
      // NeMo Gym's /click echoes what it was sent.
      run: (_state, { x, y }) => ({ x, y }),
    }),
  },
  verify: {
    input: z.object({ circles: z.array(z.record(z.string(), z.unknown())).default([]), target_color: z.string().default("") }),
    run(_state, { response, circles, target_color }) {
      const firstClick = response.output.find((item) => item.type === "function_call" && item.name === "click");
      const point = firstClick?.type === "function_call" ? clickedPoint(firstClick.arguments) : undefined;
      let hit = false;
      if (point !== undefined) {
        for (const [index, circle] of circles.entries()) {
          if (circleField(circle, index, "color") !== target_color) continue;
          const dx = point.x - circleNumber(circle, index, "x");
          const dy = point.y - circleNumber(circle, index, "y");
          hit = Math.sqrt(dx * dx + dy * dy) <= circleNumber(circle, index, "radius");
          break;
        }
      }
      return { reward: hit ? 1 : 0, clicked_x: point?.x ?? null, clicked_y: point?.y ?? null, hit };
    },
  },
});
