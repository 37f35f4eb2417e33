// The bwrap command line of one run: which namespaces, which files exist inside, which limits bind the program.
// A pure function of its inputs, so what a sandbox contains can be read (and tested) without starting one.
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import type { SandboxLimits } from "../types.ts";
import type { ReadOnlyBind, SandboxRuntime } from "../runtimes.ts";

/** The program's working directory inside: a fresh tmpfs, the only writable place besides /tmp and /dev/shm. */
export const WORK_DIR = "/work";
/** The uid and gid the program runs as inside its user namespace (nobody). */
export const SANDBOX_UID = 65534;

export interface SandboxRoot {
  binds: ReadOnlyBind[];
  symlinks: { target: string; link: string }[];
}

/**
 * The read-only root every run gets: the shared libraries and the dynamic loader (/usr/lib, /usr/lib64 and their
 * /lib, /lib64 names), the loader's cache, and prlimit (which applies the rlimits). No /etc beyond ld.so.cache, no
 * /home, /root, /run, /var, /srv, no project folder: a runtime binds its own interpreter on top.
 */
export function baseRoot(prlimitPath: string): SandboxRoot {
  const root: SandboxRoot = { binds: [], symlinks: [] };
  for (const dir of ["/usr/lib", "/usr/lib64", "/usr/lib32"]) if (existsSync(dir)) root.binds.push({ source: dir, dest: dir });
  // Merged /usr (Debian ≥ 12, Ubuntu, Fedora): /lib is a symlink, recreated as one; otherwise the directory is bound.
  for (const dir of ["/lib", "/lib64", "/lib32", "/bin"]) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) root.symlinks.push({ target: readlinkSync(dir), link: dir });
    else if (dir !== "/bin") root.binds.push({ source: dir, dest: dir });
  }
  if (existsSync("/etc/ld.so.cache")) root.binds.push({ source: "/etc/ld.so.cache", dest: "/etc/ld.so.cache" });
  root.binds.push({ source: prlimitPath, dest: "/usr/bin/prlimit" });
  return root;
}

export interface BwrapInvocation {
  root: SandboxRoot;
  runtimes: SandboxRuntime[];
  limits: SandboxLimits;
  /** This run's own read-only binds (checked by checkRunBinds), mounted after the tmpfs dirs so they may sit in them. */
  runBinds?: ReadOnlyBind[];
  /** Files to copy into the work dir: the fd bwrap reads each from, and its path relative to the work dir. */
  files: { fd: number; path: string }[];
  /**
   * An fd of a one-byte file that bwrap reads once setup is done (--block-fd: after every mount, the pivot and the
   * privilege drop, right before the exec). The file offset is shared with the server's own descriptor, so the server
   * can tell afterwards whether the sandbox was fully built or bwrap failed building it.
   */
  setupDoneFd: number;
  env: Record<string, string>;
  argv: string[];
  /** bwrap ≥ 0.8 can forbid user namespaces inside the sandbox (one less kernel surface). */
  canDisableUserns: boolean;
}

/** Environment variable names a request may set (the allowlist is the provider's; a request only adds). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The directories a set of work-dir files needs created first, parents before children. */
function parentDirs(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return [...dirs].sort((a, b) => a.split("/").length - b.split("/").length);
}

/** The rlimits, applied by prlimit inside the sandbox, after the user namespace exists (so nproc counts this run only). */
export function prlimitArgs(limits: SandboxLimits): string[] {
  const cpuSeconds = Math.max(1, Math.ceil(limits.cpuMs / 1000));
  return [
    "/usr/bin/prlimit",
    `--as=${limits.memoryBytes}`,
    // SIGXCPU at the soft limit, SIGKILL one second later for a program that ignores it.
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--nproc=${limits.processes}`,
    `--nofile=${limits.openFiles}`,
    `--stack=${limits.stackBytes}:unlimited`,
    `--fsize=${limits.fileSizeBytes}`,
    "--core=0",
    "--",
  ];
}

export function bwrapArgs(invocation: BwrapInvocation): string[] {
  const { root, runtimes, limits } = invocation;
  const args = [
    // Every namespace bwrap offers: own users, pids (only the run's processes in /proc; all die with its pid 1),
    // network (only a loopback of its own), IPC (own SysV/POSIX queues), hostname, cgroup view.
    "--unshare-user",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup",
    ...(invocation.canDisableUserns ? ["--disable-userns"] : []),
    "--die-with-parent",
    // A session of its own: no TIOCSTI into a terminal, no signals to the caller's process group.
    "--new-session",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--hostname",
    "sandbox",
  ];
  const binds = [...root.binds, ...runtimes.flatMap((runtime) => runtime.binds)];
  for (const bind of binds) args.push("--ro-bind", bind.source, bind.dest);
  for (const link of [...root.symlinks, ...runtimes.flatMap((runtime) => runtime.symlinks)]) args.push("--symlink", link.target, link.link);
  args.push("--proc", "/proc", "--dev", "/dev");
  const size = String(limits.workDirBytes);
  args.push("--size", size, "--tmpfs", "/dev/shm", "--size", size, "--tmpfs", "/tmp");
  args.push("--size", size, "--perms", "0755", "--tmpfs", WORK_DIR);
  for (const dir of parentDirs(invocation.files.map((file) => file.path))) args.push("--perms", "0755", "--dir", `${WORK_DIR}/${dir}`);
  for (const file of invocation.files) args.push("--perms", "0644", "--file", String(file.fd), `${WORK_DIR}/${file.path}`);
  for (const bind of invocation.runBinds ?? []) args.push("--ro-bind", bind.source, bind.dest);
  args.push("--chdir", WORK_DIR, "--remount-ro", "/");
  args.push("--block-fd", String(invocation.setupDoneFd));
  args.push("--clearenv");
  for (const [name, value] of Object.entries(invocation.env)) args.push("--setenv", name, value);
  args.push("--", ...prlimitArgs(limits), ...invocation.argv);
  return args;
}

/** Where a run's own bind may not go: the root's and the runtimes' system directories, the kernel's filesystems. */
const SYSTEM_DIRS = ["usr", "lib", "lib32", "lib64", "bin", "sbin", "etc", "proc", "dev", "sys", "opt"];

/**
 * A request's read-only binds as bwrap binds, or a TypeError naming the first bad one: the sandbox path must be
 * absolute and normalised (no `.`, `..` or empty segments), outside SYSTEM_DIRS (a bind there would replace the
 * libraries or the interpreter every run trusts), not the work dir itself; the host path must exist.
 */
export function checkRunBinds(binds: { host: string; sandbox: string }[], exists: (path: string) => boolean = existsSync): ReadOnlyBind[] {
  return binds.map(({ host, sandbox }) => {
    const where = `sandbox readOnlyBinds: ${JSON.stringify(sandbox)}`;
    if (typeof host !== "string" || typeof sandbox !== "string" || host.includes("\0") || sandbox.includes("\0")) throw new TypeError(`${where}: host and sandbox must be paths`);
    const segments = sandbox.split("/").slice(1);
    if (!sandbox.startsWith("/") || segments.some((segment) => segment === "" || segment === "." || segment === "..")) throw new TypeError(`${where} is not an absolute, normalised path`);
    if (SYSTEM_DIRS.includes(segments[0]!)) throw new TypeError(`${where} is inside /${segments[0]}, which the sandbox's own root holds`);
    if (sandbox === WORK_DIR || sandbox === "/tmp" || sandbox === "/dev/shm") throw new TypeError(`${where} would replace a writable dir; bind below it instead`);
    if (!exists(host)) throw new TypeError(`${where}: the host path ${JSON.stringify(host)} does not exist`);
    return { source: host, dest: sandbox };
  });
}

/** The allowlisted environment: nothing of the server's own environment is passed on. */
export function sandboxEnv(runtimes: SandboxRuntime[], extra: Record<string, string> = {}): Record<string, string> {
  const path = [...new Set([...runtimes.flatMap((runtime) => runtime.path), "/usr/bin", "/bin"])].join(":");
  const env: Record<string, string> = { PATH: path, HOME: WORK_DIR, TMPDIR: "/tmp", LANG: "C.UTF-8" };
  for (const runtime of runtimes) Object.assign(env, runtime.env);
  for (const [name, value] of Object.entries(extra)) {
    if (!ENV_NAME.test(name)) throw new TypeError(`sandbox env: ${JSON.stringify(name)} is not an environment variable name`);
    env[name] = value;
  }
  return env;
}
