// Next-action prediction ("pivot" behaviour cloning): the model makes one turn in the middle of a recorded
// trajectory and is scored against the action the expert took there — a chat message, a tool call, or a batch
// of parallel calls. No tool runs; the comparison lives in src/ports/tool-call-comparison.ts.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { ActionSchema, compareAction, extractAction, StepRewardCategory, ToolCallComparatorConfigSchema } from "../../src/ports/tool-call-comparison.ts";

export default resourcesServer({
  name: "SingleStepToolUseArgumentComparisonResourcesServer",
  config: z.looseObject({ tool_call_comparator_config: ToolCallComparatorConfigSchema }),
  tools: {},
  verify: {
    input: z.object({ expected_action: ActionSchema }),
    run(_state, request, { config }) {
      // Re-parsed: the request keeps unknown keys, the echoed action must not (pydantic's dump has none).
      const expected_action = ActionSchema.parse(request.expected_action);
      const actual = extractAction(request.response.output);
      if (actual === null) return { reward: 0, expected_action, category: StepRewardCategory.NO_ACTION_FOUND };
      const { reward, category } = compareAction(expected_action, actual, config.tool_call_comparator_config);
      return { reward, expected_action, category };
    },
  },
});
