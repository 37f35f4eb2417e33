// What starts bwrap: directly, or — when the run has cgroups to join or there are inherited file descriptors to
// close — a shell that does both and then execs bwrap, so that not one instruction of the run happens outside its
// cgroups and no descriptor of this server reaches the program.
//
// Why descriptors: Node opens its own with O_CLOEXEC, but whatever this server inherited without it (a supervisor's
// pipe, a log file, a socket) is inherited again by every child, and neither bwrap nor prlimit closes it.
import { readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/** This process's descriptors ≥ 3 that a child would inherit (no O_CLOEXEC), read from /proc/self/fdinfo. */
export function inheritableFds(): number[] {
  const fds: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fdinfo");
  } catch {
    return [];
  }
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${entry}`, "utf8"));
      if (flags && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) fds.push(fd);
    } catch {
      // closed while we looked (the readdir's own descriptor, among others)
    }
  }
  return fds.sort((a, b) => a - b);
}

export interface Launch {
  file: string;
  args: string[];
}

/**
 * The command that runs `bwrap args`: joining `procsFiles` (cgroup.procs of the run's groups) and closing `closeFds`
 * first when there are any. The paths travel as arguments, never inside the script text; the fds are integers.
 */
export function launchCommand(shellPath: string | undefined, bwrapPath: string, bwrapArgs: string[], procsFiles: string[], closeFds: number[]): Launch {
  if (procsFiles.length === 0 && closeFds.length === 0) return { file: bwrapPath, args: bwrapArgs };
  if (!shellPath) throw new Error("a shell is needed to join cgroups or close inherited descriptors");
  const closing = closeFds.map((fd) => `exec ${Math.trunc(fd)}>&-`).join("; ");
  const script = [
    'p=$$; while [ "$1" != "--" ]; do echo "$p" > "$1" || { echo "nemo-gym sandbox: cannot join cgroup $1" >&2; exit 125; }; shift; done; shift',
    closing,
    'exec "$@"',
  ]
    .filter((part) => part !== "")
    .join("; ");
  // --norc: bash reads ~/.bashrc when its stdin is a socket (Node's pipes are socketpairs), as if started by rshd.
  return { file: shellPath, args: ["--norc", "--noprofile", "-c", script, "sandbox-launcher", ...procsFiles, "--", bwrapPath, ...bwrapArgs] };
}
