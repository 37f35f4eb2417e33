// Terminal multi-harness next-step scoring (NeMo Gym's terminal_multi_harness, for pivot RL on terminal-agent
// trajectories from several harnesses): the model makes the next step of a recorded trajectory — a chat message,
// one tool call or a batch of calls — and gets 1.0 when it matches the expert's `expected_action` under the row's
// `harness` rules (comparator.ts), else 0.0, with the category saying why. The tools are the row's `declared_tools`,
// else `responses_create_params.tools`. No tool runs, no LLM judge.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { ActionComparator, ActionSchema, extractAction, StepRewardCategory, ToolCallComparatorConfigSchema } from "./comparator.ts";

export default resourcesServer({
  name: "TerminalMultiHarnessResourcesServer",
  config: z.looseObject({ tool_call_comparator_config: ToolCallComparatorConfigSchema }),
  tools: {},
  verify: {
    input: z.object({
      harness: z.string().default("generic"),
      expected_action: ActionSchema,
      declared_tools: z.array(z.record(z.string(), z.unknown())).nullish(),
      threshold: z.number().nullish(),
    }),
    run(_state, body, { config }) {
      // Re-parsed: the request keeps unknown keys, the echoed action must not (pydantic's dump has none).
      const expected_action = ActionSchema.parse(body.expected_action);
      const echoed = { harness: body.harness, expected_action };
      const trailing = { declared_tools: body.declared_tools ?? null, threshold: body.threshold ?? null };
      const actual = extractAction(body.response.output);
      if (actual === null) return { reward: 0.0, ...echoed, category: StepRewardCategory.NO_ACTION_FOUND, ...trailing, similarity_score: null };
      const declaredTools = body.declared_tools ?? ((body.responses_create_params as { tools?: unknown[] }).tools ?? []);
      const result = new ActionComparator(config.tool_call_comparator_config).compareAction(expected_action, actual, {
        declaredTools,
        thresholdOverride: body.threshold ?? null,
        harness: body.harness,
      });
      return { reward: result.matches ? 1.0 : 0.0, ...echoed, category: result.category, ...trailing, similarity_score: result.similarity_score ?? null };
    },
  },
  floatFields: ["threshold", "similarity_score"],
});
