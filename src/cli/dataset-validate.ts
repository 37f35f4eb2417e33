// `gym dataset validate FILE`: check a dataset before any server starts — the protocol always, and the fields
// and tools of the environment that will score it: `--resources-server NAME` (the folder
// resources_servers/NAME), or `--config` (each row's agent_ref, else `--agent`, routed to its resources server).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { entrypointIn, listServerInstances, PROJECT_ROOT, type ConfigDict } from "../config/index.ts";
import { formatProblem, loadEnvironment, validateDatasetFile, type EnvironmentFor, type EnvironmentSchema } from "../rollouts/dataset-validate.ts";
import { agentNameOf, InputError } from "../rollouts/jsonl.ts";
import { arg, configFlag, defineCommand, flag } from "./command.ts";
import { resolveUserPath } from "./eval-run.ts";
import { resourcesServerRouter } from "./server-session.ts";

/** `resources_servers/<name>/app.ts` under the working directory, else under the project. */
export function environmentEntrypoint(name: string): string {
  for (const root of [process.cwd(), PROJECT_ROOT]) {
    const dir = resolve(root, "resources_servers", name);
    if (existsSync(dir)) return entrypointIn(dir, "app.py");
  }
  throw new InputError(`no environment folder resources_servers/${name} (looked in ${process.cwd()} and ${PROJECT_ROOT})`);
}

/** Rows routed through the config: agent_ref.name (else `defaultAgent`) → the agent's resources server → its app.ts. */
function environmentsFromConfig(config: ConfigDict, defaultAgent: string | undefined, resourcesServer: string | undefined): EnvironmentFor {
  const route = resourcesServerRouter(config, resourcesServer, "--resources-server");
  const entrypoints = new Map(listServerInstances(config).map((i) => [i.instanceName, i.entrypointPath]));
  const loaded = new Map<string, Promise<EnvironmentSchema>>();
  return async (row) => {
    const agent = agentNameOf(row) ?? defaultAgent;
    let instance: string;
    try {
      instance = route(agent);
    } catch (error) {
      return { problemPath: agent === undefined ? "agent_ref" : "agent_ref.name", message: (error as Error).message };
    }
    const entrypoint = entrypoints.get(instance)!;
    if (!loaded.has(entrypoint)) loaded.set(entrypoint, loadEnvironment(entrypoint));
    return loaded.get(entrypoint)!;
  };
}

export const datasetValidateCommand = defineCommand({
  path: ["dataset", "validate"],
  description: "check a dataset JSONL against the protocol and its environment's fields and tools, before any server starts",
  examples: [
    "gym dataset validate data.jsonl --resources-server example_session_state_mgmt",
    "gym dataset validate data.jsonl --config resources_servers/example_session_state_mgmt/configs/example_session_state_mgmt.yaml --agent example_session_state_mgmt_simple_agent",
  ],
  args: { file: arg.required("dataset JSONL"), overrides: arg.overrides("Hydra-style overrides for --config") },
  flags: {
    resourcesServer: flag.string("name", "the environment: folder resources_servers/<name> (with --config: a resources server instance)"),
    config: configFlag("a config YAML (repeatable): rows go to their agent's resources server"),
    agent: flag.string("name", "with --config: the agent of rows without agent_ref", { short: "a" }),
  },
  // Only rows routed through a config need one (an environment config alone: no model).
  toConfig: (flags) => (flags.config.length > 0 ? { configPaths: flags.config, overrides: flags.overrides, withoutModel: true } : undefined),
  async run(config, { flags, print, warn }) {
    const { file } = flags;
    let environmentFor: EnvironmentFor = () => undefined;
    let against = "the protocol only (no --resources-server or --config)";
    if (config) {
      environmentFor = environmentsFromConfig(config.resolved, flags.agent, flags.resourcesServer);
      against = `the environments of ${flags.agent ? `agent ${flags.agent} / ` : ""}each row's agent_ref`;
    } else if (flags.resourcesServer) {
      if (flags.agent) throw new InputError("--agent needs --config (it names an agent instance of the config)");
      const environment = await loadEnvironment(environmentEntrypoint(flags.resourcesServer));
      environmentFor = () => environment;
      against = `${environment.name} (${join("resources_servers", flags.resourcesServer)})`;
    }

    const problems = await validateDatasetFile(resolveUserPath(file), environmentFor);
    for (const problem of problems) print(formatProblem({ ...problem, file }));
    if (problems.length > 0) {
      const lines = new Set(problems.map((p) => p.line)).size;
      warn(`✗ ${file}: ${problems.length} problem(s) on ${lines} line(s), checked against ${against}`);
      return 1;
    }
    print(`✓ ${file} is valid against ${against}.`);
  },
});
