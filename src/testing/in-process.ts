// A whole server graph inside one process: each instance listens on its own loopback port (real HTTP),
// ports are learnt after binding, and every server addresses the others through one shared client.
// For tests and benchmarks; `gym env start` runs each server as its own process instead (or a `co_located` group
// in one, as `coLocated` here).
import { getServerInstanceConfig, listServerInstances, type ConfigDict } from "../config/index.ts";
import { ServerClient } from "../client/index.ts";
import type { ServerDefinition } from "../server/definition.ts";
import { loadServerDefinition } from "../server/instance-config.ts";
import { startServer, type StartedServer } from "../server/serve.ts";
import { configuredSessionSigning, randomSessionSigning, type SessionSigning } from "../server/session-cookie.ts";

export interface InProcessGraph {
  config: ConfigDict;
  client: ServerClient;
  servers: Record<string, StartedServer>;
  /** How every server of the graph signs its session cookies (the config's choice, else random per graph). */
  sessionSigning: SessionSigning;
  url(instanceName: string): string;
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** The servers call each other in-process (a co-located graph: serve.ts' coLocated), not over loopback; `client` too. */
  coLocated?: boolean;
}

export async function startInProcess(resolvedConfig: ConfigDict, definitions: Record<string, ServerDefinition> = {}, options: InProcessOptions = {}): Promise<InProcessGraph> {
  const config = structuredClone(resolvedConfig);
  const client = new ServerClient({ globalConfig: config });
  const servers: Record<string, StartedServer> = {};
  const sessionSigning = configuredSessionSigning(config) ?? randomSessionSigning();
  try {
    for (const instance of listServerInstances(config)) {
      const definition = definitions[instance.instanceName] ?? (await loadServerDefinition(instance));
      const server = await startServer(definition, { instanceName: instance.instanceName, globalConfig: config, client, sessionSigning, host: "127.0.0.1", port: 0, coLocated: options.coLocated });
      servers[instance.instanceName] = server;
      Object.assign(getServerInstanceConfig(config, instance.instanceName), { host: server.host, port: server.port });
    }
  } catch (error) {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    await client.close();
    throw error;
  }
  client.updateGlobalConfig(config);
  return {
    config,
    client,
    servers,
    sessionSigning,
    url: (name) => servers[name]!.url,
    async close() {
      await Promise.all(Object.values(servers).map((s) => s.close()));
      await client.close();
    },
  };
}
