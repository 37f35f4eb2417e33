// `gym env resolve` (NeMo Gym's ng_dump_config): the merged, resolved config as YAML, secrets masked.
import { dumpYaml, maskSecrets } from "../config/index.ts";
import { arg, configFlag, defineCommand } from "./command.ts";
import { modelFlags, selectedConfig, selectorFlags } from "./selector-flags.ts";

export const envResolveCommand = defineCommand({
  path: ["env", "resolve"],
  description: "print the merged, resolved config (secrets masked)",
  examples: [
    "gym env resolve --resources-server mcqa --model-type openai_model --model gpt-x --model-url http://localhost:8000/v1",
    "gym env resolve --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml ++policy_model_name=my-model",
  ],
  legacyNames: { ng_dump_config: [] },
  args: { overrides: arg.overrides() },
  // NeMo Gym's has --config and --search-dir; the selectors and model flags show what `env start` would run.
  flags: { config: configFlag(), ...selectorFlags, ...modelFlags },
  toConfig: (flags) => ({ ...selectedConfig(flags), overrides: flags.overrides }),
  run({ resolved }, { out }) {
    out(dumpYaml(maskSecrets(resolved)));
  },
});
