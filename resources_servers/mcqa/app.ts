// Multiple-choice QA: the model's final letter against `expected_answer`. A row's
// `template_metadata.output_regex` is tried first; otherwise the grading mode decides how the letter is read
// (default: one upper-case option letter in the last `\boxed{}`). The instance's `grading_mode`, when set,
// overrides the row's — it is also the only way to reach `lenient_answer_colon_md`.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { choiceVerdict, extractMcqaAnswer } from "../../src/ports/choice-answer.ts";
import { ChoiceRowSchema, ConfigGradingMode, choiceKeyMetrics, choiceMetrics } from "../../src/ports/choice-task.ts";

export default resourcesServer({
  name: "MCQAResourcesServer",
  config: z.looseObject({ grading_mode: ConfigGradingMode.nullish() }),
  tools: {},
  verify: {
    input: ChoiceRowSchema,
    run(_state, { response, options, expected_answer, grading_mode, template_metadata }, { config }) {
      const text = pythonStrip(responseOutputText(response));
      const extracted = text === "" ? undefined : extractMcqaAnswer({ text, options, gradingMode: config.grading_mode ?? grading_mode, templateMetadata: template_metadata });
      return choiceVerdict(extracted, expected_answer);
    },
  },
  // verify reads only the request, so NeMo Gym's verify-only reverify may re-score stored rollouts.
  reverifyMode: "stateless",
  computeMetrics: choiceMetrics,
  keyMetrics: choiceKeyMetrics,
});
