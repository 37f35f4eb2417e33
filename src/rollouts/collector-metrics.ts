// The collector's figures: /run attempts by outcome and failure class, rollouts by how they finished, and /run
// latency. A collection is a batch job that exits when done, so a scrape port would lose its last values (the
// scraper never sees the final state); Prometheus's answer for batch jobs is a file the node exporter's textfile
// collector reads (or that one pushes to a Pushgateway): `<out>_metrics.prom`, written when the run ends, beside
// the other sidecars. The summary keeps counting the same things for a person.
import { Counter, Histogram, Registry } from "prom-client";
import { sidecarPath, writeAtomically } from "./output-files.ts";

/** Seconds: a /run is one whole rollout, from a second to many minutes. */
const RUN_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export const collectorMetricsPath = (outputPath: string) => sidecarPath(outputPath, "_metrics", ".prom");

export class CollectorMetrics {
  readonly registry = new Registry();
  private readonly attempts = new Counter({
    name: "gym_collector_attempts_total",
    help: "/run attempts by outcome (succeeded, dropped, failed) and failure class",
    labelNames: ["agent", "outcome", "failure_class"] as const,
    registers: [this.registry],
  });
  private readonly rollouts = new Counter({
    name: "gym_collector_rollouts_total",
    help: "Rollouts of this run by how they finished (succeeded, dropped, failed: out of attempts or a terminal failure)",
    labelNames: ["agent", "outcome", "failure_class"] as const,
    registers: [this.registry],
  });
  private readonly runLatency = new Histogram({
    name: "gym_collector_run_duration_seconds",
    help: "Time of one /run attempt, as the collector saw it",
    labelNames: ["agent"] as const,
    buckets: RUN_BUCKETS_S,
    registers: [this.registry],
  });

  attempt(agent: string, outcome: string, failureClass: string, seconds: number): void {
    this.attempts.inc({ agent, outcome, failure_class: failureClass });
    this.runLatency.observe({ agent }, seconds);
  }

  /** An attempt timed elsewhere (a queue worker ran it): counted, not in the latency histogram. */
  counted(agent: string, outcome: string, failureClass: string): void {
    this.attempts.inc({ agent, outcome, failure_class: failureClass });
  }

  finished(agent: string, outcome: string, failureClass = ""): void {
    this.rollouts.inc({ agent, outcome, failure_class: failureClass });
  }

  /** Writes the Prometheus text file (atomically: a textfile collector never reads half of it); returns its path. */
  async write(outputPath: string): Promise<string> {
    const path = collectorMetricsPath(outputPath);
    writeAtomically(path, await this.registry.metrics());
    return path;
  }
}
