// Entry point of one server process started by the launcher (or by hand, NeMo Gym style):
//   NEMO_GYM_CONFIG_DICT=<global config YAML> NEMO_GYM_CONFIG_PATH=<instance name> node --import bin/ts-register.js child-main.ts
// It binds first (port 0 unless the config fixes one), then reports the real port to the launcher over IPC,
// and receives the final global config (every server's port) before the launcher declares it ready.
// Before it builds anything, a launched child receives the graph's secrets over IPC (never the environment, so
// no process it spawns inherits them): the session signing every server of the graph shares, and the head token.
import { existsSync } from "node:fs";
import { CO_LOCATED_ENV, coLocatedProcesses, getServerInstanceConfig, listServerInstances, parseConfigYaml, resolveConfig, type ConfigDict } from "../config/index.ts";
import { HEAD_TOKEN_ENV } from "../client/head-token.ts";
import { loadServerDefinition } from "./instance-config.ts";
import type { ServerDefinition } from "./definition.ts";
import { configuredSessionSigning, randomSessionSigning } from "./session-cookie.ts";
import { instanceFieldKey, ServerConfigError, startServer, type StartedServer } from "./serve.ts";
import { portRangeOf } from "./port-range.ts";
import { parseSessionStoreSetting } from "./session-store-setting.ts";
import { ServerClient } from "../client/server-client.ts";
import type { SessionSigning } from "./session-cookie.ts";
import type { ChildMessage, LauncherMessage } from "./launcher-messages.ts";
import { CO_LOCATED_PORTS_ENV, CO_LOCATED_WORKER_ENV, runGroupPrimary } from "./co-located-cluster.ts";
import cluster from "node:cluster";

export type { ChildMessage, LauncherMessage } from "./launcher-messages.ts";

const SECRETS_TIMEOUT_MS = 30_000;

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** The launcher sends the graph's secrets right after spawning (IPC queues them until this listens). */
function graphSecrets(): Promise<{ sessionSigning: SessionSigning; headToken: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no graph secrets from the launcher within ${SECRETS_TIMEOUT_MS / 1000} s`)), SECRETS_TIMEOUT_MS);
    const onMessage = (message: LauncherMessage) => {
      if (message?.type === "graph-secrets") done(undefined, message);
    };
    function done(error?: Error, message?: Extract<LauncherMessage, { type: "graph-secrets" }>) {
      clearTimeout(timer);
      process.off("message", onMessage);
      if (error) reject(error);
      else resolve({ sessionSigning: message!.sessionSigning, headToken: message!.headToken });
    }
    process.on("message", onMessage);
    // A co-located group's worker asks its cluster primary, which cannot know when the worker listens (the cluster
    // reads a worker's channel from the start: a message sent before this listener would be lost).
    if (cluster.isWorker) send({ type: "want-secrets" });
  });
}

async function main(): Promise<void> {
  const yamlText = process.env.NEMO_GYM_CONFIG_DICT;
  const instanceName = process.env.NEMO_GYM_CONFIG_PATH;
  if (!yamlText || !instanceName) throw new Error("NEMO_GYM_CONFIG_DICT and NEMO_GYM_CONFIG_PATH must be set");

  const secretsArriving = process.send ? graphSecrets() : undefined;
  secretsArriving?.catch(() => undefined);
  const globalConfig: ConfigDict = resolveConfig(parseConfigYaml(yamlText));
  const names = process.env[CO_LOCATED_ENV]?.split(",").filter(Boolean) ?? [instanceName];
  const instances = listServerInstances(globalConfig);
  const definitions = [];
  for (const name of names) {
    const instance = instances.find((i) => i.instanceName === name);
    if (!instance) throw new Error(`no server instance '${name}' in the global config`);
    // A wrong entrypoint is the config's mistake: said in one line with the key to fix, not as an import's stack.
    if (!existsSync(instance.entrypointPath)) {
      throw Object.assign(new ServerConfigError(`entrypoint '${String(instance.fields.entrypoint)}' of '${name}' not found in ${instance.dirPath} (nor its .ts/.js twin); fix ++${instanceFieldKey(globalConfig, name, "entrypoint")}=<file>`), { instanceName: name });
    }
    definitions.push({ name, definition: await loadServerDefinition(instance) });
  }

  // Started by hand (no IPC): the config's or NEMO_GYM_SESSION_SECRET's signing (else random), NEMO_GYM_HEAD_TOKEN.
  const secrets = secretsArriving ? await secretsArriving : { sessionSigning: undefined, headToken: process.env[HEAD_TOKEN_ENV] };
  // A co-located group shares one client, through which its servers answer each other in-process.
  const coLocated = names.length > 1;
  const processes = coLocated ? coLocatedProcesses(globalConfig) : 1;
  if (processes > 1 && cluster.isPrimary) {
    for (const { name, definition } of definitions) checkSessionsShared(definition, name, globalConfig, processes);
    const signing = secrets.sessionSigning ?? configuredSessionSigning(globalConfig) ?? randomSessionSigning();
    // Every worker signs with the same secret (a cookie set by one is read by the others); the head token as given
    // (undefined started by hand: each worker then reads NEMO_GYM_HEAD_TOKEN or the token file, as a lone server does).
    return runGroupPrimary({ names, processes, secrets: { type: "graph-secrets", sessionSigning: signing, headToken: secrets.headToken as string }, send });
  }
  // Workers 2..N of a co-located group listen on the ports the first one bound (co-located-cluster.ts). Where the
  // first bound port 0 (no range, no fixed port), they listen on port 0 too: the cluster gives the nth such listen of
  // every worker the first's socket.
  const sharedPorts = process.env[CO_LOCATED_PORTS_ENV] && portRangeOf(globalConfig) ? (JSON.parse(process.env[CO_LOCATED_PORTS_ENV]) as Record<string, number>) : {};
  const worker = process.env[CO_LOCATED_WORKER_ENV];
  const sharedClient = coLocated ? new ServerClient({ globalConfig, headToken: secrets.headToken }) : undefined;
  const servers: StartedServer[] = [];
  const stopAll = async () => {
    await Promise.all(servers.map((server) => server.close().catch(() => undefined)));
    await sharedClient?.close().catch(() => undefined);
  };
  for (const { name, definition } of definitions) {
    let server: StartedServer;
    try {
      server = await startServer(definition, { instanceName: name, globalConfig, ...secrets, client: sharedClient, coLocated, port: sharedPorts[name] });
    } catch (error) {
      await stopAll();
      throw error instanceof Error ? Object.assign(error, { instanceName: name }) : error;
    }
    servers.push(server);
    process.stderr.write(`INFO ${definition.className} '${name}' listening on ${server.url}${coLocated ? ` (co-located with ${names.filter((n) => n !== name).join(", ")}${worker ? `; process ${worker}` : ""})` : ""}\n`);
    send({ type: "listening", instanceName: name, host: server.host, port: server.port, pid: process.pid });
  }

  process.on("message", (message: LauncherMessage) => {
    if (message?.type !== "config") return;
    const finalConfig = resolveConfig(parseConfigYaml(message.rawYaml));
    if (sharedClient) sharedClient.updateGlobalConfig(finalConfig);
    else for (const server of servers) server.context.client.updateGlobalConfig(finalConfig);
    for (const name of names) send({ type: "config-applied", instanceName: name });
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const forceExit = setTimeout(() => process.exit(0), 3000);
    forceExit.unref();
    await stopAll();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // The launcher died (even by SIGKILL): never outlive it.
  process.on("disconnect", stop);
}

/**
 * Several processes of one group each hold their own sessions: a resources server keeping per-session state in
 * memory would answer a caller outside the group (whose calls reach any process) from another process's memory.
 */
function checkSessionsShared(definition: ServerDefinition, name: string, globalConfig: ConfigDict, processes: number): void {
  if (definition.serverType !== "resources_servers" || !(definition as { spec?: { state?: unknown } }).spec?.state) return;
  const store = String(getServerInstanceConfig(globalConfig, name).session_store ?? "memory");
  const setting = parseSessionStoreSetting(store);
  if (typeof setting !== "string" && setting.kind === "redis") return;
  throw Object.assign(
    new ServerConfigError(`co_located_processes: ${processes} runs '${name}' in ${processes} processes, and it keeps per-session state in memory (session_store: ${store}): a call from outside the group could reach another process's sessions; set ++${instanceFieldKey(globalConfig, name, "session_store")}=redis://127.0.0.1:6379 or co_located_processes: 1`),
    { instanceName: name },
  );
}

main().catch((error) => {
  const instanceName = (error as { instanceName?: string })?.instanceName ?? process.env.NEMO_GYM_CONFIG_PATH ?? "?";
  const userError = error instanceof ServerConfigError;
  // A config mistake is one line, said by the launcher when there is one; anything else keeps its stack.
  if (!userError) process.stderr.write(`ERROR ${instanceName} failed to start: ${(error as Error)?.stack ?? error}\n`);
  else if (!process.send) process.stderr.write(`ERROR ${instanceName} failed to start: ${error.message}\n`);
  send({ type: "failed", instanceName, error: (error as Error)?.message ?? String(error), ...(userError ? { userError } : {}) });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
