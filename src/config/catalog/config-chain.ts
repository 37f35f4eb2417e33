// One config file as the catalogue sees it: the file, every file its `config_paths` chain names (merged the way
// the loader merges them, includes first) and its directives applied — never resolved, so a config whose `???`
// or `${...}` values only a run supplies still shows its servers and metadata. Never throws: what could not be
// read is listed in `problems`.
import { readFileSync } from "node:fs";
import { applyDirectives } from "../directives.ts";
import { deepMerge } from "../dict.ts";
import { resolveUnderRoots } from "../paths.ts";
import { CONFIG_PATHS_KEY, type ConfigDict } from "../types.ts";
import { parseConfigYaml } from "../yaml.ts";

export interface ConfigChain {
  /** The file itself, parsed (empty when it could not be read). */
  own: ConfigDict;
  /** Own file and includes merged, directives applied. */
  merged: ConfigDict;
  /** `config_paths` entries (at any depth) that no search root holds. */
  missingIncludes: string[];
  /** Files that did not parse, directives that failed. */
  problems: string[];
}

/** Reads a YAML mapping, or undefined with the reason added to `problems`. */
export function readYamlQuietly(path: string, problems: string[]): ConfigDict | undefined {
  try {
    return parseConfigYaml(readFileSync(path, "utf8"), path);
  } catch (error) {
    problems.push((error as Error).message);
    return undefined;
  }
}

export function readConfigChain(configPath: string, roots: readonly string[]): ConfigChain {
  const problems: string[] = [];
  const missingIncludes: string[] = [];
  const seen = new Set<string>();

  const load = (path: string): ConfigDict => {
    seen.add(path);
    const config = readYamlQuietly(path, problems) ?? {};
    const listed = config[CONFIG_PATHS_KEY];
    const includes = Array.isArray(listed) ? listed.filter((entry): entry is string => typeof entry === "string") : [];
    const layers: ConfigDict[] = [];
    for (const entry of includes) {
      const located = resolveUnderRoots(entry, roots);
      if (!located.found) missingIncludes.push(entry);
      else if (!seen.has(located.path)) layers.push(load(located.path));
    }
    return deepMerge(...layers, config);
  };

  const own = readYamlQuietly(configPath, []) ?? {};
  const combined = load(configPath);
  let merged = combined;
  try {
    merged = applyDirectives(combined);
  } catch (error) {
    problems.push((error as Error).message);
  }
  return { own, merged, missingIncludes, problems };
}
