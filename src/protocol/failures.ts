// Headers our servers add to NeMo Gym's wire (a Python peer ignores them): how a tool call is de-duplicated, and
// which kind of infrastructure failure ended an agent's attempt, so the collector records it as that kind.

/**
 * Sent by an agent on every tool call: one value per call, the same on every transport retry of that call. A
 * resources server remembers the answer (status and body bytes) per session and key, and answers a replay with it
 * instead of running the tool twice.
 */
export const IDEMPOTENCY_KEY_HEADER = "x-ng-idempotency-key";

/** On an agent's 500: the kind of infrastructure failure that ended the attempt (never a fault of the row). */
export const FAILURE_CLASS_HEADER = "x-ng-failure-class";

/**
 * The kinds an agent reports. `transport`: the connection failed, was reset or closed mid-exchange;
 * `timeout`: no complete answer within the deadline; `environment_unavailable`: a 502, 503, 504, 408 or 429 (a
 * proxy or an overloaded server answered, not the environment's code); `invalid_inner_answer`: an answer that is
 * not the server's own JSON (a 200 that does not parse, a 500 with an HTML or cut body, a seed without the
 * session cookie, a verify without a numeric reward).
 */
export const INFRASTRUCTURE_FAILURE_CLASSES = ["transport", "timeout", "environment_unavailable", "invalid_inner_answer"] as const;
export type InfrastructureFailureClass = (typeof INFRASTRUCTURE_FAILURE_CLASSES)[number];

export const isInfrastructureFailureClass = (value: unknown): value is InfrastructureFailureClass =>
  typeof value === "string" && (INFRASTRUCTURE_FAILURE_CLASSES as readonly string[]).includes(value);
