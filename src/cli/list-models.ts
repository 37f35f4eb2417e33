// `gym list models [NAME]`: the model servers, one row per config flavor.
import { arg, defineCommand, flag } from "./command.ts";
import { listModels } from "./list-components.ts";
import { searchDirFlag } from "./list-environments.ts";

export const listModelsCommand = defineCommand({
  path: ["list", "models"],
  description: "list or inspect the model servers",
  examples: ["gym list models", "gym list models vllm_model"],
  args: { name: arg.optional("inspect this model instead of listing all") },
  flags: { json: flag.boolean("print JSON"), searchDir: searchDirFlag() },
  run: (_config, { flags, print }) => listModels(flags, print),
});
