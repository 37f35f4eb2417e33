// Starts every server instance of a config as its own child process. Each child binds first (port 0 unless
// the config fixes one) and reports its port, so there is no window in which two servers race for one port;
// the launcher then hands every child the final config, checks liveness, and supervises: Ctrl-C, SIGTERM or
// any child's death stops the whole group, children first, and no process is left behind.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { ConfigError, dumpYaml, envYamlPathsOf, getServerInstanceConfig, listServerInstances, type ConfigDict, type ServerInstance } from "../config/index.ts";
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

interface Child {
  instance: ServerInstance;
  process: ChildProcess;
  record: InstanceRecord;
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

function waitForMessage(child: Child, accept: (m: ChildMessage) => boolean, timeoutMs: number, what: string): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${child.instance.instanceName} did not ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type === "failed") {
        // A config mistake (a busy port, a bad field) is the user's to fix: one line; anything else keeps its stack.
        const text = `${child.instance.instanceName} failed to start: ${message.error}`;
        done(message.userError ? new ConfigError(text) : new Error(text));
      } else if (accept(message)) done(undefined, message);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${child.instance.instanceName} exited (${signal ?? `code ${code}`}) before it could ${what}; its output is above`));
    function done(error?: Error, message?: ChildMessage) {
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
      instances: () => children.map((c) => ({ ...c.record, uptime_seconds: (Date.now() / 1000) - c.record.start_time })),
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
  for (const instance of instances) {
    const fields = getServerInstanceConfig(resolved, instance.instanceName);
    const proc = spawn(process.execPath, [...childNodeArgs, "--import", TS_LOADER, CHILD_MAIN], {
      cwd: process.cwd(),
      env: { ...childEnv, NEMO_GYM_CONFIG_PATH: instance.instanceName },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    proc.send(secrets);
    const child: Child = {
      instance,
      process: proc,
      exited: false,
      record: {
        config_path: instance.instanceName,
        dir_path: instance.dirPath,
        entrypoint: instance.entrypointPath,
        host: String(fields.host ?? headHost),
        name: instance.implementation,
        pid: proc.pid ?? null,
        port: null,
        process_name: instance.instanceName,
        server_type: instance.serverType,
        start_time: Date.now() / 1000,
        status: "starting",
        uptime_seconds: 0,
        url: null,
      },
    };
    pipeWithPrefix(proc.stdout, `(${instance.instanceName}) `, log);
    pipeWithPrefix(proc.stderr, `(${instance.instanceName}) `, log);
    proc.on("exit", (code, signal) => {
      child.exited = true;
      child.record.status = "exited";
      if (!stopping) {
        log(`(launcher) ${instance.instanceName} exited unexpectedly (${signal ?? `code ${code}`}); stopping every server`);
        resolveFirstExit({ instanceName: instance.instanceName, code, signal });
        void stop();
      }
    });
    children.push(child);
  }

  try {
    const listening = await Promise.all(children.map((c) => waitForMessage(c, (m) => m.type === "listening", readinessTimeoutMs, "bind its port")));
    listening.forEach((message, i) => {
      if (message.type !== "listening") return;
      const child = children[i]!;
      setPort(raw, message.instanceName, message.host, message.port);
      setPort(resolved, message.instanceName, message.host, message.port);
      Object.assign(child.record, { host: message.host, port: message.port, url: `http://${message.host}:${message.port}` });
    });

    const finalConfig: LauncherMessage = { type: "config", rawYaml: dumpYaml(raw) };
    await Promise.all(
      children.map((c) => {
        const applied = waitForMessage(c, (m) => m.type === "config-applied", readinessTimeoutMs, "accept the final config");
        c.process.send(finalConfig);
        return applied;
      }),
    );

    const http = new HttpClient({ connectTimeoutMs: 2000, deadlineMs: 5000, maxRetries: 5 });
    try {
      await Promise.all(children.map(async (c) => {
        const answer = await http.request(`${c.record.url}/`);
        if (!answer.ok) throw new Error(`${c.instance.instanceName} answered ${answer.status} to GET /`);
        c.record.status = "running";
      }));
    } finally {
      await http.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }

  log(`(launcher) All ${children.length} / ${children.length} servers ready! Head server: ${head.url}`);
  for (const c of children) log(`(launcher)   ${c.instance.instanceName} (${c.instance.serverType}/${c.instance.implementation}) ${c.record.url} pid ${c.record.pid}`);
  return { headUrl: head.url, raw, resolved, instances: children.map((c) => c.record), firstExit, stop };
}
