// Samples the benchmarked processes from /proc every few hundred ms — open descriptors and each server's
// accept queue — in a process of its own, so the sampling's CPU never counts as the collector's.
// Protocol (IPC): { type: "start", pids, ports, intervalMs } → sampling; { type: "stop" } → answers
// { type: "peaks", openFds, acceptQueue } with the peaks since "start". Exits when its parent goes.
import { acceptQueues, openFds } from "./proc-stats.ts";

export type SamplerRequest = { type: "start"; pids: Record<string, number>; ports: Record<string, number>; intervalMs: number } | { type: "stop" };
export type SamplerPeaks = { type: "peaks"; openFds: Record<string, number | null>; acceptQueue: Record<string, number> };

let timer: NodeJS.Timeout | undefined;
let peaks: SamplerPeaks = { type: "peaks", openFds: {}, acceptQueue: {} };
let target: { pids: Record<string, number>; ports: Record<string, number> } = { pids: {}, ports: {} };

function sample(): void {
  for (const [role, pid] of Object.entries(target.pids)) {
    const fds = openFds(pid);
    if (fds !== null) peaks.openFds[role] = Math.max(peaks.openFds[role] ?? 0, fds);
    else peaks.openFds[role] ??= null;
  }
  const queues = acceptQueues(Object.values(target.ports));
  for (const [role, port] of Object.entries(target.ports)) peaks.acceptQueue[role] = Math.max(peaks.acceptQueue[role] ?? 0, queues.get(port) ?? 0);
}

process.on("message", (message: SamplerRequest) => {
  if (message.type === "start") {
    if (timer) clearInterval(timer);
    target = { pids: message.pids, ports: message.ports };
    peaks = { type: "peaks", openFds: {}, acceptQueue: {} };
    sample();
    timer = setInterval(sample, message.intervalMs);
  } else if (message.type === "stop") {
    if (timer) clearInterval(timer);
    timer = undefined;
    sample();
    process.send?.(peaks);
  }
});
process.on("disconnect", () => process.exit(0));
process.send?.({ type: "ready" });
