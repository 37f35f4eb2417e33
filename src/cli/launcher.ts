// Starts every server instance of a config as its own child process. Each child binds first (port 0 unless
// the config fixes one) and reports its port, so there is no window in which two servers race for one port;
// the launcher then hands every child the final config, checks liveness, and supervises: Ctrl-C, SIGTERM or
// any child's death stops the whole group, children first, and no process is left behind.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { ConfigError, CO_LOCATED_ENV, processGroups, dumpYaml, envYamlPathsOf, getServerInstanceConfig, listServerInstances, type ConfigDict, type ServerInstance } from "../config/index.ts";
import { HttpClient } from "../client/index.ts";
import { HEAD_TOKEN_ENV, newGraphSecret, removeHeadToken, writeHeadToken } from "../client/head-token.ts";
import type { ChildMessage, LauncherMessage } from "../server/child-main.ts";
import { configuredSessionSigning, randomSessionSigning } from "../server/session-cookie.ts";
import { checkServersBeforeStart } from "../server/instance-config.ts";
import { startHeadServer, type InstanceRecord } from "./head-server.ts";

const CHILD_MAIN = join(dirname(fileURLToPath(import.meta.url)), "..", "server", "child-main.ts");
// The project's TypeScript hook (bin/ts-register.js: esbuild, cached; GYM_TS_LOADER=tsx for tsx), by absolute URL
// so children find it whatever the working directory is.
const TS_LOADER = new URL("../../bin/ts-register.js", import.meta.url).href;


/**
 * V8 flags every server child starts with. A 64 MB young-generation semi-space (V8's default is 16 MB here): a server
 * allocates a request's bodies, parsed JSON and promises and drops them within milliseconds, and a larger nursery
 * scavenges less often. Measured with `npm run bench collection` (example_single_tool_call, 5 alternating rounds,
 * 2 cores): rollouts/s +8.5% at 1,024 in flight and +13% at 16,384, higher in all 5 pairs; unchanged at 1 and 64;
 * the model server's peak RSS at 16,384 in flight went from 209 to 284 MB.
 */
export const SERVER_CHILD_V8_FLAGS: readonly string[] = ["--max-semi-space-size=64"];

export interface LaunchOptions {
  /** Merged config with interpolations unresolved (what children and the head server get). */
  raw: ConfigDict;
  /** The same config resolved. */
  resolved: ConfigDict;
  /** How long every server has to bind and answer `GET /`. */
  readinessTimeoutMs?: number;
  /** Where prefixed child output and launcher messages go. */
  log?: (line: string) => void;
  /** Extra environment for the children. */
  env?: NodeJS.ProcessEnv;
}

export interface ServerExit {
  instanceName: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningServers {
  headUrl: string;
  /** Final configs with every host/port filled in. */
  raw: ConfigDict;
  resolved: ConfigDict;
  instances: InstanceRecord[];
  /** Resolves when any child exits on its own (the group is then being stopped). */
  firstExit: Promise<ServerExit>;
  stop(): Promise<void>;
}

/** One server process: one instance, or a co-located group (`co_located`), each instance with its record. */
interface Child {
  instances: ServerInstance[];
  process: ChildProcess;
  records: InstanceRecord[];
  /** How the launcher names the process in its messages: its instances' names. */
  label: string;
  exited: boolean;
}

function setPort(config: ConfigDict, instanceName: string, host: string, port: number): void {
  const fields = getServerInstanceConfig(config, instanceName) as Record<string, unknown>;
  fields.host = host;
  fields.port = port;
}

function pipeWithPrefix(stream: NodeJS.ReadableStream | null, prefix: string, log: (line: string) => void): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => log(`${prefix}${line}`));
}

/** The message of type `type` about `instanceName` from its process (a "failed" one about any of its instances rejects). */
function waitForMessage<T extends "listening" | "config-applied">(child: Child, instanceName: string, type: T, timeoutMs: number, what: string): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${instanceName} did not ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type === "failed") {
        // A config mistake (a busy port, a bad field) is the user's to fix: one line; anything else keeps its stack.
        const text = `${message.instanceName} failed to start: ${message.error}`;
        done(message.userError ? new ConfigError(text) : new Error(text));
      } else if (message.type === type && "instanceName" in message && message.instanceName === instanceName) done(undefined, message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${child.label} exited (${signal ?? `code ${code}`}) before ${instanceName} could ${what}; its output is above`));
    function done(error?: Error, message?: Extract<ChildMessage, { type: T }>) {
      clearTimeout(timer);
      child.process.off("message", onMessage);
      child.process.off("exit", onExit);
      if (error) reject(error);
      else resolve(message!);
    }
    child.process.on("message", onMessage);
    child.process.on("exit", onExit);
  });
}

async function stopChildren(children: Child[], graceMs = 3000): Promise<void> {
  const alive = children.filter((c) => !c.exited && c.process.exitCode === null && c.process.signalCode === null);
  const exits = alive.map((c) => new Promise<void>((resolve) => (c.process.exitCode !== null ? resolve() : c.process.once("exit", () => resolve()))));
  for (const c of alive) c.process.kill("SIGTERM");
  const timer = setTimeout(() => alive.forEach((c) => c.process.kill("SIGKILL")), graceMs);
  await Promise.all(exits);
  clearTimeout(timer);
}

export async function launchServers(options: LaunchOptions): Promise<RunningServers> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const readinessTimeoutMs = options.readinessTimeoutMs ?? 60_000;
  const raw = structuredClone(options.raw);
  const resolved = structuredClone(options.resolved);
  const instances = listServerInstances(resolved);
  if (instances.length === 0) throw new ConfigError("the config defines no server instances: pass --config with at least one server");
  // Every instance's fields, checked here so that one bad field or refused key fails the whole start before any
  // child is spawned. The unknown-key warnings are the children's to print (each once, under its instance).
  await checkServersBeforeStart(instances, resolved);
  // One process per instance, or per co-located group (`co_located`: its servers call each other in-process).
  const { groups, processesPerGroup } = processGroups(resolved, instances.map((instance) => instance.instanceName));
  // Per graph: the token that unlocks the head server's secrets (NEMO_GYM_HEAD_TOKEN when set, so a client can be
  // given it beforehand), and the session signing every server shares.
  const headToken = process.env[HEAD_TOKEN_ENV] || newGraphSecret();
  const secrets: LauncherMessage = { type: "graph-secrets", headToken, sessionSigning: configuredSessionSigning(resolved, { ...process.env, ...options.env }) ?? randomSessionSigning() };

  const children: Child[] = [];
  const headConfig = (resolved.head_server ?? {}) as { host?: string; port?: number };
  const headHost = headConfig.host ?? String(resolved.default_host ?? "127.0.0.1");
  const head = await startHeadServer(
    {
      rawConfig: () => raw,
      instances: () => children.flatMap((c) => c.records.map((record) => ({ ...record, uptime_seconds: Date.now() / 1000 - record.start_time }))),
      token: headToken,
      envYamlPaths: envYamlPathsOf(options.raw),
    },
    headHost,
    headConfig.port ?? 11000,
  );
  for (const config of [raw, resolved]) config.head_server = { ...((config.head_server as object) ?? {}), host: headHost, port: head.port };
  // For this user's other commands (`gym eval run --no-serve`): readable by nobody else.
  let tokenFile: string | undefined;
  try {
    tokenFile = writeHeadToken(head.port, headToken);
    if (tokenFile === undefined) log("(launcher) WARNING no private directory for the head token file; other commands get this graph's config with secrets redacted");
  } catch (error) {
    log(`(launcher) WARNING could not write the head token file (${(error as Error).message}); other commands get this graph's config with secrets redacted`);
  }

  let stopping: Promise<void> | undefined;
  let resolveFirstExit!: (exit: ServerExit) => void;
  const firstExit = new Promise<ServerExit>((resolve) => (resolveFirstExit = resolve));
  const stop = () =>
    (stopping ??= (async () => {
      await stopChildren(children);
      removeHeadToken(tokenFile);
      await (head.app as FastifyInstance).close();
    })());

  const childEnv = { ...process.env, ...options.env, NEMO_GYM_CONFIG_DICT: dumpYaml(raw) };
  // Node/V8 flags of every server child: SERVER_CHILD_V8_FLAGS, then NEMO_GYM_CHILD_NODE_ARGS (split at spaces; a
  // later flag wins): a tuning and profiling aid, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS refuses.
  const childNodeArgs = [...SERVER_CHILD_V8_FLAGS, ...(process.env.NEMO_GYM_CHILD_NODE_ARGS ?? options.env?.NEMO_GYM_CHILD_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)];
  const byName = new Map(instances.map((instance) => [instance.instanceName, instance]));
  for (const names of groups) {
    const group = names.map((name) => byName.get(name)!);
    const label = names.join(" + ");
    const proc = spawn(process.execPath, [...childNodeArgs, "--import", TS_LOADER, CHILD_MAIN], {
      cwd: process.cwd(),
      env: { ...childEnv, NEMO_GYM_CONFIG_PATH: names[0]!, ...(names.length > 1 ? { [CO_LOCATED_ENV]: names.join(",") } : {}) },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    proc.send(secrets);
    const child: Child = {
      instances: group,
      process: proc,
      exited: false,
      label,
      records: group.map((instance) => ({
        config_path: instance.instanceName,
        dir_path: instance.dirPath,
        entrypoint: instance.entrypointPath,
        host: String(getServerInstanceConfig(resolved, instance.instanceName).host ?? headHost),
        name: instance.implementation,
        pid: proc.pid ?? null,
        port: null,
        process_name: instance.instanceName,
        server_type: instance.serverType,
        start_time: Date.now() / 1000,
        status: "starting",
        uptime_seconds: 0,
        url: null,
      })),
    };
    // A co-located process's lines carry its instances' names: each server's own line names itself.
    pipeWithPrefix(proc.stdout, `(${label}) `, log);
    pipeWithPrefix(proc.stderr, `(${label}) `, log);
    proc.on("exit", (code, signal) => {
      child.exited = true;
      for (const record of child.records) record.status = "exited";
      if (!stopping) {
        log(`(launcher) ${label} exited unexpectedly (${signal ?? `code ${code}`}); stopping every server`);
        resolveFirstExit({ instanceName: names[0]!, code, signal });
        void stop();
      }
    });
    children.push(child);
  }

  const each = <T>(work: (child: Child, instance: ServerInstance, record: InstanceRecord) => Promise<T>) =>
    Promise.all(children.flatMap((child) => child.instances.map((instance, i) => work(child, instance, child.records[i]!))));
  try {
    await each(async (child, instance, record) => {
      const message = await waitForMessage(child, instance.instanceName, "listening", readinessTimeoutMs, "bind its port");
      setPort(raw, message.instanceName, message.host, message.port);
      setPort(resolved, message.instanceName, message.host, message.port);
      Object.assign(record, { host: message.host, port: message.port, url: `http://${message.host}:${message.port}` });
    });

    const finalConfig: LauncherMessage = { type: "config", rawYaml: dumpYaml(raw) };
    await Promise.all(
      children.map((child) => {
        const applied = Promise.all(child.instances.map((instance) => waitForMessage(child, instance.instanceName, "config-applied", readinessTimeoutMs, "accept the final config")));
        child.process.send(finalConfig);
        return applied;
      }),
    );

    const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 5000, maxRetries: 5 });
    try {
      await each(async (_child, instance, record) => {
        const answer = await http.request(`${record.url}/`);
        if (!answer.ok) throw new Error(`${instance.instanceName} answered ${answer.status} to GET /`);
        record.status = "running";
      });
    } finally {
      await http.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const records = children.flatMap((child) => child.records);
  log(`(launcher) All ${records.length} / ${records.length} servers ready! Head server: ${head.url}`);
  for (const child of children) {
    child.instances.forEach((instance, i) => {
      const record = child.records[i]!;
      const together = child.instances.length > 1 ? (processesPerGroup > 1 ? ` (co-located in ${processesPerGroup} processes: ${child.label})` : ` (one process: ${child.label})`) : "";
      log(`(launcher)   ${instance.instanceName} (${instance.serverType}/${instance.implementation}) ${record.url} pid ${record.pid}${together}`);
    });
  }
  return { headUrl: head.url, raw, resolved, instances: records, firstExit, stop };
}
