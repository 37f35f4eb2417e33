// GPQA-Diamond: four-option graduate-level MCQ. mcqa's request and response, but its own extraction: the row's
// `template_metadata.output_regex` (one pattern) first, else the last `\boxed{…}` letter or the last
// `Answer: X`, which must be one of the options' letters. The row's `grading_mode` is ignored.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { choiceVerdict, extractGpqaAnswer } from "../../src/ports/choice-answer.ts";
import { ChoiceRowSchema, ConfigGradingMode, choiceKeyMetrics, choiceMetrics } from "../../src/ports/choice-task.ts";

export default resourcesServer({
  name: "GPQADiamondResourcesServer",
  // mcqa's config, whose grading_mode gpqa never reads.
  config: z.looseObject({ grading_mode: ConfigGradingMode.nullish() }),
  tools: {},
  verify: {
    input: ChoiceRowSchema,
    run(_state, { response, options, expected_answer, template_metadata }) {
      const text = pythonStrip(responseOutputText(response));
      return choiceVerdict(extractGpqaAnswer({ text, options, templateMetadata: template_metadata }), expected_answer);
    },
  },
  // NeMo Gym's gpqa_diamond declares UNKNOWN, overriding mcqa's STATELESS.
  reverifyMode: "unknown",
  computeMetrics: choiceMetrics,
  keyMetrics: choiceKeyMetrics,
});
