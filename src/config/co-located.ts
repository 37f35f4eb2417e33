// `co_located`: which servers of a graph run in one Node process and call each other without a socket (see
// src/server/in-process-route.ts). Ours; NeMo Gym runs every server as its own process.
//   co_located: true                       every server of the graph in one process
//   co_located: [agent, model, env]        these in one process, the rest each in its own
//   co_located: [[agent, model], [env2]]   one process per list
// A server that blocks its event loop (heavy synchronous verify, a native library) belongs in its own process:
// co-located, it stalls every server beside it.
import { ConfigError } from "./errors.ts";
import type { ConfigDict } from "./types.ts";

export const CO_LOCATED_KEY = "co_located";
/** Set by the launcher on a co-located group's process: its instances, comma-separated (src/server/child-main.ts). */
export const CO_LOCATED_ENV = "NEMO_GYM_CO_LOCATED";

/**
 * The process groups of `instanceNames` (in their order): each co-located group once, every other instance alone.
 * A name that is no server instance, or one listed twice, is a ConfigError naming it.
 */
export function processGroups(config: ConfigDict, instanceNames: readonly string[]): string[][] {
  const setting = config[CO_LOCATED_KEY];
  const groups = coLocatedGroups(setting, instanceNames);
  const groupOf = new Map<string, string[]>();
  for (const group of groups) for (const name of group) groupOf.set(name, group);
  const result: string[][] = [];
  const placed = new Set<string[]>();
  for (const name of instanceNames) {
    const group = groupOf.get(name);
    if (group === undefined) result.push([name]);
    else if (!placed.has(group)) {
      placed.add(group);
      result.push(group);
    }
  }
  return result;
}

function coLocatedGroups(setting: unknown, instanceNames: readonly string[]): string[][] {
  if (setting === undefined || setting === null || setting === false) return [];
  if (setting === true) return instanceNames.length > 1 ? [[...instanceNames]] : [];
  const bad = (why: string) => new ConfigError(`${CO_LOCATED_KEY}: ${why} (true, a list of server names, or a list of such lists)`, "invalid_config", { paths: [CO_LOCATED_KEY] });
  if (!Array.isArray(setting)) throw bad(`expected true or a list, got ${JSON.stringify(setting)}`);
  const lists = setting.every((item) => Array.isArray(item)) ? (setting as unknown[][]) : [setting];
  const known = new Set(instanceNames);
  const seen = new Set<string>();
  return lists.map((list) => {
    for (const name of list) {
      if (typeof name !== "string") throw bad(`${JSON.stringify(name)} is not a server name`);
      if (!known.has(name)) throw bad(`'${name}' is no server of this graph (its servers: ${instanceNames.join(", ")})`);
      if (seen.has(name)) throw bad(`'${name}' is listed twice`);
      seen.add(name);
    }
    return list as string[];
  }).filter((group) => group.length > 0);
}
