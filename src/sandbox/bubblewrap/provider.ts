// The bubblewrap provider: one bwrap per run (never a reused sandbox), at most `maxConcurrent` at once.
//
// How a run is bounded and observed:
//   - namespaces and the root: args.ts (read it for exactly what exists inside);
//   - rlimits (address space, CPU, processes, open files, file size): prlimit inside the sandbox, see args.ts;
//   - per-run cgroups where writable (cgroups.ts): one memory and one pids limit for the whole run, its CPU time and
//     peak memory, and every process left over — joined by a tiny /bin/sh before it execs bwrap, so nothing of the
//     run ever exists outside them;
//   - wall clock, captured output and the caller's abort: here; each SIGKILLs bwrap's process group;
//   - the end: bwrap's pid 1 exits with the program, and the kernel SIGKILLs everything left in the pid namespace
//     (double-forked, setsid'd daemons included); --die-with-parent does the same if this server dies; the cgroups
//     are then swept for anything left and removed.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { constants as osConstants } from "node:os";
import { performance } from "node:perf_hooks";
import type { Writable } from "node:stream";
import { SandboxUnavailableError } from "../../protocol/errors.ts";
import { Semaphore } from "../../models/semaphore.ts";
import { DEFAULT_LIMITS, resolveLimits } from "../limits.ts";
import { CappedOutput } from "../output.ts";
import { countSandboxError, countSandboxRun } from "../metrics.ts";
import { pythonRuntime, type SandboxRuntime } from "../runtimes.ts";
import type { SandboxLimits, SandboxProvider, SandboxResult, SandboxRunRequest } from "../types.ts";
import { baseRoot, bwrapArgs, checkRunBinds, SANDBOX_UID, sandboxEnv, type SandboxRoot } from "./args.ts";
import { CGROUP_CONTROLLERS, groupFolderName, prepareCgroups, removeGroupTree, RunCgroup, type CgroupController, type CgroupSupport } from "./cgroups.ts";
import { inheritableFds, launchCommand } from "./launcher.ts";
import { bwrapVersion, findExecutable, isExecutable, missingBubblewrap, missingPrlimit, sandboxStartFailure } from "./probe.ts";

export interface BubblewrapOptions {
  /** What the sandbox can run; default: Python (python3 on PATH, resolved to the real interpreter). */
  runtimes?: () => SandboxRuntime[];
  /** This provider's defaults; a request overrides them. */
  limits?: Partial<SandboxLimits>;
  /** Runs at once (NeMo Gym code_gen's `num_processes`); the others wait. Default: the CPUs here. */
  maxConcurrent?: number;
  /** The cgroup v1 controllers to use per run where writable (default all: memory, pids, cpuacct; [] for none). */
  cgroupControllers?: CgroupController[];
  bwrapPath?: string;
  prlimitPath?: string;
}

interface Ready {
  bwrapPath: string;
  root: SandboxRoot;
  runtimes: SandboxRuntime[];
  cgroups: CgroupSupport;
  canDisableUserns: boolean;
  /** bash, for the launcher (dash cannot close a descriptor above 9). */
  shellPath: string | undefined;
  /** Descriptors this server inherited without O_CLOEXEC: closed before bwrap starts. */
  inheritedFds: number[];
  /**
   * Who bwrap runs as, when not as this server. A root server without a pids cgroup starts it as nobody: the kernel
   * never applies RLIMIT_NPROC to uid 0, but does to nobody's processes in their own user namespace.
   */
  launchAs?: { uid: number; gid: number };
  /** A one-byte file each run opens anew and hands bwrap as its --block-fd (see args.ts). */
  setupDoneFile: string;
}

const FIRST_FILE_FD = 4;
const SETUP_DONE_FD = 3;
/** bwrap and its wrapper get this environment only: /proc/1/environ inside shows nothing of the server's. */
const LAUNCHER_ENV = { PATH: "/usr/bin:/bin" };

/** Numbers this process's providers, so that each has cgroup folders of its own (one's close() never removes another's). */
let providerCount = 0;

const signalNames = new Map<number, string>(Object.entries(osConstants.signals).map(([name, number]) => [number, name]));

export class BubblewrapSandbox implements SandboxProvider {
  readonly name = "bubblewrap";
  private readonly limits: SandboxLimits;
  private readonly semaphore: Semaphore;
  private ready?: Promise<Ready>;
  private readonly running = new Set<ChildProcess>();
  private runCount = 0;
  private readonly setupDoneFiles: string[] = [];
  private closed = false;

  constructor(private readonly options: BubblewrapOptions = {}) {
    this.limits = resolveLimits(DEFAULT_LIMITS, options.limits);
    this.semaphore = new Semaphore(Math.max(1, options.maxConcurrent ?? availableParallelism()));
  }

  async ensureAvailable(): Promise<void> {
    try {
      await this.prepare();
    } catch (error) {
      // A server stopped during its start-up check: nothing is unavailable, nobody should be told so.
      if (error instanceof SandboxClosedError) return;
      throw error;
    }
  }

  /** What the provider found (for a startup log line): cgroup controllers in use and the ones missing, with why. */
  async describe(): Promise<{ bwrap: string; runtimes: string[]; cgroups: CgroupSupport }> {
    const ready = await this.prepare();
    return { bwrap: ready.bwrapPath, runtimes: ready.runtimes.map((runtime) => runtime.language), cgroups: ready.cgroups };
  }

  private prepare(): Promise<Ready> {
    // Success is kept; a failure is not, so installing bubblewrap fixes a running server at its next request.
    this.ready ??= this.probe().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async probe(): Promise<Ready> {
    const bwrapPath = this.options.bwrapPath ?? findExecutable("bwrap");
    if (!bwrapPath || !isExecutable(bwrapPath)) throw missingBubblewrap();
    const prlimitPath = this.options.prlimitPath ?? findExecutable("prlimit");
    if (!prlimitPath || !isExecutable(prlimitPath)) throw missingPrlimit();
    const version = bwrapVersion(bwrapPath);
    const canDisableUserns = version !== undefined && (version[0] > 0 || version[1] >= 8);
    const cgroups = prepareCgroups(groupFolderName(process.pid, ++providerCount), this.options.cgroupControllers ?? CGROUP_CONTROLLERS);
    const setupDoneFile = join(mkdtempSync(join(tmpdir(), "nemo-gym-sandbox-")), "setup-done");
    writeFileSync(setupDoneFile, "x");
    try {
      const ready = await this.probeWith(bwrapPath, prlimitPath, canDisableUserns, cgroups, setupDoneFile);
      this.setupDoneFiles.push(setupDoneFile);
      return ready;
    } catch (error) {
      for (const parent of Object.values(cgroups.parents)) removeGroupTree(parent);
      rmSync(dirname(setupDoneFile), { recursive: true, force: true });
      throw error;
    }
  }

  private async probeWith(bwrapPath: string, prlimitPath: string, canDisableUserns: boolean, cgroups: CgroupSupport, setupDoneFile: string): Promise<Ready> {
    const launchAs = process.getuid?.() === 0 && !cgroups.parents.pids ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined;
    const runtimes = (this.options.runtimes ?? (() => [pythonRuntime()]))();
    const shellPath = findExecutable("bash");
    const inheritedFds = inheritableFds();
    if (!shellPath && (inheritedFds.length > 0 || Object.keys(cgroups.parents).length > 0)) {
      throw new SandboxUnavailableError("bash, which starts bwrap inside the run's cgroups and closes inherited descriptors, is not installed", "apt-get install -y bash");
    }
    const ready: Ready = { bwrapPath, root: baseRoot(prlimitPath), runtimes, cgroups, canDisableUserns, shellPath, inheritedFds, launchAs, setupDoneFile };
    // Real sandboxes, every namespace included, one per runtime: a host that refuses a namespace, or a runtime whose
    // files the sandbox cannot bind, fails here with bwrap's own words.
    const limits = resolveLimits(this.limits, { wallMs: 15_000 });
    for (const command of [["/usr/bin/prlimit", "--version"], ...runtimes.map((runtime) => runtime.probeCommand)]) {
      const result = await this.runIn(ready, { command }, limits).catch((error: unknown) => {
        if (error instanceof SandboxUnavailableError && launchAs && /Permission denied/.test(error.reason)) throw unreadableAsNobody(error.reason);
        throw error;
      });
      if (result.exitCode !== 0) throw sandboxStartFailure(result.stderr);
    }
    return ready;
  }

  async run(request: SandboxRunRequest): Promise<SandboxResult> {
    if (this.closed) throw new Error("sandbox provider is closed");
    const limits = resolveLimits(this.limits, request.limits);
    const ready = await this.prepare();
    const release = await this.semaphore.acquire();
    try {
      if (this.closed) throw new Error("sandbox provider is closed");
      if (request.signal?.aborted) throw request.signal.reason ?? new Error("aborted");
      const result = await this.runIn(ready, request, limits);
      countSandboxRun(this.name, result);
      return result;
    } catch (error) {
      countSandboxError(this.name);
      throw error;
    } finally {
      release();
    }
  }

  private async runIn(ready: Ready, request: SandboxRunRequest, limits: SandboxLimits): Promise<SandboxResult> {
    const { argv, files } = commandOf(request, ready.runtimes);
    const runBinds = checkRunBinds(request.readOnlyBinds ?? []);
    const fileEntries = Object.entries(files);
    let cgroup: RunCgroup;
    try {
      cgroup = RunCgroup.create(ready.cgroups.parents, `run-${++this.runCount}`, limits, ready.launchAs);
    } catch (error) {
      throw new SandboxUnavailableError((error as Error).message, "check that nothing else removes or restricts this server's cgroups (the provider creates its own under them)");
    }
    try {
      const args = bwrapArgs({
        root: ready.root,
        runtimes: ready.runtimes,
        runBinds,
        limits,
        files: fileEntries.map(([path], index) => ({ fd: FIRST_FILE_FD + index, path })),
        setupDoneFd: SETUP_DONE_FD,
        env: sandboxEnv(ready.runtimes, request.env),
        argv,
        canDisableUserns: ready.canDisableUserns,
      });
      // Descriptors below the run's own stdio count are replaced by its pipes; the rest are closed.
      const closeFds = ready.inheritedFds.filter((fd) => fd >= FIRST_FILE_FD + fileEntries.length);
      const launch = launchCommand(ready.shellPath, ready.bwrapPath, args, cgroup.procsFiles, closeFds);
      const setupDone = openSync(ready.setupDoneFile, "r");
      try {
        return await this.spawnRun(launch.file, launch.args, fileEntries, request, limits, cgroup, ready.launchAs, setupDone);
      } finally {
        closeSync(setupDone);
      }
    } finally {
      await cgroup.destroy();
    }
  }

  private spawnRun(
    file: string,
    args: string[],
    files: [string, string | Uint8Array][],
    request: SandboxRunRequest,
    limits: SandboxLimits,
    cgroup: RunCgroup,
    launchAs: Ready["launchAs"],
    setupDoneFd: number,
  ): Promise<SandboxResult> {
    return new Promise((resolve, reject) => {
      const stdio: StdioOptions = ["pipe", "pipe", "pipe", setupDoneFd, ...files.map(() => "pipe" as const)];
      const started = performance.now();
      // detached: a process group of its own, so one kill reaches the wrapper and bwrap.
      const child = spawn(file, args, { stdio, detached: true, env: LAUNCHER_ENV, cwd: "/", ...launchAs });
      this.running.add(child);
      let killedBy: "wall" | "output" | "abort" | "close" | undefined;
      const kill = (why: NonNullable<typeof killedBy>) => {
        killedBy ??= why;
        killGroup(child);
      };
      const stdout = new CappedOutput(child.stdout!, limits.outputBytes, () => kill("output"));
      const stderr = new CappedOutput(child.stderr!, limits.outputBytes, () => kill("output"));
      files.forEach(([, content], index) => {
        const stream = child.stdio[FIRST_FILE_FD + index] as Writable;
        stream.on("error", () => {});
        stream.end(typeof content === "string" ? content : Buffer.from(content));
      });
      child.stdin!.on("error", () => {}); // EPIPE: the program did not read all of its stdin
      child.stdin!.end(request.stdin === undefined ? undefined : typeof request.stdin === "string" ? request.stdin : Buffer.from(request.stdin));
      const wallTimer = setTimeout(() => kill("wall"), limits.wallMs);
      const onAbort = () => kill("abort");
      request.signal?.addEventListener("abort", onAbort, { once: true });
      let exitedAt: number | undefined;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let streamsTimer: NodeJS.Timeout | undefined;
      child.on("exit", (code, signal) => {
        exitedAt = performance.now();
        exit = { code, signal };
        // Everything holding the pipes died with the pid namespace; this only guards against a pipe held elsewhere.
        streamsTimer = setTimeout(() => child.stdio.forEach((stream) => stream?.destroy()), 2000);
      });
      child.on("error", (error) => {
        clearTimeout(wallTimer);
        this.running.delete(child);
        reject(new SandboxUnavailableError(`cannot start ${file}: ${error.message}`, "check that bubblewrap is installed (apt-get install -y bubblewrap)"));
      });
      child.on("close", () => {
        clearTimeout(wallTimer);
        clearTimeout(streamsTimer);
        request.signal?.removeEventListener("abort", onAbort);
        this.running.delete(child);
        killGroup(child);
        if (!exit) return;
        const wallMs = (exitedAt ?? performance.now()) - started;
        // bwrap reads the byte only once the sandbox is fully built; the offset it moved is shared with our descriptor.
        const sandboxBuilt = readSync(setupDoneFd, Buffer.alloc(1), 0, 1, null) === 0;
        if (!sandboxBuilt && killedBy === undefined) {
          // close() kills what is still starting (a server stopped during its start-up check): not bwrap's failure.
          reject(this.closed ? new SandboxClosedError() : sandboxStartFailure(stderr.text()));
          return;
        }
        const { exitCode, signal } = decodeExit(exit.code, exit.signal);
        const cpuMs = cgroup.cpuMs();
        const cpuLimitHit = signal === "SIGXCPU" || (signal === "SIGKILL" && cpuMs !== null && cpuMs >= limits.cpuMs);
        resolve({
          exitCode,
          signal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          timedOut: killedBy === "wall" || cpuLimitHit,
          outputTruncated: stdout.truncated || stderr.truncated,
          cpuMs,
          wallMs,
          maxRssKb: cgroup.maxRssKb(),
        });
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const child of this.running) killGroup(child);
    const deadline = Date.now() + 5000;
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const ready = await this.ready?.catch(() => undefined);
    for (const parent of Object.values(ready?.cgroups.parents ?? {})) removeGroupTree(parent);
    for (const file of this.setupDoneFiles.splice(0)) rmSync(dirname(file), { recursive: true, force: true });
  }
}

/** A run cut short because its provider was closing (the server stopping); nobody is waiting for its answer. */
export class SandboxClosedError extends SandboxUnavailableError {
  constructor() {
    super("the sandbox provider closed while this run was starting (the server is stopping)", "nothing to fix: start the server again");
  }
}

function unreadableAsNobody(reason: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `${reason}; bwrap runs as nobody (uid ${SANDBOX_UID}) because this server is root without a writable pids cgroup (the kernel never applies RLIMIT_NPROC to uid 0), and nobody cannot read that path`,
    "use an interpreter every user can read (apt-get install -y python3, then the runtime's interpreter /usr/bin/python3), or give the server a writable cgroup v1 pids hierarchy, or run it as a non-root user",
  );
}

function killGroup(child: ChildProcess) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is gone
  }
}

/**
 * bwrap exits with the program's status, and with 128 + n when a signal n ended it (as a shell reports it): such a
 * status is read as that signal. A program that itself exits with 129…192 is read as signalled too (documented).
 * When this server killed bwrap, Node reports the signal directly.
 */
function decodeExit(code: number | null, signal: NodeJS.Signals | null): { exitCode: number | null; signal: string | null } {
  if (signal !== null) return { exitCode: null, signal };
  if (code !== null && code > 128 && signalNames.has(code - 128)) return { exitCode: null, signal: signalNames.get(code - 128)! };
  return { exitCode: code, signal: null };
}

/** A safe work-dir-relative path: no absolute paths, no `..`, no empty segments. */
const SAFE_PATH = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[^/\0][^\0]*$/;

function commandOf(request: SandboxRunRequest, runtimes: SandboxRuntime[]): { argv: string[]; files: Record<string, string | Uint8Array> } {
  const files = { ...(request.files ?? {}) };
  for (const path of Object.keys(files)) {
    if (!SAFE_PATH.test(path) || path.includes("//") || path.endsWith("/")) throw new TypeError(`sandbox files: ${JSON.stringify(path)} is not a relative path inside the work dir`);
  }
  if ((request.command === undefined) === (request.program === undefined)) throw new TypeError("a sandbox run needs exactly one of `command` and `program`");
  if (request.command) {
    if (request.command.length === 0) throw new TypeError("sandbox command: empty argv");
    return { argv: request.command, files };
  }
  const program = request.program!;
  const runtime = runtimes.find((candidate) => candidate.language === program.language);
  if (!runtime) throw new TypeError(`sandbox program: no ${JSON.stringify(program.language)} runtime; this provider runs ${runtimes.map((r) => r.language).join(", ")}`);
  if (runtime.programFile in files) throw new TypeError(`sandbox files: ${runtime.programFile} is the program's own file`);
  files[runtime.programFile] = program.source;
  return { argv: runtime.programCommand(runtime.programFile, program.args ?? []), files };
}
