// The configuration system: NeMo Gym YAML configs in, a merged/resolved global config out.
export { ConfigError, type ConfigErrorKind } from "./errors.ts";
export {
  SERVER_TYPES,
  RESERVED_TOP_LEVEL_KEYS,
  DEFAULT_HEAD_SERVER_PORT,
  DEFAULT_HOST,
  EXTRA_ROOTS_ENV_VAR,
  isServerType,
  type ConfigDict,
  type ConfigLogger,
  type ServerInstance,
  type ServerRef,
  type ServerType,
} from "./types.ts";
export { PROJECT_ROOT, searchRoots } from "./paths.ts";
export { parseConfigYaml, dumpYaml, loadYamlFile } from "./yaml.ts";
export { deepMerge, formatPath } from "./dict.ts";
export {
  parseOverride,
  parseOverrideValue,
  applyOverrides,
  type OverrideOp,
  type ParsedOverride,
} from "./overrides.ts";
export { resolveConfig, resolveValueAt } from "./interpolation.ts";
export { applyDirectives, collectMissingPaths, raiseOnMissingValues } from "./directives.ts";
export {
  listServerInstances,
  getServerInstanceConfig,
  validateServerReferences,
  asServerRef,
  entrypointIn,
  isRunnableHere,
  requireRunnableServers,
  type ListServerInstancesOptions,
} from "./servers.ts";
export { fillDefaults } from "./defaults.ts";
export { maskSecrets, isSecretKey, redactSecrets, type RedactOptions } from "./secrets.ts";
export { loadGlobalConfig, envYamlPathsOf, copyEnvYamlPaths, NO_MODEL_CONFIG, type GlobalConfig, type LoadGlobalConfigOptions } from "./load.ts";
export { CO_LOCATED_ENV, CO_LOCATED_KEY, CO_LOCATED_PROCESSES_KEY, coLocatedProcesses, processGroups } from "./co-located.ts";
