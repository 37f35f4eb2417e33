// Flags → Hydra-style overrides → the merged global config, as NeMo Gym's CLI does it. Every command that
// reads a config goes through `loadConfig`, so `--config`, overrides and their precedence mean one thing.
import { loadGlobalConfig, NO_MODEL_CONFIG, type ConfigDict } from "../config/index.ts";

/** What a command asks of the config loader (its `toConfig` answer). */
export interface ConfigRequest {
  /** `--config a --config b` (NeMo Gym's `+config_paths=[a,b]`). */
  configPaths?: readonly string[];
  /** The overrides the command's flags translate to (see `flagOverrides`). */
  flagOverrides?: readonly string[];
  /** The user's own Hydra-style `+key=value` / `++key=value` / `key=value` arguments; they come last, so they win. */
  overrides?: readonly string[];
  /** Fail unless the config defines at least one server instance. */
  requireServers?: boolean;
  /**
   * The command calls no model: a placeholder `policy_model` keeps the agent blocks of environment configs
   * resolvable without a model config (it is never started).
   */
  withoutModel?: boolean;
}

export interface LoadedConfig {
  /** Merged, `${…}` unresolved: what servers and the head server get. */
  raw: ConfigDict;
  resolved: ConfigDict;
}

export function loadConfig(request: ConfigRequest): Promise<LoadedConfig> {
  return loadGlobalConfig({
    configPaths: [...(request.configPaths ?? [])],
    overrides: [...(request.flagOverrides ?? []), ...(request.overrides ?? [])],
    requireServers: request.requireServers ?? false,
    ...(request.withoutModel ? { initialConfig: NO_MODEL_CONFIG } : {}),
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
