// A resources server's own figures: how long verify takes, the rewards it gives, and the sessions it holds.
import { Gauge, Histogram, type Registry } from "prom-client";
import { LATENCY_BUCKETS_S } from "./metrics.ts";

/** Rewards are mostly in [0, 1]; `le="0"` counts the zeros, `+Inf` anything above 1. */
export const REWARD_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

export interface VerifyMetrics {
  /** One verify that returned `reward` after `seconds`. */
  observe(reward: number, seconds: number): void;
}

export function verifyMetrics(registry: Registry): VerifyMetrics {
  const latency = new Histogram({
    name: "gym_verify_duration_seconds",
    help: "Time the environment's verify took (the reward computation, judge calls included)",
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const rewards = new Histogram({ name: "gym_verify_reward", help: "Rewards verify returned", buckets: REWARD_BUCKETS, registers: [registry] });
  return {
    observe(reward, seconds) {
      latency.observe(seconds);
      rewards.observe(reward);
    },
  };
}

/** Sessions held, read from the store when scraped (no cost per request). */
export function sessionsHeldGauge(registry: Registry, size: () => Promise<number>): void {
  new Gauge({
    name: "gym_sessions_held",
    help: "Per-rollout sessions this server holds state for",
    registers: [registry],
    async collect() {
      this.set(await size());
    },
  });
}
