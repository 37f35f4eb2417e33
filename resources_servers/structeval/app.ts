// StructEval (non-renderable): the answer's code block, parsed in the task's output format, must contain the
// task's expected key paths. reward = round(0.2 * render_score + 0.8 * key_validation_score, 2), where
// render_score is 1 when the code parses to something non-empty and key_validation_score is the share of
// `raw_output_metric` paths found. raw_output_score (keywords anywhere in the answer) is reported only.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { pythonRound } from "../../src/python/float.ts";
import { extractCode, pathExists, rawOutputScore, renderCode } from "../../src/ports/structured/structeval.ts";
import { structEvalMetrics } from "./metrics.ts";

/** NeMo Gym's StructEvalVerifyRequest fields, in its response model's order. */
const StructEvalRow = z.object({
  task_id: z.string(),
  task_name: z.string(),
  input_type: z.string(),
  output_type: z.string(),
  raw_output_metric: z.array(z.string()),
  rendering: z.boolean().default(false),
});

export default resourcesServer({
  name: "StructEvalResourcesServer",
  tools: {},
  verify: {
    input: StructEvalRow,
    run(_state, request) {
      const { response, raw_output_metric } = request;
      const echoed = StructEvalRow.parse(request);
      const answer = responseOutputText(response);
      if (pythonStrip(answer) === "") {
        return { reward: 0, ...echoed, render_score: 0, key_validation_score: 0, raw_output_score: 0, error_type: "empty_response", error_message: "No assistant response text" };
      }
      const outputType = request.output_type.toLowerCase();
      const code = extractCode(answer, outputType);
      const raw_output_score = rawOutputScore(answer, raw_output_metric);
      const rendered = renderCode(code, outputType);
      const key_validation_score =
        rendered.renderScore === 1 && raw_output_metric.length > 0 ? raw_output_metric.filter((path) => pathExists(rendered.parsed, path)).length / raw_output_metric.length : 0;
      return {
        reward: pythonRound(0.2 * rendered.renderScore + 0.8 * key_validation_score, 2),
        ...echoed,
        render_score: rendered.renderScore,
        key_validation_score,
        raw_output_score,
        error_type: rendered.errorType,
        error_message: rendered.errorMessage,
      };
    },
  },
  computeMetrics: structEvalMetrics,
  floatFields: ["render_score", "key_validation_score", "raw_output_score"],
});
