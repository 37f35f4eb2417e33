// `gym list agents [NAME]`: the agent harnesses (simple_agent, …) and how each composes.
import { arg, defineCommand, flag } from "./command.ts";
import { listAgents } from "./list-components.ts";
import { searchDirFlag } from "./list-environments.ts";

export const listAgentsCommand = defineCommand({
  path: ["list", "agents"],
  description: "list or inspect the agent harnesses",
  examples: ["gym list agents", "gym list agents simple_agent --json"],
  args: { name: arg.optional("inspect this agent instead of listing all") },
  flags: { json: flag.boolean("print JSON"), searchDir: searchDirFlag() },
  run: (_config, { flags, print }) => listAgents(flags, print),
});
