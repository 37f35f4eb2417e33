// How a command that only needs some servers reaches them: either it starts them from `--config` (only the
// instances it will call) or it finds already-running ones through the head server, as `gym eval run` does.
// Also which resources server answers for an agent, read from the agents' config blocks (NeMo Gym's rule).
import { fetchGraphConfig, headServerOf, HeadServerUnreachableError, ServerClient } from "../client/index.ts";
import { ConfigError, copyEnvYamlPaths, listServerInstances, type ConfigDict } from "../config/index.ts";
import { launchServers, type RunningServers, type ServerExit } from "./launcher.ts";

/** The running servers' config, from the head server named by `resolved.head_server` (default 127.0.0.1:11000). */
export async function fetchRunningConfig(resolved: ConfigDict): Promise<ConfigDict> {
  try {
    return await fetchGraphConfig(headServerOf(resolved));
  } catch (error) {
    if (!(error instanceof HeadServerUnreachableError)) throw error;
    // NeMo Gym: "Could not connect to the head server at … Perhaps you are not running a server or your head server is on a different port?"
    throw new ConfigError(
      `could not connect to the head server at ${error.url.replace(/\/global_config_dict_yaml$/, "")} (${error.reason}): no servers running, or the head server is on another port? ` +
        `Start them with \`gym env start --config …\`, pass --config to start them for this command, or give the running head server's port with ++head_server.port=<port>`,
    );
  }
}

export interface ServerSessionOptions {
  raw: ConfigDict;
  resolved: ConfigDict;
  /** Start the config's servers for this command, or use running ones found through the head server. */
  serve: boolean;
  /** With `serve`: the instances to start, chosen from the full resolved config (default: all). */
  startOnly?: (resolved: ConfigDict) => Iterable<string>;
  /** Where the launcher's and the servers' output goes. */
  log?: (line: string) => void;
  /**
   * The command ends promptly once `stopSignal` aborts (a started server died), leaving its files consistent:
   * it is then awaited. Otherwise a server's death rejects at once and the command's work is abandoned.
   */
  stopsOnSignal?: boolean;
}

export interface ServerSession {
  client: ServerClient;
  /** The full config: the local one when serving (for routing, even to instances not started), else the head server's. */
  config: ConfigDict;
  /** Aborted, with a `ServerExitedError`, when a server started for this command exits on its own. */
  stopSignal: AbortSignal;
}

/** How long a command that honours `stopSignal` has to end after a server's death. */
const STOP_GRACE_MS = 5000;

/** A server started for a command exited while the command was running. */
export class ServerExitedError extends Error {
  constructor(readonly exit: ServerExit) {
    super(`server ${exit.instanceName} exited (${exit.signal ?? `code ${exit.code}`}) while the command was running`);
    this.name = "ServerExitedError";
  }
}

/** Runs `use` with a client for the servers; servers started here are stopped afterwards, whatever happens. */
export async function withServers<T>(options: ServerSessionOptions, use: (session: ServerSession) => Promise<T>): Promise<T> {
  let running: RunningServers | undefined;
  let config = options.resolved;
  if (options.serve) {
    const keep = options.startOnly ? new Set(options.startOnly(options.resolved)) : undefined;
    const raw = keep ? withOnlyInstances(options.raw, options.resolved, keep) : options.raw;
    const resolved = keep ? withOnlyInstances(options.resolved, options.resolved, keep) : options.resolved;
    running = await launchServers({ raw, resolved, log: options.log });
    config = structuredClone(options.resolved);
    // Started instances get their real addresses; the others stay in the config for routing only.
    for (const record of running.instances) {
      const instance = listServerInstances(config).find((i) => i.instanceName === record.process_name);
      if (instance) Object.assign(instance.fields, { host: record.host, port: record.port });
    }
    config.head_server = running.resolved.head_server;
  } else {
    config = await fetchRunningConfig(options.resolved);
  }

  const onSignal = () => void running?.stop().then(() => process.exit(130));
  if (running) {
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }
  const client = new ServerClient({ globalConfig: config });
  const stop = new AbortController();
  try {
    const using = use({ client, config, stopSignal: stop.signal });
    if (!running) return await using;
    // A server dying mid-command ends it with the server's name rather than a pile of transport errors.
    const died = running.firstExit.then((exit) => {
      const error = new ServerExitedError(exit);
      stop.abort(error);
      return error;
    });
    if (options.stopsOnSignal) {
      // The command stops itself; should it not within a few seconds, the death ends it as it would any other command.
      let overdue: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          using,
          died.then((error) => new Promise<never>((_, reject) => (overdue = setTimeout(() => reject(error), STOP_GRACE_MS)))),
        ]);
      } finally {
        clearTimeout(overdue);
      }
    }
    return await Promise.race([
      using,
      died.then((error) => {
        throw error;
      }),
    ]);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await client.close();
    await running?.stop();
  }
}

/** A copy of `config` without the server instances (named from `resolved`) that are not in `keep`. */
function withOnlyInstances(config: ConfigDict, resolved: ConfigDict, keep: Set<string>): ConfigDict {
  const copy = structuredClone(config);
  copyEnvYamlPaths(config, copy);
  for (const instance of listServerInstances(resolved)) if (!keep.has(instance.instanceName)) delete copy[instance.instanceName];
  return copy;
}

/** Instance names of one server type in a resolved config. */
export function instancesOfType(config: ConfigDict, serverType: "resources_servers" | "responses_api_agents" | "responses_api_models"): string[] {
  return listServerInstances(config, { errorOnAlmostServers: false, logger: { warn: () => undefined } })
    .filter((i) => i.serverType === serverType)
    .map((i) => i.instanceName);
}

/**
 * Which resources server verifies an agent's rollouts: `override` when given; else the agent block's
 * `resources_server.name`; else the config's only resources server (rows may name agents that are not
 * configured). Throws an error naming the choices when it cannot tell.
 */
export function resourcesServerRouter(config: ConfigDict, override?: string | null, flagName = "--resources-server-instance"): (agentName: string | undefined) => string {
  const resourcesServers = instancesOfType(config, "resources_servers");
  if (override) {
    if (!resourcesServers.includes(override)) {
      throw new ConfigError(`${flagName} ${override}: no such resources server instance in the config (known: ${resourcesServers.join(", ") || "none"})`);
    }
    return () => override;
  }
  const byAgent = new Map<string, string>();
  for (const instance of listServerInstances(config, { errorOnAlmostServers: false, logger: { warn: () => undefined } })) {
    const ref = instance.fields.resources_server as { name?: unknown } | undefined;
    if (instance.serverType === "responses_api_agents" && typeof ref?.name === "string") byAgent.set(instance.instanceName, ref.name);
  }
  return (agentName) => {
    const mapped = agentName === undefined ? undefined : byAgent.get(agentName);
    if (mapped) return mapped;
    if (resourcesServers.length === 1) return resourcesServers[0]!;
    const who = agentName === undefined ? "rows without agent_ref" : `agent '${agentName}'`;
    throw new ConfigError(
      resourcesServers.length === 0
        ? `no resources server in the config for ${who}: pass --config with the environment's config`
        : `cannot tell which resources server serves ${who} (configured: ${resourcesServers.join(", ")}): pass ${flagName} NAME`,
    );
  };
}
