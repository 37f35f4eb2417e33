// Timing helpers for the benchmarks: wall-clock latencies per call and this process's CPU per call.
import { performance } from "node:perf_hooks";

export interface Measurement {
  calls: number;
  medianMs: number;
  p99Ms: number;
  /** CPU time of this process (user + system) per call. */
  cpuMsPerCall: number;
}

/** The p-th percentile of an ascending list (nearest rank). */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Runs `call` `warmup` times untimed, then `calls` times one after another. */
export async function measureSequential(calls: number, call: () => Promise<void>, warmup = Math.min(20, calls)): Promise<Measurement> {
  for (let i = 0; i < warmup; i++) await call();
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call();
    latencies.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return { calls, medianMs: percentile(latencies, 50), p99Ms: percentile(latencies, 99), cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls };
}

export const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** A plain-text table: columns padded to their widest cell. */
export function formatTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/**
 * Times several calls round-robin (a, b, c, a, b, c, …) so that each sees the same machine state: GC
 * pressure and caches left by one path fall on all of them alike. CPU is attributed per call.
 */
export async function measureInterleaved(calls: number, paths: (() => Promise<void>)[], warmup = 2): Promise<Measurement[]> {
  for (let i = 0; i < warmup; i++) for (const path of paths) await path();
  const latencies = paths.map(() => [] as number[]);
  const cpuMs = paths.map(() => 0);
  for (let i = 0; i < calls; i++) {
    for (const [index, path] of paths.entries()) {
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      await path();
      latencies[index]!.push(performance.now() - start);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMs[index]! += (cpu.user + cpu.system) / 1000;
    }
  }
  return latencies.map((list, index) => {
    list.sort((a, b) => a - b);
    return { calls, medianMs: percentile(list, 50), p99Ms: percentile(list, 99), cpuMsPerCall: cpuMs[index]! / calls };
  });
}
