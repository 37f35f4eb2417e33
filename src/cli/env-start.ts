// `gym env start` (NeMo Gym's ng_run): every server instance of the configs, each its own process, until
// Ctrl-C / SIGTERM or until one of them exits.
import { arg, configFlag, defineCommand, flag, POSITIVE_NUMBER } from "./command.ts";
import { launchServers } from "./launcher.ts";
import { modelFlags, selectedConfig, selectorFlags } from "./selector-flags.ts";

export const envStartCommand = defineCommand({
  path: ["env", "start"],
  description: "start every server instance of the configs (NeMo Gym's ng_run)",
  examples: [
    "gym env start --config resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml --config responses_api_models/scripted_model/configs/scripted_model.yaml",
    "gym env start --resources-server mcqa --model-type openai_model --model gpt-4.1-mini --model-url https://api.openai.com/v1 --model-api-key $OPENAI_API_KEY",
    'ng_run "+config_paths=[a.yaml,b.yaml]"',
  ],
  legacyNames: { ng_run: [] },
  args: { overrides: arg.overrides() },
  flags: {
    config: configFlag(),
    ...selectorFlags,
    ...modelFlags,
    readinessTimeout: flag.number("seconds", "how long servers have to come up", POSITIVE_NUMBER, { default: 60 }),
  },
  toConfig: (flags) => ({ ...selectedConfig(flags), overrides: flags.overrides, requireServers: true }),
  async run({ raw, resolved }, { flags, print }) {
    const running = await launchServers({ raw, resolved, readinessTimeoutMs: flags.readinessTimeout * 1000 });
    const signal = await new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
      void running.firstExit.then((exit) => resolve(`exit of ${exit.instanceName}`));
    });
    print(`(launcher) stopping every server (${signal})`);
    await running.stop();
    return signal.startsWith("exit of") ? 1 : 0;
  },
});
