// `gym env validate` (NeMo Gym's ng_validate): the configs merge, resolve and reference servers that exist, and every
// instance's fields are ones its server implements (what `gym env start` checks before it starts anything).
import { listServerInstances } from "../config/index.ts";
import { checkServersBeforeStart } from "../server/instance-config.ts";
import { arg, configFlag, defineCommand } from "./command.ts";
import { modelFlags, selectedConfig, selectorFlags } from "./selector-flags.ts";

export const envValidateCommand = defineCommand({
  path: ["env", "validate"],
  description: "check that the configs merge, resolve, reference existing servers and set only fields those servers implement",
  examples: ["gym env validate --resources-server mcqa --model-type scripted_model", "gym env validate --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml"],
  legacyNames: { ng_validate: [] },
  args: { overrides: arg.overrides() },
  flags: { config: configFlag(), ...selectorFlags, ...modelFlags },
  // Loading checks the config itself (a config error before `run`); `run` checks each instance against its server.
  toConfig: (flags) => ({ ...selectedConfig(flags), overrides: flags.overrides, requireServers: true }),
  async run({ resolved }, { print, warn }) {
    for (const warning of await checkServersBeforeStart(listServerInstances(resolved), resolved)) warn(`WARNING ${warning}`);
    print("✓ Config is valid.");
  },
});
