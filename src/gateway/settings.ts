// Deployment-time settings of the Gateway (spec §1.6): server-side environment registrations, the callback
// allowlist, timeouts and where trial state lives. Read once at startup; any mistake stops the process with a
// message naming the variable or registration field.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { extname, isAbsolute, resolve } from "node:path";
import { inspect } from "node:util";
import { parse as parseYaml } from "yaml";
import { allowlistFromEnv, type CallbackAllowlist } from "./allowlist.ts";
import { INTERRUPT_POLICIES, type EnvironmentRegistration, type InterruptPolicy } from "./types.ts";
import { isPlainObject } from "../python/pydantic/index.ts";

import { GatewayConfigError } from "./errors.ts";

export { GatewayConfigError };

export interface GatewaySettings {
  callbackTimeoutS: number;
  cleanupGraceS: number;
  /** Never shown by `util.inspect` or `JSON.stringify` of the settings. */
  callbackProxy: string | null;
  artifactRoot: string | null;
  gymCommit: string;
  verbose: boolean;
  leaseScanIntervalS: number;
  allowlist: CallbackAllowlist;
  environments: EnvironmentRegistration[];
  /** sha256 of the canonical JSON of every registration, sorted by (environment, config). */
  configFingerprint: string;
  /** A SQLite file path, `:memory:`, or `redis://…` / `rediss://…`. */
  stateUrl: string;
  terminalTtlS: number;
  /** Bearer token the trial API requires when set. Never shown. */
  authToken: string | null;
  /** Largest request body accepted (trial API and callbacks); 256 MiB when unset. */
  maxBodyBytes?: number;
}

export type StateBackend = "sqlite" | "memory" | "redis";

export const ENV = {
  environmentsJson: "NEMO_GYM_GATEWAY_ENVIRONMENTS_JSON",
  environmentsFile: "NEMO_GYM_GATEWAY_ENVIRONMENTS",
  callbackTimeout: "NEMO_GYM_CALLBACK_TIMEOUT_S",
  cleanupGrace: "NEMO_GYM_CLEANUP_GRACE_S",
  callbackProxy: "NEMO_GYM_CALLBACK_PROXY",
  artifactRoot: "NEMO_GYM_ARTIFACT_ROOT",
  gymCommit: "NEMO_GYM_COMMIT",
  verbose: "NEMO_GYM_VERBOSE",
  leaseScanInterval: "NEMO_GYM_LEASE_SCAN_INTERVAL_S",
  state: "NEMO_GYM_GATEWAY_STATE",
  terminalTtl: "NEMO_GYM_GATEWAY_TERMINAL_TTL_S",
  token: "NEMO_GYM_GATEWAY_TOKEN",
  maxBodyBytes: "NEMO_GYM_GATEWAY_MAX_BODY_BYTES",
} as const;

/** A body becomes one string; V8 refuses strings of 2^29 - 24 UTF-16 units or more. */
const MAX_BODY_BYTES_CEILING = 2 ** 29 - 24;

export const DEFAULT_STATE_URL = "./gateway-state.sqlite";

/**
 * Settings from environment variables. `overrides` replace parsed values (tests, embedding); when they supply
 * `environments` or `allowlist`, the corresponding variables are not required.
 */
export function loadGatewaySettings(env: NodeJS.ProcessEnv, overrides: Partial<GatewaySettings> = {}): GatewaySettings {
  const environments = overrides.environments ?? registrationsFromEnv(env);
  rejectDuplicates(environments);
  const settings: GatewaySettings = {
    callbackTimeoutS: positiveNumber(env, ENV.callbackTimeout, 600),
    cleanupGraceS: positiveNumber(env, ENV.cleanupGrace, 30),
    callbackProxy: callbackProxyFromEnv(env),
    artifactRoot: artifactRootFromEnv(env),
    gymCommit: text(env, ENV.gymCommit) ?? "unknown",
    verbose: flag(env, ENV.verbose),
    leaseScanIntervalS: positiveNumber(env, ENV.leaseScanInterval, 0.25),
    allowlist: overrides.allowlist ?? allowlistFromEnv(env),
    environments,
    configFingerprint: configFingerprint(environments),
    stateUrl: stateUrlFromEnv(env),
    terminalTtlS: positiveNumber(env, ENV.terminalTtl, 604_800),
    authToken: text(env, ENV.token) ?? null,
    ...maxBodyBytesFromEnv(env),
    ...definedOnly(overrides),
  };
  return hideSecrets(settings);
}

/** The registration for a trial's (environment, config) pair, if the Gateway serves it. */
export function findRegistration(settings: Pick<GatewaySettings, "environments">, environment: string, config: string): EnvironmentRegistration | undefined {
  return settings.environments.find((registration) => registration.environment === environment && registration.config === config);
}

/** `{ maxBodyBytes }` when the variable is set (no key otherwise). */
function maxBodyBytesFromEnv(env: NodeJS.ProcessEnv): { maxBodyBytes?: number } {
  const raw = text(env, ENV.maxBodyBytes);
  if (raw === undefined) return {};
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value <= 0 || value >= MAX_BODY_BYTES_CEILING) {
    throw new GatewayConfigError(`${ENV.maxBodyBytes} must be a positive integer below ${MAX_BODY_BYTES_CEILING}, got ${JSON.stringify(raw)}`);
  }
  return { maxBodyBytes: value };
}

export function stateBackendOf(stateUrl: string): StateBackend {
  if (stateUrl === ":memory:") return "memory";
  return /^rediss?:\/\//i.test(stateUrl) ? "redis" : "sqlite";
}

/** Registrations from a JSON (or parsed YAML) object keyed by config name; `source` names it in errors. */
export function parseRegistrations(value: unknown, source: string): EnvironmentRegistration[] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    throw new GatewayConfigError(`${source} must contain a non-empty object keyed by config name`);
  }
  const registrations = Object.entries(value).map(([config, spec]) => parseRegistration(config, spec, source));
  rejectDuplicates(registrations);
  return registrations;
}

export function configFingerprint(registrations: readonly EnvironmentRegistration[]): string {
  const sorted = [...registrations].sort((a, b) => compare(a.environment, b.environment) || compare(a.config, b.config));
  return createHash("sha256").update(canonicalJson(sorted)).digest("hex");
}

function registrationsFromEnv(env: NodeJS.ProcessEnv): EnvironmentRegistration[] {
  const inline = text(env, ENV.environmentsJson);
  const file = text(env, ENV.environmentsFile);
  if (inline !== undefined && file !== undefined) {
    throw new GatewayConfigError(`Set only one of ${ENV.environmentsJson} and ${ENV.environmentsFile}`);
  }
  if (inline !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(inline);
    } catch {
      throw new GatewayConfigError(`${ENV.environmentsJson} must contain valid JSON`);
    }
    return parseRegistrations(parsed, ENV.environmentsJson);
  }
  if (file !== undefined) return parseRegistrations(readRegistrationFile(file), `${ENV.environmentsFile} (${file})`);
  throw new GatewayConfigError(`${ENV.environmentsJson} or ${ENV.environmentsFile} must be set`);
}

function readRegistrationFile(path: string): unknown {
  const extension = extname(path).toLowerCase();
  if (![".json", ".yaml", ".yml"].includes(extension)) {
    throw new GatewayConfigError(`${ENV.environmentsFile} must name a .json, .yaml or .yml file, got ${path}`);
  }
  let content: string;
  try {
    content = readFileSync(resolve(path), "utf8");
  } catch (error) {
    throw new GatewayConfigError(`${ENV.environmentsFile}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return extension === ".json" ? JSON.parse(content) : parseYaml(content);
  } catch (error) {
    throw new GatewayConfigError(`${ENV.environmentsFile}: ${path} is not valid ${extension === ".json" ? "JSON" : "YAML"}: ${(error as Error).message}`);
  }
}

const REGISTRATION_FIELDS = new Set([
  "environment",
  "agent_name",
  "agent_url",
  "readiness_urls",
  "abort_url",
  "force_cleanup_url",
  "cleanup_probe_url",
  "interrupt_policy",
  "max_concurrency",
  "queue_capacity",
  "max_deadline_s",
]);

function parseRegistration(config: string, spec: unknown, source: string): EnvironmentRegistration {
  if (config.trim() === "") throw new GatewayConfigError(`${source}: config names must be non-empty`);
  if (!isPlainObject(spec)) throw new GatewayConfigError(`${source}: environment config ${JSON.stringify(config)} must be an object`);
  const field = (name: string) => `${source}: ${config}.${name}`;
  // A misspelt optional field would otherwise silently fall back to its default.
  const unknown = Object.keys(spec).filter((key) => !REGISTRATION_FIELDS.has(key));
  if (unknown.length > 0) throw new GatewayConfigError(`${field(unknown[0])} is not a registration field (known: ${[...REGISTRATION_FIELDS].join(", ")})`);

  const agentUrl = httpUrl(spec.agent_url, field("agent_url"));
  const readiness = spec.readiness_urls ?? [agentUrl];
  if (!Array.isArray(readiness) || readiness.length === 0) throw new GatewayConfigError(`${field("readiness_urls")} must be a non-empty list of URLs`);
  const policy = spec.interrupt_policy ?? "protected";
  if (!INTERRUPT_POLICIES.includes(policy as InterruptPolicy)) {
    throw new GatewayConfigError(`${field("interrupt_policy")} must be one of ${INTERRUPT_POLICIES.join(", ")}`);
  }
  return {
    config,
    environment: nonEmptyString(spec.environment, field("environment")),
    agent_name: spec.agent_name == null ? null : nonEmptyString(spec.agent_name, field("agent_name")),
    agent_url: agentUrl,
    readiness_urls: readiness.map((url, index) => httpUrl(url, `${field("readiness_urls")}[${index}]`)),
    abort_url: optionalHttpUrl(spec.abort_url, field("abort_url")),
    force_cleanup_url: optionalHttpUrl(spec.force_cleanup_url, field("force_cleanup_url")),
    cleanup_probe_url: optionalHttpUrl(spec.cleanup_probe_url, field("cleanup_probe_url")),
    interrupt_policy: policy as InterruptPolicy,
    max_concurrency: integerAtLeast(spec.max_concurrency ?? 1, 1, field("max_concurrency")),
    queue_capacity: integerAtLeast(spec.queue_capacity ?? 8, 0, field("queue_capacity")),
    max_deadline_s: positiveFinite(spec.max_deadline_s ?? 3600, field("max_deadline_s")),
  };
}

function rejectDuplicates(registrations: readonly EnvironmentRegistration[]): void {
  const seen = new Set<string>();
  for (const { environment, config } of registrations) {
    const key = JSON.stringify([environment, config]);
    if (seen.has(key)) throw new GatewayConfigError(`Duplicate environment registration: environment ${JSON.stringify(environment)}, config ${JSON.stringify(config)}`);
    seen.add(key);
  }
}

function callbackProxyFromEnv(env: NodeJS.ProcessEnv): string | null {
  const raw = text(env, ENV.callbackProxy);
  if (raw === undefined) return null;
  // Messages name the rule only: the value may hold a proxy password.
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayConfigError(`${ENV.callbackProxy} must be an absolute http(s) URL`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new GatewayConfigError(`${ENV.callbackProxy} must be an absolute http(s) URL`);
  }
  if (url.username !== "" || url.password !== "" || /^[^/]*\/\/[^/?#]*@/.test(raw)) {
    throw new GatewayConfigError(`${ENV.callbackProxy} must not contain user info`);
  }
  if ((url.pathname !== "/" && url.pathname !== "") || raw.includes("?") || raw.includes("#")) {
    throw new GatewayConfigError(`${ENV.callbackProxy} must not contain a path, query, or fragment`);
  }
  return raw;
}

function artifactRootFromEnv(env: NodeJS.ProcessEnv): string | null {
  const raw = text(env, ENV.artifactRoot);
  if (raw === undefined) return null;
  if (!isAbsolute(raw)) throw new GatewayConfigError(`${ENV.artifactRoot} must be an absolute path, got ${JSON.stringify(raw)}`);
  return raw;
}

function stateUrlFromEnv(env: NodeJS.ProcessEnv): string {
  const raw = text(env, ENV.state) ?? DEFAULT_STATE_URL;
  if (raw === ":memory:" || /^rediss?:\/\/[^/?#]/i.test(raw)) return raw;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new GatewayConfigError(`${ENV.state} must be a SQLite file path, ":memory:" or a redis:// URL`);
  }
  return raw;
}

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = text(env, name);
  return raw === undefined ? fallback : positiveFinite(Number(raw), name);
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined || ["0", "false", "no", "off"].includes(raw)) return false;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  throw new GatewayConfigError(`${name} must be 1 or 0`);
}

function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new GatewayConfigError(`${field} must be a non-empty string`);
  return value;
}

/** Absolute http(s); a trailing slash is dropped so paths can be appended. */
function httpUrl(value: unknown, field: string): string {
  const raw = nonEmptyString(value, field).trim();
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw new GatewayConfigError(`${field} must be an absolute http(s) URL`);
  }
  return raw.replace(/\/+$/, "");
}

function optionalHttpUrl(value: unknown, field: string): string | null {
  return value == null ? null : httpUrl(value, field);
}

function integerAtLeast(value: unknown, minimum: number, field: string): number {
  const number = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < minimum) {
    throw new GatewayConfigError(`${field} must be an integer ≥ ${minimum}`);
  }
  return number;
}

function positiveFinite(value: unknown, field: string): number {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number) || number <= 0) {
    throw new GatewayConfigError(`${field} must be a positive number`);
  }
  return number;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort(compare);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

// Settings get logged and spread into other objects. The view functions are enumerable own properties so that a
// spread copy (`{...settings, x}`) still hides the proxy, the token and a Redis password.
function hideSecrets(settings: GatewaySettings): GatewaySettings {
  return Object.assign(settings, { toJSON: publicView, [inspect.custom]: inspectView });
}

function publicView(this: GatewaySettings): Record<string, unknown> {
  const { callbackProxy, authToken, allowlist, stateUrl, ...rest } = this;
  const visible = Object.fromEntries(Object.entries(rest).filter(([, value]) => typeof value !== "function"));
  return {
    ...visible,
    callbackProxy: callbackProxy === null ? null : "[redacted]",
    authToken: authToken === null ? null : "[redacted]",
    allowlist: { hosts: [...allowlist.hosts], networks: allowlist.networks.map((network) => network.cidr) },
    stateUrl: stateUrl.replace(/^(rediss?:\/\/)[^@/]*@/i, "$1[redacted]@"),
  };
}

function inspectView(this: GatewaySettings, depth: number, options: object): string {
  return `GatewaySettings ${inspect(publicView.call(this), { ...options, depth: depth < 0 ? 0 : depth })}`;
}
