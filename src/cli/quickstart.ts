// `npm start`: the example environment, simple_agent and scripted_model as three processes, the example
// rows collected and scored, the key metrics printed, everything stopped.
import { defineCommand, flag } from "./command.ts";
import { evalRun, evalRunExitCode } from "./eval-run.ts";

const CONFIGS = ["resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml", "responses_api_models/scripted_model/configs/scripted_model.yaml"];

export const quickstartCommand = defineCommand({
  path: ["quickstart"],
  description: "start the example environment with simple_agent and scripted_model, collect its rollouts, stop (npm start)",
  examples: ["gym quickstart", "gym quickstart --output results/my_first_rollouts.jsonl"],
  flags: {
    output: flag.string("file", "output JSONL", { short: "o", default: "results/quickstart/example_single_tool_call_rollouts.jsonl" }),
  },
  toConfig: (flags) => ({
    configPaths: CONFIGS,
    flagOverrides: [
      "++agent_name=example_single_tool_call_simple_agent",
      "++input_jsonl_fpath=resources_servers/example_single_tool_call/data/example.jsonl",
      `++output_jsonl_fpath=${flags.output}`,
      // Any free port, so a quick start never collides with a running `gym env start`.
      "++head_server.port=0",
    ],
  }),
  async run({ raw, resolved }, { print }) {
    print("NeMo Gym TS quick start: example_single_tool_call + simple_agent + scripted_model (heuristic, no weights needed)\n");
    const summary = await evalRun({ raw, resolved, serve: true });
    print(`\nThe policy was scripted_model: replace it with a real one, e.g. --config responses_api_models/openai_model/configs/openai_model.yaml plus policy_base_url / policy_api_key / policy_model_name in env.yaml.`);
    return evalRunExitCode(summary);
  },
});
