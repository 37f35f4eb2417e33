// How the thin client talks to the gateway: its URL, time budgets and retry policy, from NEMO_GYM_* variables.
import { ClientInputError } from "./errors.ts";
import { nonNegativeIntegerEnv, nonNegativeNumberEnv, optionalEnv, positiveNumberEnv, requiredEnv, type Env } from "./env.ts";

export interface ClientConfig {
  /** Absolute http(s) URL without a trailing slash. */
  gatewayUrl: string;
  startupTimeoutS: number;
  requestTimeoutS: number;
  /** Pause between status polls when the gateway does not long-poll. */
  pollIntervalS: number;
  /** Longest a status poll asks the gateway to hold the reply; 0 turns long-polling off. */
  pollWaitS: number;
  abortTimeoutS: number;
  retryBackoffS: number;
  maxRetries: number;
  /** Sent as `Authorization: Bearer …` on every trial-API request when the gateway requires it. */
  gatewayToken: string | null;
}

export function loadClientConfig(env: Env): ClientConfig {
  const gatewayUrl = requiredEnv(env, "NEMO_GYM_URL").trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/i.test(gatewayUrl)) throw new ClientInputError("NEMO_GYM_URL must be an absolute http(s) URL");
  const gatewayToken = optionalEnv(env, "NEMO_GYM_GATEWAY_TOKEN") ?? null;
  if (gatewayToken !== null && /[\r\n\0]/.test(gatewayToken)) throw new ClientInputError("NEMO_GYM_GATEWAY_TOKEN must be a single line");
  return {
    gatewayUrl,
    startupTimeoutS: positiveNumberEnv(env, "NEMO_GYM_STARTUP_TIMEOUT_S", 30),
    requestTimeoutS: positiveNumberEnv(env, "NEMO_GYM_REQUEST_TIMEOUT_S", 30),
    pollIntervalS: positiveNumberEnv(env, "NEMO_GYM_POLL_INTERVAL_S", 1),
    pollWaitS: nonNegativeNumberEnv(env, "NEMO_GYM_POLL_WAIT_S", 20),
    abortTimeoutS: positiveNumberEnv(env, "NEMO_GYM_ABORT_TIMEOUT_S", 2),
    retryBackoffS: nonNegativeNumberEnv(env, "NEMO_GYM_RETRY_BACKOFF_S", 0.25),
    maxRetries: nonNegativeIntegerEnv(env, "NEMO_GYM_MAX_RETRIES", 2),
    gatewayToken,
  };
}
