// `gym list resources-servers [NAME]`: the resources servers, one row per config flavor.
import { arg, defineCommand, flag } from "./command.ts";
import { listResourcesServers } from "./list-components.ts";
import { searchDirFlag } from "./list-environments.ts";

export const listResourcesServersCommand = defineCommand({
  path: ["list", "resources-servers"],
  description: "list or inspect the resources servers",
  examples: ["gym list resources-servers", "gym list resources-servers mcqa --json"],
  args: { name: arg.optional("inspect this resources server instead of listing all") },
  flags: { json: flag.boolean("print JSON"), searchDir: searchDirFlag() },
  run: (_config, { flags, print }) => listResourcesServers(flags, print),
});
