// The gateway's trials by state, read from its store when /metrics is scraped (no cost on the trial path): the
// live ones by status (queued, running), and the finished ones the store still keeps, together as `terminal`.
import { Gauge, type Registry } from "prom-client";
import type { TrialStore } from "./store/record.ts";

export const LIVE_TRIAL_STATES = ["queued", "running"] as const;

export function trialsByStateGauge(registry: Registry, store: TrialStore): void {
  new Gauge({
    name: "gym_gateway_trials",
    help: "Trials in the gateway's store by state: queued, running, and terminal (finished, not yet purged)",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const [live, counts] = await Promise.all([store.nonTerminal(), store.counts()]);
      const byState = new Map<string, number>(LIVE_TRIAL_STATES.map((state) => [state, 0]));
      for (const record of live) byState.set(record.status, (byState.get(record.status) ?? 0) + 1);
      this.reset();
      for (const [state, count] of byState) this.set({ state }, count);
      this.set({ state: "terminal" }, counts.terminal);
    },
  });
}
