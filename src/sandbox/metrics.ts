// Sandbox runs and kills, for the whole process (a provider is shared by the sessions of a server): Prometheus
// counters on the process registry, which every server's GET /metrics appends.
import { Counter } from "prom-client";
import { processRegistry } from "../metrics/process-metrics.ts";
import type { SandboxResult } from "./types.ts";

const runs = new Counter({
  name: "gym_sandbox_runs_total",
  help: "Sandboxed runs, by provider and how they ended (exited, nonzero_exit, crashed: a signal of its own, killed, error: no result)",
  labelNames: ["provider", "outcome"] as const,
  registers: [processRegistry],
});
const kills = new Counter({
  name: "gym_sandbox_kills_total",
  help: "Sandboxed runs ended by the sandbox, by provider and reason (time_limit, output_limit, killed: SIGKILL)",
  labelNames: ["provider", "reason"] as const,
  registers: [processRegistry],
});

/** Why the sandbox ended a run, or null when the program ended by itself (a SIGSEGV is the program's own). */
export function killReasonOf(result: SandboxResult): "time_limit" | "output_limit" | "killed" | null {
  if (result.timedOut) return "time_limit";
  if (result.outputTruncated) return "output_limit";
  // SIGKILL: the memory limit (the kernel's OOM killer in the run's cgroup) or the caller's abort.
  if (result.signal === "SIGKILL") return "killed";
  return null;
}

export function countSandboxRun(provider: string, result: SandboxResult): void {
  const killed = killReasonOf(result);
  if (killed !== null) kills.inc({ provider, reason: killed });
  runs.inc({ provider, outcome: killed !== null ? "killed" : result.signal !== null ? "crashed" : result.exitCode === 0 ? "exited" : "nonzero_exit" });
}

/** A run that gave no result (the sandbox could not be made, or the run was refused). */
export function countSandboxError(provider: string): void {
  runs.inc({ provider, outcome: "error" });
}
