// relax-nemo-gym/v1 on the wire: validating create bodies and snapshots, their wire form, the canonical JSON the
// gateway fingerprints for idempotency, and the request id the thin client derives.
import { createHash } from "node:crypto";
import {
  INTERRUPT_POLICIES,
  PROTOCOL_VERSION,
  TRIAL_STATUSES,
  type InterruptPolicy,
  type JsonObject,
  type JsonValue,
  type ModelEndpoint,
  type TrialError,
  type TrialRequest,
  type TrialReward,
  type TrialSnapshot,
  type TrialStatus,
} from "./types.ts";

/** A payload that breaks the protocol; `field` is the offending path, e.g. `session.attempt`. */
export class TrialProtocolError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "TrialProtocolError";
  }
}

export const DEFAULT_API_KEY_HEADER = "Authorization";
export const DEFAULT_API_KEY_PREFIX = "Bearer ";
export const DEFAULT_DEADLINE_S = 1800;
export const DEFAULT_LEASE_S = 60;

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Hop-by-hop or framing headers: letting a client set them would let it corrupt the upstream exchange.
const FORBIDDEN_UPSTREAM_HEADERS = new Set(["connection", "content-length", "host", "proxy-authenticate", "proxy-authorization", "transfer-encoding"]);

type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const has = (object: Fields, key: string) => Object.prototype.hasOwnProperty.call(object, key);

function objectAt(value: unknown, field: string): Fields {
  if (!isPlainObject(value)) throw new TrialProtocolError(field, `${field} must be a JSON object`);
  return value;
}

function nonBlankString(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new TrialProtocolError(field, `${field} must be a non-empty string`);
  return value;
}

/** Header values travel on one line; CR, LF or NUL would let a value smuggle another header. */
function singleLine(value: unknown, field: string): string {
  if (typeof value !== "string" || /[\r\n\0]/.test(value)) throw new TrialProtocolError(field, `${field} must be a single-line string`);
  return value;
}

function headerName(value: unknown, field: string): string {
  const name = nonBlankString(value, field);
  if (!HEADER_NAME.test(name)) throw new TrialProtocolError(field, `${field} must be a valid HTTP header name`);
  if (FORBIDDEN_UPSTREAM_HEADERS.has(name.toLowerCase())) throw new TrialProtocolError(field, `${field} must not be ${name.toLowerCase()}`);
  return name;
}

function positiveFinite(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new TrialProtocolError(field, `${field} must be a positive finite number`);
  return value;
}

function httpUrl(value: unknown, field: string): string {
  const text = nonBlankString(value, field);
  let url: URL | undefined;
  // WHATWG URL parsing silently trims and drops whitespace, so a URL containing any is refused instead.
  if (!/\s/.test(text)) {
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "") {
    throw new TrialProtocolError(field, `${field} must be an absolute http(s) URL`);
  }
  return text;
}

const stripTrailingSlashes = (url: string) => url.replace(/\/+$/, "");

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function describeNonJson(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (value === undefined) return "undefined";
  if (typeof value === "object" && value !== null) return value.constructor?.name ?? "object";
  return typeof value;
}

/**
 * A deep copy of `value` that is made only of JSON values with finite numbers; anything else (NaN, Infinity,
 * undefined, functions, class instances, cycles) throws with the path of the first offender.
 */
export function finiteJsonCopy(value: unknown, field: string): JsonValue {
  const ancestors = new Set<object>();
  const copy = (node: unknown, path: string): JsonValue => {
    if (node === null || typeof node === "string" || typeof node === "boolean") return node;
    if (typeof node === "number") {
      if (Number.isFinite(node)) return node;
    } else if (Array.isArray(node) || isPlainObject(node)) {
      if (ancestors.has(node)) throw new TrialProtocolError(path, `${path} must contain only finite JSON values (found a cycle)`);
      ancestors.add(node);
      try {
        if (Array.isArray(node)) return node.map((item, index) => copy(item, pathOf(path, index)));
        const out: JsonObject = {};
        for (const [key, item] of Object.entries(node)) out[key] = copy(item, pathOf(path, key));
        return out;
      } finally {
        ancestors.delete(node);
      }
    }
    throw new TrialProtocolError(path, `${path} must contain only finite JSON values (found ${describeNonJson(node)})`);
  };
  return copy(value, field);
}

function finiteJsonObject(value: unknown, field: string): JsonObject {
  return finiteJsonCopy(objectAt(value, field), field) as JsonObject;
}

function interruptPolicy(value: unknown): InterruptPolicy {
  if (typeof value !== "string" || !(INTERRUPT_POLICIES as readonly string[]).includes(value)) {
    throw new TrialProtocolError("interrupt_policy", `interrupt_policy must be one of ${INTERRUPT_POLICIES.join(", ")}; got ${JSON.stringify(value) ?? "nothing"}`);
  }
  return value as InterruptPolicy;
}

function attemptNumber(value: unknown): number {
  // typeof excludes booleans, which Python would otherwise take for 0 and 1.
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new TrialProtocolError("session.attempt", "session.attempt must be an integer greater than or equal to 1");
  }
  return value;
}

function protocolVersion(value: unknown): typeof PROTOCOL_VERSION {
  if (value !== PROTOCOL_VERSION) {
    throw new TrialProtocolError("protocol_version", `Unsupported protocol_version: ${JSON.stringify(value) ?? "nothing"}; expected ${JSON.stringify(PROTOCOL_VERSION)}`);
  }
  return PROTOCOL_VERSION;
}

function modelEndpoint(value: unknown): ModelEndpoint {
  const endpoint = objectAt(value, "model_endpoint");
  const base_url = stripTrailingSlashes(httpUrl(endpoint.base_url, "model_endpoint.base_url"));
  const api_key = singleLine(nonBlankString(endpoint.api_key, "model_endpoint.api_key"), "model_endpoint.api_key");
  const model = nonBlankString(endpoint.model, "model_endpoint.model");
  const api_key_header = has(endpoint, "api_key_header") ? headerName(endpoint.api_key_header, "model_endpoint.api_key_header") : DEFAULT_API_KEY_HEADER;
  const api_key_prefix = has(endpoint, "api_key_prefix") ? singleLine(endpoint.api_key_prefix, "model_endpoint.api_key_prefix") : DEFAULT_API_KEY_PREFIX;
  const headers: Record<string, string> = {};
  if (has(endpoint, "headers")) {
    for (const [name, headerValue] of Object.entries(objectAt(endpoint.headers, "model_endpoint.headers"))) {
      const field = pathOf("model_endpoint.headers", name);
      headerName(name, field);
      if (name.toLowerCase() === api_key_header.toLowerCase()) throw new TrialProtocolError(field, `${field} must not override api_key_header`);
      headers[name] = singleLine(headerValue, field);
    }
  }
  return { base_url, api_key, model, api_key_header, api_key_prefix, headers };
}

/** Validates a create body (every rule of relax-nemo-gym/v1) and returns a copy that shares nothing with it. */
export function parseTrialRequest(payload: unknown): TrialRequest {
  const body = objectAt(payload, "request");
  const protocol_version = protocolVersion(body.protocol_version);
  const request_id = nonBlankString(body.request_id, "request_id");
  const session = objectAt(body.session, "session");
  const environment = objectAt(body.environment, "environment");
  return {
    protocol_version,
    request_id,
    session: {
      session_id: nonBlankString(session.session_id, "session.session_id"),
      group_id: nonBlankString(session.group_id, "session.group_id"),
      rollout_mode: nonBlankString(session.rollout_mode, "session.rollout_mode"),
      attempt: has(session, "attempt") ? attemptNumber(session.attempt) : 1,
    },
    environment: {
      name: nonBlankString(environment.name, "environment.name"),
      config: nonBlankString(environment.config, "environment.config"),
      task: finiteJsonObject(environment.task, "environment.task"),
    },
    model_endpoint: modelEndpoint(body.model_endpoint),
    generation: has(body, "generation") ? finiteJsonObject(body.generation, "generation") : {},
    interrupt_policy: interruptPolicy(body.interrupt_policy),
    deadline_s: has(body, "deadline_s") ? positiveFinite(body.deadline_s, "deadline_s") : DEFAULT_DEADLINE_S,
    lease_s: has(body, "lease_s") ? positiveFinite(body.lease_s, "lease_s") : DEFAULT_LEASE_S,
    metadata: has(body, "metadata") ? finiteJsonObject(body.metadata, "metadata") : {},
  };
}

/** The create body as sent: optional endpoint fields are left out when they hold their defaults. */
export function serializeTrialRequest(request: TrialRequest): JsonObject {
  const endpoint = request.model_endpoint;
  const model_endpoint: JsonObject = { base_url: stripTrailingSlashes(endpoint.base_url), api_key: endpoint.api_key, model: endpoint.model };
  if (endpoint.api_key_header !== DEFAULT_API_KEY_HEADER) model_endpoint.api_key_header = endpoint.api_key_header;
  if (endpoint.api_key_prefix !== DEFAULT_API_KEY_PREFIX) model_endpoint.api_key_prefix = endpoint.api_key_prefix;
  if (Object.keys(endpoint.headers).length > 0) model_endpoint.headers = { ...endpoint.headers };
  return {
    protocol_version: PROTOCOL_VERSION,
    request_id: request.request_id,
    session: { ...request.session },
    environment: {
      name: request.environment.name,
      config: request.environment.config,
      task: finiteJsonCopy(request.environment.task, "environment.task"),
    },
    model_endpoint,
    generation: finiteJsonCopy(request.generation, "generation"),
    interrupt_policy: request.interrupt_policy,
    deadline_s: request.deadline_s,
    lease_s: request.lease_s,
    metadata: finiteJsonCopy(request.metadata, "metadata"),
  };
}

// Code-point order, as Python's sort_keys, rather than JavaScript's UTF-16 order.
function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/**
 * Canonical JSON of a raw payload (keys sorted at every level, no whitespace, finite numbers only): the text the
 * gateway HMACs so a replayed create can be told from a different one under the same request_id.
 */
export function requestFingerprintJson(payload: unknown): string {
  const write = (node: JsonValue): string => {
    if (Array.isArray(node)) return `[${node.map(write).join(",")}]`;
    if (node !== null && typeof node === "object") {
      const keys = Object.keys(node).sort(compareCodePoints);
      return `{${keys.map((key) => `${JSON.stringify(key)}:${write(node[key]!)}`).join(",")}}`;
    }
    return JSON.stringify(node);
  };
  return write(finiteJsonCopy(payload, "request"));
}

function rewardValue(value: unknown): TrialReward {
  if (value === null || value === undefined) return null;
  if (isPlainObject(value)) return finiteJsonCopy(value, "reward") as JsonObject;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TrialProtocolError("reward", "reward must be null, a finite number, or a JSON object");
  return value;
}

/** The client-side checks of a gateway snapshot (create, get and abort replies). */
export function parseTrialSnapshot(payload: unknown, expectedRequestId: string): TrialSnapshot {
  if (!isPlainObject(payload)) throw new TrialProtocolError("response", "Gateway response must be a JSON object");
  const protocol_version = protocolVersion(payload.protocol_version);
  const request_id = nonBlankString(payload.request_id, "request_id");
  if (request_id !== expectedRequestId) throw new TrialProtocolError("request_id", "Gateway response request_id does not match the submitted request");
  const status = payload.status;
  if (typeof status !== "string" || !(TRIAL_STATUSES as readonly string[]).includes(status)) {
    throw new TrialProtocolError("status", `Unknown trial status: ${JSON.stringify(status) ?? "nothing"}`);
  }
  const reward = rewardValue(payload.reward);
  const metrics = payload.metrics === undefined ? {} : finiteJsonObject(payload.metrics, "metrics");
  const artifactRef = payload.artifact_ref ?? null;
  if (artifactRef !== null && (typeof artifactRef !== "string" || artifactRef === "")) {
    throw new TrialProtocolError("artifact_ref", "artifact_ref must be null or a non-empty string");
  }
  const error = payload.error ?? null;
  if (error !== null && !isPlainObject(error)) throw new TrialProtocolError("error", "error must be null or a JSON object");
  return {
    protocol_version,
    request_id,
    status: status as TrialStatus,
    reward,
    metrics,
    artifact_ref: artifactRef,
    // The gateway always sets `code`; a peer that does not is tolerated and read through snapshotErrorCode.
    error: error === null ? null : (finiteJsonObject(error, "error") as unknown as TrialError),
  };
}

/** The error code of a snapshot, or null when it has none (or not as a non-empty string). */
export function snapshotErrorCode(snapshot: Pick<TrialSnapshot, "error">): string | null {
  const code: unknown = snapshot.error?.code;
  return typeof code === "string" && code !== "" ? code : null;
}

/**
 * `relax-<sha256 hex>`: stable across retries inside one managed launch (same invocation id), new for a relaunch,
 * and never revealing the session id, which is also the bearer token.
 */
export function stableRequestId(sessionId: string, attempt: number, invocationId?: string): string {
  const session = nonBlankString(sessionId, "session_id");
  const attemptValue = attemptNumber(attempt);
  const digestInput = invocationId === undefined ? `${session}\0${attemptValue}` : `${nonBlankString(invocationId, "invocation_id")}\0${session}\0${attemptValue}`;
  return `relax-${createHash("sha256").update(digestInput, "utf8").digest("hex")}`;
}

/** One log line about a request, without api_key, session_id, api_key_prefix, headers or URL credentials. */
export function describeTrialRequest(request: TrialRequest): string {
  const endpoint = new URL(request.model_endpoint.base_url);
  const fields = [
    `request_id=${request.request_id}`,
    `environment=${request.environment.name}`,
    `config=${request.environment.config}`,
    `group_id=${request.session.group_id}`,
    `rollout_mode=${request.session.rollout_mode}`,
    `attempt=${request.session.attempt}`,
    `interrupt_policy=${request.interrupt_policy}`,
    `deadline_s=${request.deadline_s}`,
    `lease_s=${request.lease_s}`,
    `base_url=${endpoint.origin}${endpoint.pathname.replace(/\/+$/, "")}`,
    `model=${request.model_endpoint.model}`,
    `api_key_header=${request.model_endpoint.api_key_header}`,
  ];
  return `TrialRequest(${fields.join(" ")})`;
}
