// Runs the real `gym` command as a child process and watches its output: for tests of the CLI and of servers run
// the way `gym env start` runs them (one process each). `stop()` ends it (SIGINT, as Ctrl-C, then SIGKILL after a
// grace period); `processesWithMarker` / `waitUntilDead` find and wait out the processes a run left behind.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../config/index.ts";

export const GYM_BIN = join(PROJECT_ROOT, "bin", "gym.js");

export interface GymProcess {
  child: ChildProcess;
  /** stdout and stderr interleaved as they arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGINT), and SIGKILL if it has not exited after `graceMs`; resolves when it has exited. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `gym <args>`; the first argument may be a legacy name such as `ng_run`. */
export function startGym(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): GymProcess {
  const child = spawn(process.execPath, [GYM_BIN, ...args], { cwd: options.cwd ?? PROJECT_ROOT, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  const streams = { stdout: "", stderr: "" };
  const listeners = new Set<() => void>();
  const onData = (stream: keyof typeof streams) => (chunk: Buffer) => {
    text += chunk.toString();
    streams[stream] += chunk.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on("data", onData("stdout"));
  child.stderr!.on("data", onData("stderr"));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  let exitedYet = false;
  void exited.then(() => (exitedYet = true));
  return {
    child,
    output: () => text,
    stdout: () => streams.stdout,
    stderr: () => streams.stderr,
    exited,
    async stop(signal = "SIGINT", graceMs = 10_000) {
      if (!exitedYet) child.kill(signal);
      const timer = setTimeout(() => exitedYet || child.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            done();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`));
        }, timeoutMs);
        const onExit = () => setTimeout(() => {
          if (!text.match(pattern)) {
            done();
            reject(new Error(`gym exited before printing ${pattern}; output:\n${text}`));
          }
        }, 50);
        function done() {
          clearTimeout(timer);
          listeners.delete(check);
          child.off("exit", onExit);
        }
        listeners.add(check);
        child.on("exit", onExit);
        check();
      });
    },
  };
}

export async function runGym(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; output: string; stdout: string; stderr: string }> {
  const gym = startGym(args, options);
  const { code } = await gym.exited;
  // "exit" can come before the pipes are drained (bounded: a grandchild may hold a pipe open).
  const drained = Promise.all([gym.child.stdout!, gym.child.stderr!].map((stream) => (stream.readableEnded ? undefined : new Promise((resolve) => stream.once("end", resolve)))));
  await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  return { code, output: gym.output(), stdout: gym.stdout(), stderr: gym.stderr() };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes whose environment carries `GYM_TEST_MARKER=<marker>` (children inherit it). */
export function processesWithMarker(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(`GYM_TEST_MARKER=${marker}`)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

export async function waitUntilDead(pids: number[], timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pids.every((pid) => !isAlive(pid))) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  return pids.filter(isAlive);
}
