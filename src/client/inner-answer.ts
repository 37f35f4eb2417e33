// What an agent may take from another Gym server's answer. The rule, in one place for every agent:
//
//   The server's own answer is
//     - a 2xx whose body parses as JSON, or
//     - a 4xx other than 408/429, or a 5xx other than 502/503/504, whose body is a JSON object with `detail`
//       (FastAPI's HTTPException, its 422 and 404, our 413/415), or
//     - a 500 whose body is a JSON string (NeMo Gym's and our answer to an exception the server's code raised:
//       `repr(e)`, or "Hit an exception … calling an inner server: …").
//   Anything else — a transport error, a deadline, a 408/429/502/503/504, a body that is not that JSON (HTML from a
//   proxy, a cut body, garbage) — is an infrastructure failure: it ends the attempt as a typed failure and is never
//   shown to the model or scored.
//
// A tool's own answer, error or not, is what the model reads (NeMo Gym feeds tool errors back). Any other call
// (model, seed, verify) treats a non-2xx own answer as NeMo Gym does: an InnerServerError.
import { InnerServerError } from "../protocol/errors.ts";
import { FAILURE_CLASS_HEADER, isInfrastructureFailureClass, type InfrastructureFailureClass } from "../protocol/failures.ts";
import { DeadlineExceededError, TransportError, type HttpResponse } from "./http-client.ts";

/** An attempt ended by the infrastructure, not by the row, the model or the environment's code. */
export class InfrastructureFailure extends Error {
  constructor(
    readonly failureClass: InfrastructureFailureClass,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "InfrastructureFailure";
  }
}

/** Statuses a proxy, a load balancer or an overloaded server answers: never the environment's verdict. */
const UNAVAILABLE_STATUSES = new Set([408, 429, 502, 503, 504]);
const EXCERPT_CHARS = 300;
const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}…` : JSON.stringify(text));

/**
 * The body as JSON, or `undefined` when it does not parse (a JSON body is never `undefined`). `lookOnly`: the parse
 * is kept for the json() that reads the answer next (peekJson), not made twice.
 */
function parsedBody(response: HttpResponse, lookOnly = false): unknown {
  try {
    return lookOnly && response.peekJson ? response.peekJson() : response.json();
  } catch {
    return undefined;
  }
}

const isDetailObject = (body: unknown) => typeof body === "object" && body !== null && !Array.isArray(body) && "detail" in body;

/** Why `response` is not the server's own answer, or `undefined` when it is. */
function notOwnAnswer(response: HttpResponse): { failureClass: InfrastructureFailureClass; reason: string } | undefined {
  const reported = response.headers[FAILURE_CLASS_HEADER];
  // An agent we called already typed its failure: keep the type.
  if (response.status >= 500 && isInfrastructureFailureClass(reported)) return { failureClass: reported, reason: `it reported ${reported}` };
  if (UNAVAILABLE_STATUSES.has(response.status)) return { failureClass: "environment_unavailable", reason: `HTTP ${response.status}` };
  const body = parsedBody(response, true);
  if (response.ok) return body === undefined ? { failureClass: "invalid_inner_answer", reason: `HTTP ${response.status} with a body that is not JSON` } : undefined;
  if (isDetailObject(body)) return undefined;
  if (response.status === 500 && typeof body === "string") return undefined;
  return { failureClass: "invalid_inner_answer", reason: `HTTP ${response.status} with a body that is not the server's JSON error` };
}

/** Throws the InfrastructureFailure for an answer that is not the server's own. */
export function requireOwnAnswer(response: HttpResponse, url: string): HttpResponse {
  const failure = notOwnAnswer(response);
  if (failure) throw new InfrastructureFailure(failure.failureClass, `${url} answered ${failure.reason}: ${excerpt(response.text)}`);
  return response;
}

/** A tool call's answer as the text the model reads (its own answer, error or not); an infrastructure failure throws. */
export function toolOutputText(response: HttpResponse, url: string): string {
  return requireOwnAnswer(response, url).text;
}

/** A call the agent cannot go on without (model, seed, verify): its own 2xx JSON answer; its own error raises as NeMo Gym does. */
export function requireOwnSuccess(response: HttpResponse, url: string): HttpResponse {
  requireOwnAnswer(response, url);
  if (!response.ok) throw new InnerServerError(response.status, response.text, url);
  return response;
}

/** Runs an outbound call; a transport failure or a deadline becomes the typed InfrastructureFailure. */
export async function innerCall(url: string, call: () => Promise<HttpResponse>): Promise<HttpResponse> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof DeadlineExceededError) throw new InfrastructureFailure("timeout", error.message, { cause: error });
    if (error instanceof TransportError) throw new InfrastructureFailure("transport", error.message, { cause: error });
    throw error;
  }
}

/** The cookies a seed answer set; none is an infrastructure failure (every Gym server sets its session cookie). */
export function requireSessionCookie(response: HttpResponse, url: string): Record<string, string> {
  if (Object.keys(response.cookies).length === 0) {
    throw new InfrastructureFailure("invalid_inner_answer", `${url} answered HTTP ${response.status} without a session cookie: ${excerpt(response.text)}`);
  }
  return response.cookies;
}

/** A verify answer's body: a JSON object with a finite numeric reward, else an infrastructure failure. */
export function requireVerifyResponse(response: HttpResponse, url: string): Record<string, unknown> & { reward: number } {
  const body = parsedBody(response) as Record<string, unknown> | undefined;
  const reward = typeof body === "object" && body !== null && !Array.isArray(body) ? body.reward : undefined;
  if (typeof reward !== "number" || !Number.isFinite(reward)) {
    throw new InfrastructureFailure("invalid_inner_answer", `${url} answered without a numeric reward: ${excerpt(response.text)}`);
  }
  return body as Record<string, unknown> & { reward: number };
}
