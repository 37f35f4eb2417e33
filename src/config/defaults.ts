// Values the launcher fills into the global config before serving it.
import { networkInterfaces } from "node:os";
import { asBoolean, deepClone, hasOwn, isDict } from "./dict.ts";
import { classifyTopLevel, serverFieldsOf } from "./servers.ts";
import {
  DEFAULT_HEAD_SERVER_PORT,
  DEFAULT_HOST,
  DEFAULT_HOST_KEY,
  DEFAULT_PORT_RANGE_HIGH,
  DEFAULT_PORT_RANGE_LOW,
  HEAD_SERVER_KEY,
  type ConfigDict,
} from "./types.ts";

/**
 * A copy of `config` with the launcher's defaults:
 * - `default_host`: as given, else `127.0.0.1` (with `use_absolute_ip: true`, this machine's first external IPv4);
 * - `head_server`: `{host: default_host, port: 11000}`, filling whichever of the two is missing;
 * - every server instance: `host` = default_host when empty; `port` = null when absent (the server binds a free
 *   port of the range below and the launcher writes the real port back; no port is picked here); a numeric-string
 *   port becomes a number;
 * - `port_range_low` / `port_range_high` 10001 / 20000 (where a server without a fixed port binds);
 * - `disallowed_ports`: the head port and every explicitly configured server port;
 * - every agent: the global `skip_verification` and `skip_verification_reward`, each when set and not set by the agent;
 * - `use_absolute_ip`, `skip_venv_if_present`, `dry_run`: false unless given.
 */
export function fillDefaults(config: ConfigDict): ConfigDict {
  const names = [...classifyTopLevel(config)].filter(([, block]) => block.kind === "server").map(([name]) => name);
  return fillDefaultsFor(config, names, defaultHostOf(config));
}

/** The host servers default to, computed from a resolved config. */
export function defaultHostOf(config: ConfigDict): string {
  if (asBoolean(config.use_absolute_ip)) return machineAddress();
  const given = config[DEFAULT_HOST_KEY];
  return typeof given === "string" && given !== "" ? given : DEFAULT_HOST;
}

/** `fillDefaults` for known instance names and default host (used on raw configs, whose values may be `${...}`). */
export function fillDefaultsFor(config: ConfigDict, instanceNames: readonly string[], defaultHost: string): ConfigDict {
  const result = deepClone(config);
  setDefault(result, "use_absolute_ip", false);
  setDefault(result, DEFAULT_HOST_KEY, defaultHost);
  if (result[DEFAULT_HOST_KEY] === null || result[DEFAULT_HOST_KEY] === "") result[DEFAULT_HOST_KEY] = defaultHost;

  // A head_server given as an interpolation string (raw configs) is left for resolution.
  const givenHead = result[HEAD_SERVER_KEY];
  const head: ConfigDict = isDict(givenHead) ? givenHead : {};
  if (givenHead === undefined || givenHead === null || isDict(givenHead)) {
    if (head.host === undefined || head.host === null || head.host === "") head.host = defaultHost;
    if (head.port === undefined || head.port === null) head.port = DEFAULT_HEAD_SERVER_PORT;
    result[HEAD_SERVER_KEY] = head;
  }

  setDefault(result, "port_range_low", DEFAULT_PORT_RANGE_LOW);
  setDefault(result, "port_range_high", DEFAULT_PORT_RANGE_HIGH);
  setDefault(result, "skip_venv_if_present", false);
  setDefault(result, "dry_run", false);

  const disallowedPorts: unknown[] = head.port === undefined ? [] : [head.port];
  for (const name of instanceNames) {
    const fields = serverFieldsOf(result, name);
    if (!fields) continue;
    if (!fields.host) fields.host = defaultHost;
    if (typeof fields.port === "string" && /^\d+$/.test(fields.port)) fields.port = Number(fields.port);
    if (!fields.port) fields.port = null;
    else disallowedPorts.push(fields.port);
    if (isDict(result[name]) && hasOwn(result[name] as ConfigDict, "responses_api_agents")) {
      for (const key of AGENT_GLOBAL_KEYS) {
        if (result[key] !== undefined && result[key] !== null && !hasOwn(fields, key)) fields[key] = result[key];
      }
    }
  }
  result.disallowed_ports = disallowedPorts;
  return result;
}

/** Global keys NeMo Gym copies into every agent that does not set them itself. */
const AGENT_GLOBAL_KEYS = ["skip_verification", "skip_verification_reward"] as const;

function setDefault(config: ConfigDict, key: string, value: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(config, key)) config[key] = value;
}

/** NeMo Gym uses gethostbyname(gethostname()); the first non-internal IPv4 address is the reachable equivalent. */
function machineAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return DEFAULT_HOST;
}
