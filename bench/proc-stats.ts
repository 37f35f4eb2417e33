// What the benchmarks read about other processes from Linux's /proc: CPU time (utime + stime), peak
// resident memory (VmHWM, which `clear_refs` resets so each measured phase gets its own peak), and the
// number of open file descriptors. Every reader returns null where /proc is unavailable (not Linux, or
// the process is gone) rather than throwing, so a benchmark still prints what it could measure.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

let clockTicks: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat's times (almost always 100). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU time of a process so far, in ms (10 ms resolution at 100 ticks/s). */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces and parentheses): state is field 3,
    // utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
  } catch {
    return null;
  }
}

function statusField(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Peak resident set size (VmHWM) since the process started or since `resetPeakRss`, in bytes. */
export const peakRssBytes = (pid: number) => statusField(pid, "VmHWM");
export const rssBytes = (pid: number) => statusField(pid, "VmRSS");

/** Resets VmHWM to the current RSS (Linux ≥ 4.0, own processes). False when not possible. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

export function openFds(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** The soft limit on open files of a process ("Max open files" in /proc/<pid>/limits). */
export function openFileLimit(pid: number | "self" = "self"): number | null {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
    return match ? (match[1] === "unlimited" ? Infinity : Number(match[1])) : null;
  } catch {
    return null;
  }
}

/**
 * TCP counters of this network namespace (/proc/net/netstat): connections dropped because a listening
 * socket's accept queue was full, and SYNs sent again (a dropped connection attempt is retried after 1 s,
 * 3 s, 7 s, …). Shared by every process on the machine, so only meaningful while nothing else is busy.
 */
export function tcpCounters(): { listenOverflows: number; synRetransmits: number } | null {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8").split("\n").filter((line) => line.startsWith("TcpExt:"));
    const names = lines[0]!.split(/\s+/);
    const values = lines[1]!.split(/\s+/).map(Number);
    const value = (name: string) => values[names.indexOf(name)] ?? NaN;
    return { listenOverflows: value("ListenOverflows"), synRetransmits: value("TCPSynRetrans") };
  } catch {
    return null;
  }
}

/**
 * Connections waiting to be accepted, per listening port (the LISTEN sockets' rx_queue in /proc/net/tcp and
 * tcp6): what a server has not yet taken off the kernel's accept queue.
 */
export function acceptQueues(ports: number[]): Map<number, number> {
  const wanted = new Set(ports);
  const queues = new Map<number, number>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      // "  sl  local_address rem_address   st tx_queue:rx_queue …"; st 0A = LISTEN.
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== "0A") continue;
      const port = parseInt(fields[1]!.slice(fields[1]!.lastIndexOf(":") + 1), 16);
      if (!wanted.has(port)) continue;
      const rx = parseInt(fields[4]!.split(":")[1]!, 16);
      queues.set(port, Math.max(queues.get(port) ?? 0, rx));
    }
  }
  return queues;
}

/** `pid` and its live descendants (a cluster primary and its workers), from /proc/<pid>/task/<tid>/children. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${tree[i]}/task`)) {
        const children = readFileSync(`/proc/${tree[i]}/task/${task}/children`, "utf8").trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // gone, or no children file (older kernels): what was found
    }
  }
  return tree;
}

/** Sums `read` over `pids`; null when none could be read. */
export function sumOver(pids: number[], read: (pid: number) => number | null): number | null {
  const values = pids.map(read).filter((value): value is number => value !== null);
  return values.length ? values.reduce((a, b) => a + b, 0) : null;
}
