// Default bounds of one sandboxed run, and the check that a request's overrides are bounds at all.
import type { SandboxLimits } from "./types.ts";

const MiB = 1024 * 1024;

/** Sized for a code_gen-style test run: NeMo Gym's code_gen gives each unit-test run 10 s. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  wallMs: 10_000,
  cpuMs: 10_000,
  memoryBytes: 1024 * MiB,
  processes: 64,
  openFiles: 256,
  // Linux's usual `ulimit -s`.
  stackBytes: 8 * MiB,
  fileSizeBytes: 64 * MiB,
  workDirBytes: 64 * MiB,
  outputBytes: 8 * MiB,
};

/** `overrides` on top of `base`; every value must be a positive integer (a limit of 0 or NaN is a bug, not "none"). */
export function resolveLimits(base: Readonly<SandboxLimits>, overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...base };
  for (const [name, value] of Object.entries(overrides) as [keyof SandboxLimits, unknown][]) {
    if (value === undefined) continue;
    if (!(name in base)) throw new TypeError(`sandbox limits: unknown limit ${JSON.stringify(name)}; known: ${Object.keys(base).join(", ")}`);
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`sandbox limits: ${name} must be a positive integer, got ${JSON.stringify(value)}`);
    }
    limits[name] = value;
  }
  return limits;
}
