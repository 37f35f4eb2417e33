// Metrics of the whole process rather than of one server: Node's own (memory, CPU, event-loop delay, from
// prom-client's default collectors) and what a shared facility counts (sandbox runs). Every server's GET /metrics
// appends them; in a graph run in one process each server shows the same process figures.
import { collectDefaultMetrics, Registry } from "prom-client";

export const processRegistry = new Registry();

let defaultsCollected = false;

/** Starts Node's default collectors once per process (the first server to serve /metrics does). */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: processRegistry, prefix: "gym_" });
}
