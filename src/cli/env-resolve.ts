// `gym env resolve` (NeMo Gym's ng_dump_config): the merged, resolved config as YAML, secrets masked.
import { dumpYaml, maskSecrets } from "../config/index.ts";
import { arg, configFlag, defineCommand } from "./command.ts";

export const envResolveCommand = defineCommand({
  path: ["env", "resolve"],
  description: "print the merged, resolved config (secrets masked)",
  examples: ["gym env resolve --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml ++policy_model_name=my-model"],
  legacyNames: { ng_dump_config: [] },
  args: { overrides: arg.overrides() },
  flags: { config: configFlag() },
  toConfig: (flags) => ({ configPaths: flags.config, overrides: flags.overrides }),
  run({ resolved }, { out }) {
    out(dumpYaml(maskSecrets(resolved)));
  },
});
