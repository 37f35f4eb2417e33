// Turns a server definition plus the global config into a listening server.
import type { FastifyInstance } from "fastify";
import { getServerInstanceConfig, type ConfigDict } from "../config/index.ts";
import { ServerClient } from "../client/server-client.ts";
import { createBaseApp, MAX_BODY_BYTES_KEY, V8_MAX_STRING_LENGTH } from "./base-app.ts";
import type { ServerContext, ServerDefinition } from "./definition.ts";
import { createLogger } from "./logger.ts";
import { checkInstanceConfig } from "./instance-config.ts";
import { ServerConfigError } from "./config-error.ts";
import { portRangeOf, listenInRange } from "./port-range.ts";
import { Registry } from "prom-client";
import { flushTracing, startTracingFromConfig, TracingConfigError } from "../metrics/tracing.ts";
import { registerRequestTracing } from "./tracing.ts";
import { registerRolloutMetrics } from "./agent-metrics.ts";
import { createInProcessRoutes } from "./in-process-route.ts";
import { configuredSessionSigning, randomSessionSigning, type SessionSigning } from "./session-cookie.ts";

export interface BuildServerOptions {
  instanceName: string;
  /** Resolved global config; must contain the instance. */
  globalConfig: ConfigDict;
  client?: ServerClient;
  /**
   * How session cookies are signed; every server of a graph gets the graph's (the launcher's, or in-process the
   * graph's). Default: what the config asks for (session_secret, NEMO_GYM_SESSION_SECRET), else a random secret.
   */
  sessionSigning?: SessionSigning;
  /** The graph's head token, for the client this builds (ignored with `client`). */
  headToken?: string;
  /**
   * Servers sharing `client` in this process (a co-located group) call this one in-process: `client` routes their
   * calls to its in-process routes (in-process-route.ts) instead of over HTTP. Needs `client`.
   */
  coLocated?: boolean;
}

export interface BuiltServer<Config = unknown> {
  app: FastifyInstance;
  context: ServerContext<Config>;
}

export { ServerConfigError } from "./config-error.ts";

export async function buildServer<Config>(definition: ServerDefinition<Config>, options: BuildServerOptions): Promise<BuiltServer<Config>> {
  const fields = getServerInstanceConfig(options.globalConfig, options.instanceName);
  const checked = checkInstanceConfig(definition, options.instanceName, fields, options.globalConfig);
  try {
    await startTracingFromConfig(options.globalConfig, options.instanceName);
  } catch (error) {
    if (error instanceof TracingConfigError) throw new ServerConfigError(`invalid config for '${options.instanceName}': ${error.message}`);
    throw error;
  }
  const ownsClient = options.client === undefined;
  const client = options.client ?? new ServerClient({ globalConfig: options.globalConfig, headToken: options.headToken });
  const context: ServerContext<Config> = {
    instanceName: options.instanceName,
    config: checked.config,
    globalConfig: options.globalConfig,
    client,
    log: createLogger(options.instanceName, options.globalConfig.verbose === true ? "debug" : undefined),
    metrics: new Registry(),
  };
  for (const warning of checked.warnings) context.log.warn(warning);
  const app = createBaseApp({
    sessionCookieName: `${definition.className}___${options.instanceName}`,
    sessionSigning: options.sessionSigning ?? configuredSessionSigning(options.globalConfig) ?? randomSessionSigning(),
    stripRolloutPrefix: definition.stripRolloutPrefix,
    bodyLimitBytes: bodyLimitOf(fields, options.instanceName),
    log: context.log,
    metrics: context.metrics,
    metricsServerName: options.instanceName,
  });
  registerRequestTracing(app, options.instanceName);
  // Before the routes: each server registers its in-process twins of its hot routes on this table.
  const inProcessRoutes = createInProcessRoutes(app, { stripsRolloutPrefix: definition.stripRolloutPrefix ?? false, serverName: options.instanceName });
  if (definition.serverType === "responses_api_agents") registerRolloutMetrics(app, context.metrics);
  await definition.register(app, context);
  if (options.coLocated) {
    if (ownsClient) throw new Error("coLocated needs the client the group's servers share");
    client.serveLocally(options.instanceName, { post: (path, request) => inProcessRoutes.answer(path, request) });
    // Closed, it answers nothing in-process: calls to it then go over HTTP (refused, as to a stopped process).
    app.addHook("onClose", async () => client.stopServingLocally(options.instanceName));
  }
  app.addHook("onClose", async () => {
    await definition.close?.(context);
    if (ownsClient) await client.close();
    // Spans still buffered leave with the server (a no-op when tracing is off).
    await flushTracing();
  });
  await app.ready();
  return { app, context };
}

/** The instance's `max_body_bytes` (an int, or its text as pydantic reads it), checked before the server starts. */
function bodyLimitOf(fields: Record<string, unknown>, instanceName: string): number | undefined {
  const raw = fields[MAX_BODY_BYTES_KEY];
  if (raw === undefined || raw === null) return undefined;
  const limit = typeof raw === "string" && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit <= 0 || limit >= V8_MAX_STRING_LENGTH) {
    throw new ServerConfigError(`invalid config for '${instanceName}': ${MAX_BODY_BYTES_KEY} must be a positive integer below ${V8_MAX_STRING_LENGTH}, got ${JSON.stringify(raw)}`);
  }
  return limit;
}

/** The override path of one field of an instance: `<instance>.<server type>.<implementation>.<field>`. */
export function instanceFieldKey(config: ConfigDict, instanceName: string, field: string): string {
  const block = config[instanceName] as Record<string, Record<string, unknown>> | undefined;
  const serverType = Object.keys(block ?? {})[0] ?? "<server type>";
  const implementation = Object.keys(block?.[serverType] ?? {})[0] ?? "<implementation>";
  return `${instanceName}.${serverType}.${implementation}.${field}`;
}

export interface StartedServer<Config = unknown> extends BuiltServer<Config> {
  host: string;
  port: number;
  url: string;
  close(): Promise<void>;
}

const LISTEN_BACKLOG = 4096;

/**
 * Builds and binds. A fixed port (the option, else the instance's) is bound as is. Otherwise, with the global
 * config's `port_range_low` / `port_range_high` (NeMo Gym's range, 10001–20000 by default), a free port in that range
 * is bound, skipping `disallowed_ports`; without a range (a hand-built config), the kernel chooses (port 0). Binding
 * is the allocation, so concurrent starts never race for a port.
 */
export async function startServer<Config>(
  definition: ServerDefinition<Config>,
  options: BuildServerOptions & { host?: string; port?: number },
): Promise<StartedServer<Config>> {
  const built = await buildServer(definition, options);
  const fields = getServerInstanceConfig(options.globalConfig, options.instanceName);
  const host = options.host ?? (fields.host as string | undefined) ?? (options.globalConfig.default_host as string | undefined) ?? "127.0.0.1";
  const fixedPort = options.port ?? (typeof fields.port === "number" && fields.port !== 0 ? fields.port : undefined);
  const range = fixedPort === undefined ? portRangeOf(options.globalConfig) : undefined;
  // Node's default backlog (511) overflows when a thousand pooled clients connect at once: the kernel drops
  // connections (ECONNRESET at the caller). 4096 is what the kernel allows here (somaxconn caps it anyway).
  try {
    if (range) await listenInRange((port) => built.app.listen({ host, port, backlog: LISTEN_BACKLOG }), range);
    else await built.app.listen({ host, port: fixedPort ?? 0, backlog: LISTEN_BACKLOG });
  } catch (error) {
    await built.app.close().catch(() => undefined);
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new ServerConfigError(`port ${fixedPort} on ${host} is in use (another gym running?); stop what holds it or choose another with ++${instanceFieldKey(options.globalConfig, options.instanceName, "port")}=<port> (0 = any free port)`);
  }
  const address = built.app.server.address();
  const boundPort = typeof address === "object" && address ? address.port : (fixedPort ?? 0);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return { ...built, host, port: boundPort, url: `http://${urlHost}:${boundPort}`, close: () => built.app.close() };
}
