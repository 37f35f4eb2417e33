// HTTP to the gateway's trial API: create, get (optionally long-polled), renew, abort. Transport failures, 408,
// 429 and 5xx are retried with exponential backoff; other statuses fail at once. Errors name only the operation
// and the status, because a gateway body may echo the request, and with it the session's bearer token.
import { HttpClient, type HttpResponse } from "../../client/http-client.ts";
import { parseTrialSnapshot, serializeTrialRequest } from "../protocol.ts";
import type { TrialRequest, TrialSnapshot } from "../types.ts";
import type { ClientConfig } from "./client-config.ts";
import { GatewayRequestError, RequestCancelled } from "./errors.ts";
import { sleepUnlessAborted } from "./sleep.ts";

/** Reply header by which a gateway says it held the poll up to `wait` seconds (so no pause is needed before the next). */
export const LONG_POLL_HEADER = "x-ng-long-poll";

export interface PollResult {
  snapshot: TrialSnapshot;
  /** The gateway honoured `?wait=`; a gateway that ignores it answers at once and the caller should pause. */
  longPolled: boolean;
}

interface Call {
  operation: string;
  method: "GET" | "POST";
  path: string;
  timeoutS: number;
  body?: string;
  maxRetries?: number;
  signal?: AbortSignal;
}

const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export class GatewayClient {
  private readonly http: HttpClient;

  constructor(
    readonly config: ClientConfig,
    http?: HttpClient,
  ) {
    // Retries are decided here (they depend on the status too), so the transport never retries on its own.
    this.http = http ?? new HttpClient({ maxRetries: 0, connectTimeoutMs: Math.min(10, config.requestTimeoutS) * 1000 });
  }

  async create(request: TrialRequest, signal?: AbortSignal): Promise<TrialSnapshot> {
    // Serialized once: a retried create must resend exactly the same body, or the gateway would answer 409.
    const body = JSON.stringify(serializeTrialRequest(request));
    const response = await this.send({ operation: "create", method: "POST", path: "/v1/trials", timeoutS: this.config.startupTimeoutS, body, signal });
    return parseTrialSnapshot(parseJson(response, "create"), request.request_id);
  }

  /** `waitS` > 0 asks the gateway to hold the reply until the trial is terminal or that many seconds pass. */
  async get(requestId: string, options: { waitS?: number; signal?: AbortSignal } = {}): Promise<PollResult> {
    const waitS = options.waitS ?? 0;
    const query = waitS > 0 ? `?wait=${encodeURIComponent(String(waitS))}` : "";
    const response = await this.send({
      operation: "get",
      method: "GET",
      path: `${trialPath(requestId)}${query}`,
      timeoutS: this.config.requestTimeoutS + waitS,
      signal: options.signal,
    });
    const snapshot = parseTrialSnapshot(parseJson(response, "get"), requestId);
    return { snapshot, longPolled: waitS > 0 && headerValue(response, LONG_POLL_HEADER) === "1" };
  }

  async renew(requestId: string, signal?: AbortSignal): Promise<void> {
    await this.send({ operation: "renew", method: "POST", path: `${trialPath(requestId)}/renew`, timeoutS: this.config.requestTimeoutS, signal });
  }

  /** One attempt with a short budget: it runs while the session is being torn down. */
  async abort(requestId: string): Promise<void> {
    await this.send({ operation: "abort", method: "POST", path: `${trialPath(requestId)}/abort`, timeoutS: this.config.abortTimeoutS, maxRetries: 0 });
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async send(call: Call): Promise<HttpResponse> {
    const retries = call.maxRetries ?? this.config.maxRetries;
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.config.gatewayToken !== null) headers.authorization = `Bearer ${this.config.gatewayToken}`;
    for (let attempt = 0; ; attempt++) {
      if (call.signal?.aborted) throw new RequestCancelled(call.operation);
      let response: HttpResponse | undefined;
      try {
        response = await this.http.request(`${this.config.gatewayUrl}${call.path}`, {
          method: call.method,
          rawBody: call.body,
          headers,
          deadlineMs: call.timeoutS * 1000,
          maxRetries: 0,
          signal: call.signal,
        });
      } catch {
        if (call.signal?.aborted) throw new RequestCancelled(call.operation);
        if (attempt >= retries) throw new GatewayRequestError(`Gateway ${call.operation} request failed after transport retries`, call.operation, null);
      }
      if (response !== undefined) {
        if (response.ok) return response;
        if (!isRetryableStatus(response.status)) {
          throw new GatewayRequestError(`Gateway ${call.operation} request failed with HTTP ${response.status}`, call.operation, response.status);
        }
        if (attempt >= retries) {
          throw new GatewayRequestError(`Gateway ${call.operation} request failed with HTTP ${response.status} after retries`, call.operation, response.status);
        }
      }
      await sleepUnlessAborted(this.config.retryBackoffS * 1000 * 2 ** attempt, call.signal);
    }
  }
}

const trialPath = (requestId: string) => `/v1/trials/${encodeURIComponent(requestId)}`;

function headerValue(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(response: HttpResponse, operation: string): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new GatewayRequestError("Gateway returned a non-JSON response", operation, response.status);
  }
}
