// Replicas of one server instance, each its own process started as the launcher starts a server (child-main.ts with
// NEMO_GYM_CONFIG_DICT / NEMO_GYM_CONFIG_PATH), but by hand: no IPC, so each signs cookies with the config's
// `session_secret` (which they must share) and binds a port of its own.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { stringify } from "yaml";
import { PROJECT_ROOT, type ConfigDict } from "../config/index.ts";

export interface Replica {
  host: string;
  port: number;
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Sends the signal (SIGKILL: no chance to clean up) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const CHILD_MAIN = join(PROJECT_ROOT, "src", "server", "child-main.ts");
const TS_REGISTER = join(PROJECT_ROOT, "bin", "ts-register.js");

export async function startReplica(globalConfig: ConfigDict, instanceName: string, startTimeoutMs = 30_000): Promise<Replica> {
  const child = spawn(process.execPath, ["--import", TS_REGISTER, CHILD_MAIN], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NEMO_GYM_CONFIG_DICT: stringify(globalConfig), NEMO_GYM_CONFIG_PATH: instanceName },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`replica of '${instanceName}' not listening within ${startTimeoutMs} ms:\n${stderr}`)), startTimeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (listening) {
        clearTimeout(timer);
        resolve(Number(listening[1]));
      }
    });
    void exited.then(() => fail(new Error(`replica of '${instanceName}' exited before listening:\n${stderr}`)));
  });
  return {
    host: "127.0.0.1",
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: () => stderr,
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** `count` replicas of the instance, started together. */
export async function startReplicas(globalConfig: ConfigDict, instanceName: string, count: number): Promise<Replica[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startReplica(globalConfig, instanceName)));
  const replicas = started.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed) {
    await Promise.all(replicas.map((replica) => replica.kill("SIGKILL")));
    throw (failed as PromiseRejectedResult).reason;
  }
  return replicas;
}
