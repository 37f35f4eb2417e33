// Which keys of an instance's config a server reads. NeMo Gym's config models drop a key they do not declare
// (pydantic's default), so a typo, or a NeMo Gym feature this port lacks, would run as if it were unset. Here every
// key is one of three: known (the definition's schema, or a key every server block may carry), refused (a NeMo Gym
// key this port does not implement: the start fails naming it), or unknown (a warning naming it).
import type { z } from "zod";
import type { ServerDefinition, ServerType } from "./definition.ts";

/**
 * Keys any server block may carry: NeMo Gym's base server config (host, port, num_workers, entrypoint, domain, the
 * runtime `name`), the block's `datasets`, the catalog metadata NeMo Gym's registry reads (description, value,
 * verified, verified_url, license), and this port's own body limit.
 */
export const BASE_CONFIG_KEYS: ReadonlySet<string> = new Set([
  "host",
  "port",
  "num_workers",
  "entrypoint",
  "domain",
  "name",
  "datasets",
  "description",
  "value",
  "verified",
  "verified_url",
  "license",
  "max_body_bytes",
]);

/** NeMo Gym base-class keys of one server type that no server of that type here implements. */
const REFUSED_BY_TYPE: Record<ServerType, Readonly<Record<string, string>>> = {
  resources_servers: {},
  responses_api_agents: {
    token_id_capture: "an agent's opt-in to token-id capture for opaque harnesses; this port has no token-id capture sink",
  },
  responses_api_models: {},
};

/** Every key a zod object schema declares, through intersections, unions, pipes, defaults and other wrappers. */
export function schemaKeys(schema: z.ZodType): Set<string> {
  const keys = new Set<string>();
  const visit = (node: unknown): void => {
    const def = (node as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
    if (!def) return;
    switch (def.type) {
      case "object":
        for (const key of Object.keys(def.shape as object)) keys.add(key);
        return;
      case "intersection":
        visit(def.left);
        visit(def.right);
        return;
      case "union":
        for (const option of def.options as unknown[]) visit(option);
        return;
      case "pipe":
        visit(def.in);
        return;
      default:
        if (def.innerType) visit(def.innerType);
    }
  };
  visit(schema);
  return keys;
}

/** The definition's refused keys with those of its server type's base class. */
export function refusedKeysOf(definition: ServerDefinition): Readonly<Record<string, string>> {
  return { ...REFUSED_BY_TYPE[definition.serverType], ...definition.refusedConfigKeys };
}

/**
 * Keys every server of one type may carry: a resources server's `session_store` and `session_lock_lease_s` (one whose
 * definition does not read them accepts `session_store: memory` only, checked in instance-config.ts).
 */
const BASE_KEYS_BY_TYPE: Record<ServerType, readonly string[]> = {
  resources_servers: ["session_store", "session_lock_lease_s"],
  responses_api_agents: [],
  responses_api_models: [],
};

/** Keys the definition reads: its schema's and every block's base keys (refused keys are not among them). */
export function knownKeysOf(definition: ServerDefinition): Set<string> {
  return new Set([...BASE_CONFIG_KEYS, ...BASE_KEYS_BY_TYPE[definition.serverType], ...schemaKeys(definition.configSchema)]);
}

export interface ConfigKeyReport {
  /** Refused keys the fields set, with why each is refused. */
  refused: Array<{ key: string; reason: string }>;
  /** Keys neither known nor refused. */
  unknown: string[];
}

/**
 * Sorts an instance's fields. A refused key asks for nothing when it is null or false (NeMo Gym's default of every
 * refused flag), so only another value is reported.
 */
export function checkConfigKeys(definition: ServerDefinition, fields: Record<string, unknown>): ConfigKeyReport {
  const refusedKeys = refusedKeysOf(definition);
  const known = knownKeysOf(definition);
  const report: ConfigKeyReport = { refused: [], unknown: [] };
  for (const [key, value] of Object.entries(fields)) {
    if (Object.hasOwn(refusedKeys, key)) {
      if (value !== null && value !== undefined && value !== false) report.refused.push({ key, reason: refusedKeys[key]! });
    } else if (!known.has(key)) {
      report.unknown.push(key);
    }
  }
  return report;
}
