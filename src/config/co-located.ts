// `co_located`: which servers of a graph run in one Node process and call each other without a socket (see
// src/server/in-process-route.ts). Ours; NeMo Gym runs every server as its own process.
//   co_located: true                       every server of the graph in one process
//   co_located: [agent, model, env]        these in one process, the rest each in its own
//   co_located: [[agent, model], [env2]]   one process per list
//   co_located_processes: 2              every co-located group as that many processes (one per core), each running
//                                        the whole group on the same ports (Node's cluster shares the listening
//                                        sockets); a rollout's calls stay in the process its /run reached
// A server that blocks its event loop (heavy synchronous verify, a native library) belongs in its own process:
// co-located, it stalls every server beside it.
import { ConfigError } from "./errors.ts";
import type { ConfigDict } from "./types.ts";

export const CO_LOCATED_KEY = "co_located";
export const CO_LOCATED_PROCESSES_KEY = "co_located_processes";

/**
 * How many processes run each co-located group (`co_located_processes`, default 1). More than one is refused without
 * a co-located group: it would change nothing.
 */
export function coLocatedProcesses(config: ConfigDict): number {
  const value = config[CO_LOCATED_PROCESSES_KEY];
  if (value === undefined || value === null) return 1;
  const count = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 256) {
    throw new ConfigError(`${CO_LOCATED_PROCESSES_KEY} must be a whole number from 1 to 256 (processes per co-located group), got ${JSON.stringify(value)}`, "invalid_config", { paths: [CO_LOCATED_PROCESSES_KEY] });
  }
  return count;
}

/** Set by the launcher on a co-located group's process: its instances, comma-separated (src/server/child-main.ts). */
export const CO_LOCATED_ENV = "NEMO_GYM_CO_LOCATED";

/**
 * The process groups of `instanceNames` (in their order): each co-located group once, every other instance alone;
 * and how many processes run each co-located group. A name that is no server instance, or one listed twice, is a
 * ConfigError naming it.
 */
export function processGroups(config: ConfigDict, instanceNames: readonly string[]): { groups: string[][]; processesPerGroup: number } {
  const setting = config[CO_LOCATED_KEY];
  const groups = coLocatedGroups(setting, instanceNames);
  const processesPerGroup = coLocatedProcesses(config);
  if (processesPerGroup > 1 && groups.length === 0) {
    throw new ConfigError(`${CO_LOCATED_PROCESSES_KEY} applies to co-located servers, and ${CO_LOCATED_KEY} names none`, "invalid_config", { paths: [CO_LOCATED_PROCESSES_KEY] });
  }
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
  return { groups: result, processesPerGroup };
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
