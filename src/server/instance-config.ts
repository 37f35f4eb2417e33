// An instance's config checked against its server's definition, the same way in the child that serves it and in the
// launcher before any child starts: the schema (pydantic lax mode, as NeMo Gym builds the config model), refused
// keys (a NeMo Gym feature this port lacks fails the start, naming it) and unknown keys (a warning naming each).
import { pathToFileURL } from "node:url";
import { requireRunnableServers, type ConfigDict, type ServerInstance } from "../config/index.ts";
import { UserError } from "../config/errors.ts";
import { isDict } from "../config/dict.ts";
import { formatZodIssues } from "../config/zod-issues.ts";
import { laxValidate } from "../python/pydantic/index.ts";
import { ServerConfigError } from "./config-error.ts";
import { checkConfigKeys, schemaKeys } from "./config-keys.ts";
import { parseSessionStoreSetting, SESSION_LOCK_LEASE_KEY, SESSION_STORE_KEY } from "./session-store-setting.ts";
import { portRangeOf } from "./port-range.ts";
import { isServerDefinition, type ServerDefinition } from "./definition.ts";

/** The default export of the instance's entrypoint, checked to be a server definition of the configured type. */
export async function loadServerDefinition(instance: ServerInstance): Promise<ServerDefinition> {
  const module = await import(pathToFileURL(instance.entrypointPath).href);
  const definition = module.default;
  if (!isServerDefinition(definition)) {
    throw new ServerConfigError(`${instance.entrypointPath} must default-export a server definition (resourcesServer(...), responsesApiAgent(...), responsesApiModel(...))`);
  }
  if (definition.serverType !== instance.serverType) {
    throw new ServerConfigError(`${instance.entrypointPath} defines a ${definition.serverType} server but '${instance.instanceName}' is configured under ${instance.serverType}`);
  }
  return definition;
}

export interface CheckedInstanceConfig<Config> {
  config: Config;
  /** One line per key the server does not read (it has no effect). */
  warnings: string[];
}

/** `<implementation> '<instance>'`, how messages name an instance (`vllm_model 'policy_model'`). */
function instanceLabel(globalConfig: ConfigDict, instanceName: string, fallback: string): string {
  const block = globalConfig[instanceName];
  const implementations = isDict(block) ? Object.values(block)[0] : undefined;
  const implementation = isDict(implementations) ? Object.keys(implementations)[0] : undefined;
  return `${implementation ?? fallback} '${instanceName}'`;
}

/** Validates `fields` for `definition`: ServerConfigError on a schema problem or a refused key. */
export function checkInstanceConfig<Config>(
  definition: ServerDefinition<Config>,
  instanceName: string,
  fields: ConfigDict,
  globalConfig: ConfigDict,
): CheckedInstanceConfig<Config> {
  const label = instanceLabel(globalConfig, instanceName, definition.className);
  const keys = checkConfigKeys(definition, fields);
  if (keys.refused.length > 0) {
    throw new ServerConfigError(keys.refused.map(({ key, reason }) => `${label}: config key \`${key}\` is not implemented here (${reason})`).join("\n"));
  }
  const storeProblem = sessionStoreProblem(definition, fields);
  if (storeProblem !== undefined) throw new ServerConfigError(`${label}: ${storeProblem}`);
  const parsed = laxValidate(definition.configSchema, fields);
  if (!parsed.success) {
    // pydantic's errors (loc, msg) through the one formatter of schema problems.
    const problems = formatZodIssues(parsed.errors.map((e) => ({ path: e.loc, message: e.msg })), { pathPrefix: [instanceName], separator: "\n  " });
    throw new ServerConfigError(`invalid config for ${definition.className} '${instanceName}':\n  ${problems}`);
  }
  const warnings = keys.unknown.map((key) => `${label}: config key \`${key}\` is not one this server reads, so it has no effect (misspelt, or meant for another server?)`);
  // NeMo Gym runs that many uvicorn worker processes; one Node process serves every request concurrently here.
  const workers = Number(fields.num_workers ?? 1);
  if (workers > 1) warnings.push(`${label}: num_workers ${workers} is served by one process here (its event loop runs requests concurrently)`);
  return { config: parsed.data, warnings };
}

/**
 * `session_store` on a resources server whose definition does not read it (one of its own making, such as aviary's
 * or a gymnasium server, whose environments live in the process): `memory` only, anything else named.
 */
function sessionStoreProblem(definition: ServerDefinition, fields: ConfigDict): string | undefined {
  if (definition.serverType !== "resources_servers" || schemaKeys(definition.configSchema).has(SESSION_STORE_KEY)) return undefined;
  if (fields[SESSION_LOCK_LEASE_KEY] !== undefined && fields[SESSION_LOCK_LEASE_KEY] !== null) return `config key \`${SESSION_LOCK_LEASE_KEY}\` applies to ${SESSION_STORE_KEY}: redis://… only, which ${definition.className} cannot use`;
  const value = fields[SESSION_STORE_KEY];
  if (value === undefined || value === null) return undefined;
  const setting = typeof value === "string" ? parseSessionStoreSetting(value) : `must be a string, got ${JSON.stringify(value)}`;
  if (typeof setting === "string") return `config key \`${SESSION_STORE_KEY}\` ${setting}`;
  if (setting.kind === "memory") return undefined;
  return `${SESSION_STORE_KEY} redis cannot be used: ${definition.className} keeps its sessions' live environments in the process; use ${SESSION_STORE_KEY}: memory`;
}

/**
 * What the launcher (and `gym env validate`) runs before any server starts: every instance names a server this
 * project has, its definition loads, and its fields pass `checkInstanceConfig`. Every problem is reported at once
 * (one ServerConfigError, a line per problem); the unknown-key warnings are returned for the caller to show.
 */
export async function checkServersBeforeStart(instances: readonly ServerInstance[], globalConfig: ConfigDict): Promise<string[]> {
  requireRunnableServers(instances);
  portRangeOf(globalConfig);
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const instance of instances) {
    try {
      const definition = await loadServerDefinition(instance);
      warnings.push(...checkInstanceConfig(definition, instance.instanceName, instance.fields, globalConfig).warnings);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ServerConfigError(problems.join("\n"));
  return warnings;
}
