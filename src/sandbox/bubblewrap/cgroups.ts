// Per-run cgroups (cgroup v1: memory, pids, cpuacct), where this process may create them. They give what rlimits
// cannot: one memory limit and one process limit for the whole run (rlimits bind each process alone, and RLIMIT_NPROC
// does not bind uid 0 at all), the CPU time of every process including the ones that exited unwaited-for, the peak
// memory, and a list of every process left to kill. cgroup v2 (one unified tree) is not used yet: on a v2-only host
// the provider falls back to rlimits and reports cpuMs/maxRssKb as null (see README.md).
import { chownSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export type CgroupController = "memory" | "pids" | "cpuacct";
export const CGROUP_CONTROLLERS: readonly CgroupController[] = ["memory", "pids", "cpuacct"];
const CONTROLLERS = CGROUP_CONTROLLERS;

/** Where each controller's per-run groups go: a folder this process created inside its own cgroup. */
export type CgroupParents = Partial<Record<CgroupController, string>>;

export interface CgroupSupport {
  parents: CgroupParents;
  /** Why a controller is not used, by controller. */
  missing: Partial<Record<CgroupController, string>>;
}

interface V1Mount {
  mountPoint: string;
  /** The part of the hierarchy mounted there ("/" unless a container mounts its own subtree). */
  root: string;
  controllers: string[];
}

function v1Mounts(): V1Mount[] {
  const mounts: V1Mount[] = [];
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const [before, after] = line.split(" - ");
    if (!before || !after) continue;
    const [fsType, , superOptions] = after.split(" ");
    if (fsType !== "cgroup" || !superOptions) continue;
    const fields = before.split(" ");
    mounts.push({ root: fields[3]!, mountPoint: fields[4]!, controllers: superOptions.split(",") });
  }
  return mounts;
}

/** This process's cgroup path per v1 controller, from /proc/self/cgroup ("4:memory:/a/b"). */
function ownPaths(): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match || match[1] === "") continue;
    for (const controller of match[1]!.split(",")) paths.set(controller, match[2]!);
  }
  return paths;
}

/**
 * Creates `<own cgroup>/<folderName>` for each controller that allows it. Never throws: a controller that cannot be
 * used is named in `missing` with the reason.
 */
export function prepareCgroups(folderName: string, controllers: readonly CgroupController[] = CONTROLLERS): CgroupSupport {
  const support: CgroupSupport = { parents: {}, missing: {} };
  for (const controller of CONTROLLERS) if (!controllers.includes(controller)) support.missing[controller] = "not asked for in the provider's options";
  if (controllers.length === 0) return support;
  let mounts: V1Mount[] = [];
  let own = new Map<string, string>();
  try {
    mounts = v1Mounts();
    own = ownPaths();
  } catch (error) {
    for (const controller of CONTROLLERS) support.missing[controller] = `cannot read /proc/self/mountinfo or /proc/self/cgroup: ${(error as Error).message}`;
    return support;
  }
  for (const controller of controllers) {
    const mount = mounts.find((m) => m.controllers.includes(controller));
    const path = own.get(controller);
    if (!mount || path === undefined) {
      support.missing[controller] = "no cgroup v1 hierarchy with this controller is mounted";
      continue;
    }
    const inMount = mount.root === "/" ? path : path.startsWith(mount.root) ? path.slice(mount.root.length) : undefined;
    if (inMount === undefined) {
      support.missing[controller] = `this process's cgroup ${path} is outside the mounted part ${mount.root}`;
      continue;
    }
    const parent = join(mount.mountPoint, inMount, folderName);
    removeStaleGroups(dirname(parent));
    try {
      mkdirSync(parent, { recursive: true });
      support.parents[controller] = parent;
    } catch (error) {
      support.missing[controller] = `cannot create ${parent}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    }
  }
  return support;
}

/** The folder name of a provider's groups: `nemo-gym-sandbox-<server pid>-<provider number>`. */
export const groupFolderName = (pid: number, providerNumber: number) => `nemo-gym-sandbox-${pid}-${providerNumber}`;
const GROUP_FOLDER = /^nemo-gym-sandbox-(\d+)(?:-\d+)?$/;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Removes the (empty) groups a server that died without closing its provider left in `dir`. */
function removeStaleGroups(dir: string) {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = GROUP_FOLDER.exec(entry);
    if (!match || isAlive(Number(match[1]))) continue;
    removeGroupTree(join(dir, entry));
  }
}

/** rmdir of a group and its child groups (a cgroup folder holds only control files, which rmdir takes with it). */
export function removeGroupTree(dir: string) {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeGroupTree(join(dir, entry.name));
    rmdirSync(dir);
  } catch {
    // still in use, or already gone
  }
}

const readNumber = (path: string): number | undefined => {
  try {
    const value = Number(readFileSync(path, "utf8").trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** One run's groups: created before the run, joined by its first process, read and removed after it. */
export class RunCgroup {
  private constructor(private readonly dirs: Partial<Record<CgroupController, string>>) {}

  /**
   * Creates the run's groups with their limits. Throws when one of them cannot be made: the provider relies on every
   * controller it found at startup (as root, the pids group is the only process limit), so a run never goes without.
   */
  static create(parents: CgroupParents, runName: string, limits: { memoryBytes: number; processes: number }, joiner?: { uid: number; gid: number }): RunCgroup {
    const dirs: Partial<Record<CgroupController, string>> = {};
    for (const controller of CONTROLLERS) {
      const parent = parents[controller];
      if (!parent) continue;
      const dir = join(parent, runName);
      try {
        // recursive: a parent another server's stale-group sweep removed (it cannot see our pid) comes back.
        mkdirSync(dir, { recursive: true });
        dirs[controller] = dir;
        if (controller === "memory") {
          writeFileSync(join(dir, "memory.limit_in_bytes"), String(limits.memoryBytes));
          // No swap here to escape into; where there is, memsw bounds memory + swap (absent without swap accounting).
          try {
            writeFileSync(join(dir, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes));
          } catch {
            // swap accounting off: memory.limit_in_bytes alone
          }
        }
        if (controller === "pids") writeFileSync(join(dir, "pids.max"), String(limits.processes));
        // A launcher that is not root may still move itself in: it owns the group's cgroup.procs, nothing else.
        if (joiner) chownSync(join(dir, "cgroup.procs"), joiner.uid, joiner.gid);
      } catch (error) {
        for (const made of Object.values(dirs)) removeGroupTree(made);
        throw new Error(`cannot create the run's ${controller} cgroup ${dir}: ${(error as Error).message}`);
      }
    }
    return new RunCgroup(dirs);
  }

  /** The cgroup.procs files the run's first process writes its pid to before it starts anything. */
  get procsFiles(): string[] {
    return Object.values(this.dirs).map((dir) => join(dir, "cgroup.procs"));
  }

  has(controller: CgroupController): boolean {
    return this.dirs[controller] !== undefined;
  }

  /** CPU time of every task that ever ran in the group (cpuacct.usage, nanoseconds), in ms. */
  cpuMs(): number | null {
    const dir = this.dirs.cpuacct;
    const ns = dir ? readNumber(join(dir, "cpuacct.usage")) : undefined;
    return ns === undefined ? null : ns / 1e6;
  }

  /** Peak memory charged to the group (memory.max_usage_in_bytes: anonymous memory, page cache, tmpfs files), KiB. */
  maxRssKb(): number | null {
    const dir = this.dirs.memory;
    const bytes = dir ? readNumber(join(dir, "memory.max_usage_in_bytes")) : undefined;
    return bytes === undefined ? null : Math.round(bytes / 1024);
  }

  /** The memory limit was hit (the kernel refused or reclaimed at least once). */
  hitMemoryLimit(): boolean {
    const dir = this.dirs.memory;
    return dir !== undefined && (readNumber(join(dir, "memory.failcnt")) ?? 0) > 0;
  }

  /** Pids still in any of the groups. */
  remainingPids(): number[] {
    const pids = new Set<number>();
    for (const file of this.procsFiles) {
      try {
        for (const line of readFileSync(file, "utf8").split("\n")) if (line.trim() !== "") pids.add(Number(line));
      } catch {
        // group already gone
      }
    }
    return [...pids];
  }

  /** SIGKILLs whatever is still in the groups until they are empty, then removes them. */
  async destroy(): Promise<void> {
    for (let round = 0; round < 1000; round++) {
      const pids = this.remainingPids();
      if (pids.length === 0) break;
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // exited meanwhile
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    for (const dir of Object.values(this.dirs)) {
      for (let attempt = 0; attempt < 500; attempt++) {
        try {
          rmdirSync(dir);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
          // EBUSY: the last task is still being reaped
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
    }
  }
}
