// Flags → Hydra-style overrides → the merged global config, as NeMo Gym's CLI does it.
import { loadGlobalConfig, type ConfigDict } from "../config/index.ts";

export interface ConfigFlags {
  /** `--config a --config b` (NeMo Gym's `+config_paths=[a,b]`). */
  config?: string[];
  /** Hydra-style `+key=value` / `++key=value` / `key=value` arguments. */
  overrides?: string[];
}

export async function loadConfigFromFlags(flags: ConfigFlags, extraOverrides: string[] = [], requireServers = false): Promise<{ raw: ConfigDict; resolved: ConfigDict }> {
  return loadGlobalConfig({
    configPaths: flags.config ?? [],
    // The user's own overrides come last, so they win over what flags translate to.
    overrides: [...extraOverrides, ...(flags.overrides ?? [])],
    requireServers,
    logger: { warn: (message) => process.stderr.write(`WARNING ${message}\n`) },
  });
}

/** Hydra value syntax for a flag value (strings quoted so that commas, colons and brackets survive). */
export function hydraValue(value: string | number | boolean): string {
  if (typeof value !== "string") return String(value);
  return /^[A-Za-z0-9_./-]+$/.test(value) ? value : `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** Flag values as `++key=value` overrides (the config decides, so `--agent x` and `+agent_name=x` are one thing); undefined values are left out. */
export function flagOverrides(values: Record<string, string | number | boolean | undefined>): string[] {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([key, value]) => `++${key}=${hydraValue(value)}`);
}
