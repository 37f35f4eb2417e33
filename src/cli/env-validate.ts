// `gym env validate` (NeMo Gym's ng_validate): the configs merge, resolve and reference servers that exist.
import { arg, configFlag, defineCommand } from "./command.ts";
import { modelFlags, selectedConfig, selectorFlags } from "./selector-flags.ts";

export const envValidateCommand = defineCommand({
  path: ["env", "validate"],
  description: "check that the configs merge, resolve and reference existing servers",
  examples: ["gym env validate --resources-server mcqa --model-type scripted_model", "gym env validate --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml"],
  legacyNames: { ng_validate: [] },
  args: { overrides: arg.overrides() },
  flags: { config: configFlag(), ...selectorFlags, ...modelFlags },
  // Loading is the check: any problem is a config error before `run`.
  toConfig: (flags) => ({ ...selectedConfig(flags), overrides: flags.overrides, requireServers: true }),
  run(_config, { print }) {
    print("✓ Config is valid.");
  },
});
