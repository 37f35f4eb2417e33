// Finding the server instances in a merged config, locating them on disk, and checking references between them.
import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError } from "./errors.ts";
import { asBoolean, formatPath, hasOwn, isDict, type PathSegment } from "./dict.ts";
import { PROJECT_ROOT, resolveUnderRoots, searchRoots } from "./paths.ts";
import { serverFieldProblems } from "./server-schema.ts";
import {
  RESERVED_TOP_LEVEL_KEYS,
  SERVER_TYPES,
  isServerType,
  type ConfigDict,
  type ConfigLogger,
  type ServerInstance,
  type ServerRef,
  type ServerType,
} from "./types.ts";

export interface ListServerInstancesOptions {
  /** Project root holding the built-in servers; defaults to PROJECT_ROOT. */
  rootDir?: string;
  cwd?: string;
  /** Searched before `NEMO_GYM_EXTRA_ROOTS`, cwd and rootDir. */
  extraRoots?: readonly string[];
  env?: NodeJS.ProcessEnv;
  logger?: ConfigLogger;
  /** Defaults to the config's `error_on_almost_servers` (true unless set to false). */
  errorOnAlmostServers?: boolean;
}

export type BlockClassification =
  | { kind: "server"; serverType: ServerType; implementation: string; fields: ConfigDict }
  | { kind: "almost"; problems: string[] }
  | { kind: "other" };

/**
 * A top-level block is a server instance when it is `{<server type>: {<implementation>: {entrypoint, ...}}}`
 * with exactly one server type and one implementation and valid fields. A block with a server-type key and an
 * `entrypoint` somewhere below it that fails those rules is an "almost-server" (probably a mistake).
 */
export function classifyBlock(value: unknown): BlockClassification {
  if (!isDict(value)) return { kind: "other" };
  const typeKeys = SERVER_TYPES.filter((type) => hasOwn(value, type));
  if (typeKeys.length === 0) return { kind: "other" };

  const problems: string[] = [];
  if (typeKeys.length > 1) {
    problems.push(`has ${typeKeys.length} server types (${typeKeys.join(", ")}); a server block has exactly one`);
  }
  const serverType = typeKeys[0];
  const implementations = value[serverType];
  let result: BlockClassification | undefined;
  if (!isDict(implementations)) {
    problems.push(`${serverType}: must map one implementation name to its fields`);
  } else {
    const names = Object.keys(implementations);
    if (names.length !== 1) {
      problems.push(
        `${serverType}: must have exactly one implementation, found ${names.length}${names.length ? ` (${names.join(", ")})` : ""}`,
      );
    } else {
      const fields = implementations[names[0]];
      const fieldProblems = serverFieldProblems(fields, serverType === "resources_servers");
      problems.push(...fieldProblems.map((problem) => `${serverType} -> ${names[0]} -> ${problem}`));
      if (problems.length === 0 && isDict(fields)) {
        result = { kind: "server", serverType, implementation: names[0], fields };
      }
    }
  }
  if (result) return result;
  return looksLikeServer(value) ? { kind: "almost", problems } : { kind: "other" };
}

function looksLikeServer(block: ConfigDict): boolean {
  return SERVER_TYPES.some((type) => {
    const implementations = block[type];
    return isDict(implementations) && Object.values(implementations).some((fields) => isDict(fields) && hasOwn(fields, "entrypoint"));
  });
}

/** Server blocks of `config` by instance name (reserved top-level keys are never servers). */
export function classifyTopLevel(config: ConfigDict): Map<string, BlockClassification> {
  const result = new Map<string, BlockClassification>();
  for (const [name, value] of Object.entries(config)) {
    if (RESERVED_TOP_LEVEL_KEYS.has(name)) continue;
    result.set(name, classifyBlock(value));
  }
  return result;
}

/** Warnings to stderr. */
export const consoleLogger: ConfigLogger = { warn: (message) => console.warn(message) };

/**
 * Every server instance of a (resolved) config, located on disk. Almost-servers are a ConfigError unless
 * `error_on_almost_servers: false` (or `errorOnAlmostServers: false`), in which case each is skipped with a warning.
 * `fields` of each result is the live object inside `config`.
 */
export function listServerInstances(config: ConfigDict, options: ListServerInstancesOptions = {}): ServerInstance[] {
  const logger = options.logger ?? consoleLogger;
  const errorOnAlmost = options.errorOnAlmostServers ?? asBoolean(config.error_on_almost_servers) !== false;
  const roots = searchRoots(options);
  const rootDir = options.rootDir ?? PROJECT_ROOT;

  const instances: ServerInstance[] = [];
  const almost: string[] = [];
  for (const [instanceName, block] of classifyTopLevel(config)) {
    if (block.kind === "almost") {
      almost.push(
        `Almost-server '${instanceName}': this server block failed validation and will NOT be started:\n` +
          block.problems.map((problem) => `  - ${problem}`).join("\n"),
      );
      continue;
    }
    if (block.kind !== "server") continue;
    const entrypoint = String(block.fields.entrypoint);
    const relDir = join(block.serverType, block.implementation);
    const located = resolveUnderRoots(relDir, roots, (dir) => existsSync(entrypointIn(dir, entrypoint)));
    const dirPath = located.found ? located.path : join(rootDir, relDir);
    instances.push({
      instanceName,
      serverType: block.serverType,
      implementation: block.implementation,
      fields: block.fields,
      dirPath,
      entrypointPath: entrypointIn(dirPath, entrypoint),
    });
  }

  if (almost.length > 0) {
    if (errorOnAlmost) {
      throw new ConfigError(
        `Found ${almost.length} almost-server(s) with validation errors:\n\n${almost.join("\n\n")}\n\n` +
          `Fix the issues above, or set error_on_almost_servers=false to skip these blocks.`,
        "almost_server",
      );
    }
    for (const warning of almost) logger.warn(warning);
  }
  return instances;
}

/**
 * The file to run for `entrypoint` in `dirPath`. NeMo Gym configs say `app.py`; when that file does not exist
 * the TypeScript (`.ts`, then `.js`/`.mjs`) file of the same name is used, so the configs need no edit.
 */
export function entrypointIn(dirPath: string, entrypoint: string): string {
  const declared = isAbsolute(entrypoint) ? entrypoint : join(dirPath, entrypoint);
  if (!declared.endsWith(".py") || existsSync(declared)) return declared;
  const stem = declared.slice(0, -".py".length);
  for (const extension of [".ts", ".js", ".mjs"]) {
    if (existsSync(stem + extension)) return stem + extension;
  }
  return `${stem}.ts`;
}

/** Implementations this project can run: a TypeScript (or JavaScript) entrypoint that exists. */
export function isRunnableHere(instance: ServerInstance): boolean {
  return /\.(ts|js|mjs)$/.test(instance.entrypointPath) && existsSync(instance.entrypointPath);
}

const SERVER_TYPE_PLURALS: Record<ServerType, string> = {
  resources_servers: "resources servers",
  responses_api_agents: "agents",
  responses_api_models: "model servers",
};

const hasTypeScriptApp = (dirPath: string) => ["app.ts", "app.js", "app.mjs"].some((file) => existsSync(join(dirPath, file)));

/** The implementations of `serverType` with an app.ts under any of `roots`, sorted. */
export function availableImplementations(serverType: ServerType, roots: readonly string[]): string[] {
  const names = new Set<string>();
  for (const root of roots) {
    const dir = join(root, serverType);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && existsSync(join(dir, entry.name, "app.ts"))) names.add(entry.name);
    }
  }
  return [...names].sort();
}

/**
 * Every instance must name a server this project has (a NeMo Gym config of a server not ported, e.g. code_gen, has
 * only app.py): otherwise one ConfigError names them and lists what is available, before anything starts.
 */
export function requireRunnableServers(instances: readonly ServerInstance[], options: { roots?: readonly string[] } = {}): void {
  const notRunnable = instances.filter((instance) => !isRunnableHere(instance));
  // A server that is here but whose config names a file it does not have: the entrypoint is the mistake.
  const wrongEntrypoint = notRunnable.find((instance) => hasTypeScriptApp(instance.dirPath));
  if (wrongEntrypoint) {
    const { instanceName, serverType, implementation, dirPath, fields } = wrongEntrypoint;
    throw new ConfigError(
      `entrypoint '${String(fields.entrypoint)}' of '${instanceName}' not found in ${dirPath} (nor its .ts/.js twin); fix ++${instanceName}.${serverType}.${implementation}.entrypoint=<file>`,
      "unavailable_server",
    );
  }
  const missing = notRunnable;
  if (missing.length === 0) return;
  const roots = options.roots ?? searchRoots();
  const names = missing.map((m) => (m.instanceName === m.implementation ? m.implementation : `${m.implementation} (instance '${m.instanceName}')`));
  const types = [...new Set(missing.map((m) => m.serverType))];
  const available = types.map((type) => `available ${SERVER_TYPE_PLURALS[type]}: ${availableImplementations(type, roots).join(", ") || "(none)"}`);
  throw new ConfigError(`not available here: ${names.join(", ")}; ${available.join("; ")}`, "unavailable_server");
}

/** `config[name]` → its only server type → its only implementation: the fields of that server. */
export function getServerInstanceConfig(config: ConfigDict, instanceName: string): ConfigDict {
  const block = config[instanceName];
  if (!isDict(block)) {
    const known = [...classifyTopLevel(config)].filter(([, c]) => c.kind === "server").map(([name]) => name);
    const hint = closestMatch(instanceName, known);
    throw new ConfigError(
      `No server instance named '${instanceName}' in the config.` +
        (hint ? ` Did you mean '${hint}'?` : ` Defined server instances: ${known.length ? known.map((n) => `'${n}'`).join(", ") : "(none)"}.`),
      "unknown_instance",
    );
  }
  const fields = serverFieldsOf(config, instanceName);
  if (!fields) {
    throw new ConfigError(
      `'${instanceName}' is not a server instance: expected '${instanceName}: {<server type>: {<implementation>: {...fields}}}'.`,
      "unknown_instance",
    );
  }
  return fields;
}

/** Like `getServerInstanceConfig`, but undefined instead of an error. */
export function serverFieldsOf(config: ConfigDict, instanceName: string): ConfigDict | undefined {
  const block = config[instanceName];
  const typeBlock = isDict(block) ? Object.values(block)[0] : undefined;
  const fields = isDict(typeBlock) ? Object.values(typeBlock)[0] : undefined;
  return isDict(fields) ? fields : undefined;
}

/** `{type: <server type>, name: <string>}` (other keys allowed), else undefined. */
export function asServerRef(value: unknown): ServerRef | undefined {
  if (!isDict(value) || !isServerType(value.type) || typeof value.name !== "string") return undefined;
  return { type: value.type, name: value.name };
}

/**
 * Every `{type: <server type>, name: X}` in the config must name a defined server instance of that type.
 * All broken references are reported together, each with a "Did you mean" hint when a close name exists.
 * Blocks that are almost-servers (skipped) are not checked.
 */
export function validateServerReferences(config: ConfigDict): void {
  const blocks = classifyTopLevel(config);
  const defined = new Map<string, ServerType>();
  for (const [name, block] of blocks) if (block.kind === "server") defined.set(name, block.serverType);

  const problems: string[] = [];
  const walk = (node: unknown, path: PathSegment[]): void => {
    const ref = asServerRef(node);
    if (ref) {
      if (defined.get(ref.name) !== ref.type) problems.push(describeBrokenRef(ref, path, blocks, defined));
      return;
    }
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
    else if (isDict(node)) for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
  };
  for (const [key, value] of Object.entries(config)) {
    if (blocks.get(key)?.kind === "almost") continue;
    walk(value, [key]);
  }
  if (problems.length > 0) {
    throw new ConfigError(problems.join("\n\n"), "server_ref");
  }
}

function describeBrokenRef(
  ref: ServerRef,
  path: PathSegment[],
  blocks: Map<string, BlockClassification>,
  defined: Map<string, ServerType>,
): string {
  const instanceName = String(path[0]);
  const location =
    blocks.get(instanceName)?.kind === "server" && path.length > 3
      ? `In server instance '${instanceName}', field '${formatPath(path.slice(3))}'`
      : `At '${formatPath(path)}', the value`;
  const head = `${location} references ${ref.type}/'${ref.name}', which is not defined in the merged config.`;
  const actualType = defined.get(ref.name);
  if (actualType) return `${head}\n'${ref.name}' is defined, but as a ${actualType} instance.`;
  const sameType = [...defined].filter(([, type]) => type === ref.type).map(([name]) => name);
  const suggestion = closestMatch(ref.name, sameType);
  if (suggestion) return `${head}\nDid you mean '${suggestion}'?`;
  const available = sameType.length ? [...sameType].sort().map((name) => `'${name}'`).join(", ") : "(none)";
  return `${head}\nAvailable ${ref.type}: ${available}`;
}

/** The candidate closest to `name` by edit distance, if it is reasonably similar (≥ 60%). */
export function closestMatch(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = 0.6;
  for (const candidate of candidates) {
    const longest = Math.max(name.length, candidate.length);
    if (longest === 0) continue;
    const score = 1 - editDistance(name, candidate) / longest;
    if (score >= bestScore && (best === undefined || score > bestScore)) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
