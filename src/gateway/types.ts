// The relax-nemo-gym/v1 vocabulary shared by the gateway service, its callback bridge and the thin client.
import { isPlainObject } from "../python/pydantic/index.ts";

export const PROTOCOL_VERSION = "relax-nemo-gym/v1";

/** Wire order is part of the contract (tested). */
export const INTERRUPT_POLICIES = ["protected", "interruptible", "resumable"] as const;
export type InterruptPolicy = (typeof INTERRUPT_POLICIES)[number];

export const TRIAL_STATUSES = ["queued", "running", "completed", "truncated", "aborted", "failed"] as const;
export type TrialStatus = (typeof TRIAL_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<TrialStatus> = new Set(["completed", "truncated", "aborted", "failed"]);

export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

export const isJsonObject = (value: unknown): value is JsonObject => isPlainObject(value);

export interface TrialSession {
  session_id: string;
  group_id: string;
  rollout_mode: string;
  attempt: number;
}

export interface TrialEnvironment {
  name: string;
  config: string;
  task: JsonObject;
}

export interface ModelEndpoint {
  /** Absolute http(s) URL without a trailing slash. */
  base_url: string;
  api_key: string;
  model: string;
  /** Defaults: "Authorization", "Bearer ", {} — left out of the wire form when they hold them. */
  api_key_header: string;
  api_key_prefix: string;
  headers: Record<string, string>;
}

/** A validated create body (TrialRequest.from_payload in the reference). */
export interface TrialRequest {
  protocol_version: typeof PROTOCOL_VERSION;
  request_id: string;
  session: TrialSession;
  environment: TrialEnvironment;
  model_endpoint: ModelEndpoint;
  generation: JsonObject;
  interrupt_policy: InterruptPolicy;
  deadline_s: number;
  lease_s: number;
  metadata: JsonObject;
}

export type TrialReward = null | number | JsonObject;

export interface TrialError {
  code: string;
  type?: string;
  cause?: string;
  message?: string;
  [key: string]: JsonValue | undefined;
}

/** The body of create, get and abort. */
export interface TrialSnapshot {
  protocol_version: typeof PROTOCOL_VERSION;
  request_id: string;
  status: TrialStatus;
  reward: TrialReward;
  metrics: JsonObject;
  artifact_ref: string | null;
  error: TrialError | null;
}

/** Why a trial was cancelled: each maps to the status it ends in when cleanup is confirmed. */
export const CANCEL_STATUS = {
  aborted: "aborted",
  lease_expired: "aborted",
  service_shutdown: "aborted",
  gateway_restarted: "aborted",
  deadline_exceeded: "truncated",
  agent_error: "failed",
} as const satisfies Record<string, TrialStatus>;
export type CancelCause = keyof typeof CANCEL_STATUS;

/** One server-side registration: what a (environment, config) pair may run and how it is cleaned up. */
export interface EnvironmentRegistration {
  config: string;
  environment: string;
  agent_name: string | null;
  agent_url: string;
  readiness_urls: string[];
  /** `{rollout_id}` is substituted; POST (abort, force) and GET (probe). */
  abort_url: string | null;
  force_cleanup_url: string | null;
  cleanup_probe_url: string | null;
  interrupt_policy: InterruptPolicy;
  max_concurrency: number;
  queue_capacity: number;
  max_deadline_s: number;
}

/** What a model callback is forwarded with: the trial's endpoint while it is active. */
export interface CallbackTarget extends ModelEndpoint {
  generation: JsonObject;
  /** Seconds left before the trial's deadline. */
  remaining_s: number;
}

export type CallbackResource = "chat/completions" | "responses" | "messages";
