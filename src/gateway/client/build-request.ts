// The create body for one Relax session: routing from the row's metadata (else NEMO_GYM_ENVIRONMENT/CONFIG), the
// session's own agentic API as the callback endpoint, and the rest from NEMO_GYM_* defaults.
import { parseTrialRequest, stableRequestId } from "../protocol.ts";
import { PROTOCOL_VERSION, type JsonObject, type JsonValue, type TrialRequest } from "../types.ts";
import { ClientInputError } from "./errors.ts";
import { jsonObjectEnv, optionalEnv, positiveIntegerEnv, positiveNumberEnv, requiredEnv, type Env } from "./env.ts";

// A row tag that is present wins, even if it is not a string: validation then names it instead of silently
// routing the row somewhere else.
const present = (value: JsonValue | undefined): value is JsonValue => value !== undefined && value !== null && value !== "";

export function buildTrialRequest(sessionInput: JsonObject, env: Env): TrialRequest {
  const sessionId = requiredEnv(env, "RELAX_SESSION_ID");
  // The per-launch IO directory scopes the request id, so a relaunched session never inherits a stale trial.
  const invocationId = requiredEnv(env, "RELAX_SESSION_IO_DIR");
  const metadata = sessionInput.metadata ?? {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new ClientInputError("session input metadata must be a JSON object");
  const environment = present(metadata.environment) ? metadata.environment : requiredEnv(env, "NEMO_GYM_ENVIRONMENT");
  const config = present(metadata.config) ? metadata.config : (optionalEnv(env, "NEMO_GYM_CONFIG") ?? environment);
  const attempt = positiveIntegerEnv(env, "NEMO_GYM_ATTEMPT", 1);
  return parseTrialRequest({
    protocol_version: PROTOCOL_VERSION,
    request_id: stableRequestId(sessionId, attempt, invocationId),
    session: {
      session_id: sessionId,
      group_id: optionalEnv(env, "RELAX_GROUP_ID") ?? "unknown",
      rollout_mode: optionalEnv(env, "RELAX_ROLLOUT_MODE") ?? "train",
      attempt,
    },
    environment: { name: environment, config, task: sessionInput },
    model_endpoint: {
      base_url: requiredEnv(env, "RELAX_BASE_URL"),
      // Relax's per-session agentic API takes the session id itself as its bearer token.
      api_key: sessionId,
      model: optionalEnv(env, "NEMO_GYM_MODEL") ?? optionalEnv(env, "OPENAI_MODEL") ?? "model",
    },
    generation: {
      responses_create_params: jsonObjectEnv(env, "NEMO_GYM_RESPONSES_CREATE_PARAMS"),
      sampling_params: jsonObjectEnv(env, "NEMO_GYM_SAMPLING_PARAMS"),
    },
    interrupt_policy: env.NEMO_GYM_INTERRUPT_POLICY ?? "protected",
    deadline_s: positiveNumberEnv(env, "NEMO_GYM_DEADLINE_S", 1800),
    lease_s: positiveNumberEnv(env, "NEMO_GYM_LEASE_S", 60),
    metadata: { integration: "relax" },
  });
}
