// Building the global config: config_paths files, env.yaml and command-line overrides, merged in that order
// of increasing priority, then directives, the `???` check, interpolation, server checks and defaults.
import { existsSync } from "node:fs";
import { ConfigError } from "./errors.ts";
import { deepMerge, hasPath, isDict } from "./dict.ts";
import { applyDirectives, raiseOnMissingValues } from "./directives.ts";
import { defaultHostOf, fillDefaultsFor } from "./defaults.ts";
import { resolveConfig, resolveValueAt } from "./interpolation.ts";
import { applyParsedOverride, missingReplaceTarget, parseOverride, type ParsedOverride } from "./overrides.ts";
import { PROJECT_ROOT, resolveUnderRoots, searchRoots } from "./paths.ts";
import { consoleLogger, listServerInstances, validateServerReferences } from "./servers.ts";
import { CONFIG_PATHS_KEY, type ConfigDict, type ConfigLogger } from "./types.ts";
import { loadYamlFile } from "./yaml.ts";

export interface LoadGlobalConfigOptions {
  /** Config files to load (like `--config`); combined with a `+config_paths=[...]` override. */
  configPaths?: string[];
  /** Hydra-style overrides: `+a=1`, `++a.b=x`, `a.b=2`, `~a`. */
  overrides?: string[];
  cwd?: string;
  /** Project root searched after cwd (built-in servers, env.yaml); defaults to PROJECT_ROOT. */
  rootDir?: string;
  /** Environment for `${oc.env:...}` and `NEMO_GYM_EXTRA_ROOTS`; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Fail when the merged config defines no server instance (what `env start` needs). */
  requireServers?: boolean;
  logger?: ConfigLogger;
  /** Searched before `NEMO_GYM_EXTRA_ROOTS`, cwd and rootDir. */
  extraRoots?: string[];
  /** env.yaml to use; `null` skips env.yaml; undefined searches extra roots, cwd, then rootDir. */
  envYamlPath?: string | null;
  /** Lowest-priority part of the command-line layer (NeMo Gym's initial_global_config_dict), e.g. NO_MODEL_CONFIG. */
  initialConfig?: ConfigDict;
}

export interface GlobalConfig {
  /** Merged, directives applied, defaults filled, `${...}` NOT resolved: what the head server serves. */
  raw: ConfigDict;
  /** Fully resolved, defaults filled, server references validated. */
  resolved: ConfigDict;
}

/**
 * For commands that need no model (listing, validation, data preparation): a placeholder `policy_model` that
 * merges away when a real model is configured under the same instance.
 */
export const NO_MODEL_CONFIG: ConfigDict = {
  policy_base_url: "",
  policy_api_key: "",
  policy_model_name: "",
  policy_model: { responses_api_models: { dummy_model: { entrypoint: "app.py" } } },
};

export async function loadGlobalConfig(options: LoadGlobalConfigOptions = {}): Promise<GlobalConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const rootDir = options.rootDir ?? PROJECT_ROOT;
  const logger = options.logger ?? consoleLogger;
  const roots = searchRoots({ cwd, rootDir, extraRoots: options.extraRoots, env });

  // 1. The command-line layer. `+` and `++` act on the overrides alone (Hydra's base config is empty, so
  //    `+policy_model_name=x` works even when env.yaml or initialConfig sets it). A plain `a.b=v` or `~a.b`
  //    that does not target an earlier override must target the layers below; that is checked once they
  //    are merged.
  const fromOverrides: ConfigDict = {};
  const replaceBelow: ParsedOverride[] = [];
  const deleteBelow: ParsedOverride[] = [];
  for (const override of (options.overrides ?? []).map(parseOverride)) {
    const targetsOverrides = hasPath(fromOverrides, override.path);
    if (override.op === "replace" && !targetsOverrides) {
      replaceBelow.push(override);
      applyParsedOverride(fromOverrides, { ...override, op: "upsert" });
    } else if (override.op === "delete" && !targetsOverrides) {
      deleteBelow.push(override);
    } else {
      applyParsedOverride(fromOverrides, override);
    }
  }
  if (options.configPaths && options.configPaths.length > 0) {
    const listed = fromOverrides[CONFIG_PATHS_KEY];
    const extra = listed === undefined || listed === null ? [] : asPathList(listed, "the command line");
    fromOverrides[CONFIG_PATHS_KEY] = [...options.configPaths, ...extra];
  }
  const initialConfig = options.initialConfig ?? {};

  // 2. env.yaml (secrets, policy_* values, often config_paths).
  const envYaml = await loadEnvYaml(options.envYamlPath, roots);

  // 3. config_paths: from the command line, else env.yaml (a list on the command line replaces env.yaml's).
  const forPaths = deepMerge(envYaml, initialConfig, fromOverrides);
  let requested: string[] = [];
  if (forPaths[CONFIG_PATHS_KEY] !== undefined && forPaths[CONFIG_PATHS_KEY] !== null) {
    const value = resolveValueAt(forPaths, [CONFIG_PATHS_KEY], env);
    requested = asPathList(value, "the command line or env.yaml");
  }
  const { allPaths, configs } = await loadConfigPaths(requested, roots, logger);

  // 4. Merge: files (includes before includers, siblings in order), env.yaml, command line.
  const belowOverrides = deepMerge(...configs, envYaml, initialConfig);
  for (const override of replaceBelow) {
    if (!hasPath(belowOverrides, override.path)) throw missingReplaceTarget(override);
  }
  for (const override of deleteBelow) applyParsedOverride(belowOverrides, override);
  const merged = deepMerge(belowOverrides, fromOverrides);
  if (allPaths.length > 0) merged[CONFIG_PATHS_KEY] = allPaths;

  // 5. Directives, then every `???` at once, then the no-model placeholder.
  const withDirectives = applyDirectives(merged);
  raiseOnMissingValues(withDirectives);
  mergeAwayDummyModel(withDirectives);

  // 6. Resolve, find the servers, check references, fill defaults.
  const resolved = resolveConfig(withDirectives, env);
  const instances = listServerInstances(resolved, { cwd, rootDir, extraRoots: options.extraRoots, env, logger });
  if (options.requireServers && instances.length === 0) {
    throw new ConfigError(
      "No server instances are configured, so there is nothing to run. Pass one or more configs, e.g.:\n" +
        "  gym env start --config resources_servers/<env>/configs/<env>.yaml --config responses_api_models/<model>/configs/<model>.yaml",
      "no_server_instances",
    );
  }
  validateServerReferences(resolved);

  const names = instances.map((instance) => instance.instanceName);
  const defaultHost = defaultHostOf(resolved);
  const loaded = {
    raw: fillDefaultsFor(withDirectives, names, defaultHost),
    resolved: fillDefaultsFor(resolved, names, defaultHost),
  };
  const fromEnvYaml = leafPaths(envYaml);
  for (const config of [loaded.raw, loaded.resolved]) envYamlPathsByConfig.set(config, fromEnvYaml);
  return loaded;
}

/**
 * Where env.yaml's values are (its secrets, usually) in a config loadGlobalConfig returned: the key path of every
 * leaf env.yaml set (a list is one leaf). Kept beside the config rather than in it, so that a config passed along
 * carries it without a new parameter and nothing serves it; a copy has none until `copyEnvYamlPaths` gives it.
 */
export function envYamlPathsOf(config: ConfigDict): readonly (readonly string[])[] {
  return envYamlPathsByConfig.get(config) ?? [];
}

/** `to` (a copy of `from`) gets `from`'s env.yaml paths. */
export function copyEnvYamlPaths(from: ConfigDict, to: ConfigDict): void {
  const paths = envYamlPathsByConfig.get(from);
  if (paths) envYamlPathsByConfig.set(to, paths);
}

const envYamlPathsByConfig = new WeakMap<ConfigDict, readonly (readonly string[])[]>();

function leafPaths(dict: ConfigDict, prefix: readonly string[] = []): string[][] {
  return Object.entries(dict).flatMap(([key, value]) => (isDict(value) ? leafPaths(value, [...prefix, key]) : [[...prefix, key]]));
}

function asPathList(value: unknown, source: string): string[] {
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value as string[];
  throw new ConfigError(
    `'${CONFIG_PATHS_KEY}' from ${source} must be a list of paths, got ${JSON.stringify(value)}.\n` +
      `Pass each config with --config (it builds the list), or write +config_paths=[a.yaml,b.yaml].`,
    "malformed_config_paths",
  );
}

async function loadEnvYaml(envYamlPath: string | null | undefined, roots: readonly string[]): Promise<ConfigDict> {
  if (envYamlPath === null) return {};
  if (envYamlPath !== undefined) {
    if (!existsSync(envYamlPath)) throw new ConfigError(`env.yaml '${envYamlPath}' was not found.`, "file_not_found");
    return loadYamlFile(envYamlPath);
  }
  const located = resolveUnderRoots("env.yaml", roots);
  return located.found ? loadYamlFile(located.path) : {};
}

interface LoadedConfigFile {
  entry: string;
  config: ConfigDict;
  includes: number[];
}

/**
 * Load `requested` and, breadth-first, every file named in a loaded file's own `config_paths` (each file once).
 * Returns every entry in discovery order and the configs in merge order.
 *
 * Merge order follows NeMo Gym HEAD, not PIN: a file merges after everything it includes (so an including file
 * overrides what it includes, however deep), and each listed file's subtree stays together in listed order (so
 * a later sibling, with its includes, overrides an earlier one). At PIN an included file was merged after its
 * includer and overrode it, which surprised users; HEAD reversed that.
 */
async function loadConfigPaths(
  requested: readonly string[],
  roots: readonly string[],
  logger: ConfigLogger,
): Promise<{ allPaths: string[]; configs: ConfigDict[] }> {
  const files: LoadedConfigFile[] = [];
  const indexByFile = new Map<string, number>();
  const duplicates: string[] = [];
  const rootIndices: number[] = [];
  const allPaths: string[] = [];

  const discover = (entry: string, includedBy: string | undefined): number | undefined => {
    const located = resolveUnderRoots(entry, roots);
    if (!located.found) {
      throw new ConfigError(
        `config_paths entry '${entry}'${includedBy ? ` (listed in '${includedBy}')` : ""} was not found. Looked in:\n` +
          located.searched.map((candidate) => `  - ${candidate}`).join("\n") +
          `\nCheck the path is spelled correctly and is relative to your working directory, an extra root ` +
          `(NEMO_GYM_EXTRA_ROOTS / --search-dir), or the project root.`,
        "file_not_found",
      );
    }
    if (indexByFile.has(located.path)) {
      duplicates.push(entry);
      return undefined;
    }
    indexByFile.set(located.path, files.length);
    files.push({ entry: located.path, config: {}, includes: [] });
    allPaths.push(entry);
    return files.length - 1;
  };

  for (const entry of requested) {
    const index = discover(entry, undefined);
    if (index !== undefined) rootIndices.push(index);
  }
  for (let index = 0; index < files.length; index++) {
    const file = files[index];
    file.config = await loadYamlFile(file.entry);
    const nested = file.config[CONFIG_PATHS_KEY];
    if (nested === undefined || nested === null) continue;
    for (const entry of asPathList(nested, `'${file.entry}'`)) {
      const child = discover(entry, file.entry);
      if (child !== undefined) file.includes.push(child);
    }
  }

  if (duplicates.length > 0) {
    logger.warn(
      `These config paths are referenced more than once and were loaded once:\n` +
        duplicates.map((entry) => `  - ${entry}`).join("\n") +
        `\nIf two servers need different settings from one config, give one its own instance with ` +
        `'++my_server=\${inherit_from:generic_server}' and override its fields.`,
    );
  }

  const order: number[] = [];
  const visit = (index: number): void => {
    for (const child of files[index].includes) visit(child);
    order.push(index);
  };
  for (const index of rootIndices) visit(index);
  return { allPaths, configs: order.map((index) => files[index].config) };
}

/**
 * NeMo Gym's placeholder model: when a block under `responses_api_models` holds `dummy_model` next to a real
 * implementation, the real one wins and inherits the placeholder's fields it does not set.
 */
function mergeAwayDummyModel(config: ConfigDict): void {
  for (const block of Object.values(config)) {
    if (!isDict(block) || !isDict(block.responses_api_models)) continue;
    const models = block.responses_api_models as ConfigDict;
    if (!("dummy_model" in models) || Object.keys(models).length < 2) continue;
    const dummy = models.dummy_model;
    delete models.dummy_model;
    const actual = Object.keys(models)[0];
    if (isDict(dummy) && isDict(models[actual])) models[actual] = deepMerge(dummy, models[actual] as ConfigDict);
  }
}
