// The vLLM endpoints: which one a session talks to, and one POST to it through the project's HttpClient
// (connect timeout, deadline, bounded retries). Failures come back as HTTP errors naming the endpoint.
import { createHash } from "node:crypto";
import { DeadlineExceededError, HttpClient, TransportError, type HttpResponse } from "../../src/client/index.ts";
import { HttpError, type ModelMetrics } from "../../src/server/index.ts";
import type { VLLMModelConfig } from "./config.ts";

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504, 520]);
const MAX_RETRY_AFTER_S = 30;

/**
 * The endpoint of a session: the first 8 bytes of sha256(session_id), big-endian, modulo the number of
 * endpoints (NeMo Gym HEAD). Stable across processes and restarts, so every turn of a rollout reaches the
 * vLLM server holding its prefix cache, whichever worker serves it.
 */
export function endpointIndex(sessionId: string, endpointCount: number): number {
  const digest = createHash("sha256").update(sessionId, "utf8").digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(endpointCount));
}

/** vLLM's tokenizer routes live beside `/v1`, not under it. */
export const tokenizeUrl = (baseUrl: string) => `${baseUrl.replace(/\/v1$/, "")}/tokenize`;

/** A 2xx answer whose body is not what the endpoint promises: a bad gateway, not our bug. */
export class UpstreamContractError extends HttpError {
  constructor(url: string, problem: string) {
    super(502, `upstream ${url} ${problem}`);
  }
}

export class VllmUpstream {
  private readonly http: HttpClient;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly config: VLLMModelConfig,
    private readonly metrics?: ModelMetrics,
  ) {
    this.http = new HttpClient({ deadlineMs: config.request_timeout_s * 1000, maxRetries: 2 });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(config.default_headers)) headers[name.toLowerCase()] = value;
    headers.authorization = `Bearer ${config.api_key}`;
    this.headers = headers;
  }

  endpointFor(sessionId: string): string {
    return this.config.base_url[endpointIndex(sessionId, this.config.base_url.length)]!;
  }

  /** POSTs `payload`; 429/5xx are retried `max_retries` times. Non-2xx answers are returned, not thrown. */
  async post(url: string, payload: unknown): Promise<HttpResponse> {
    const rawBody = JSON.stringify(payload);
    for (let attempt = 0; ; attempt++) {
      const answer = await this.send(url, rawBody);
      if (!RETRY_STATUSES.has(answer.status) || attempt >= this.config.max_retries) return answer;
      this.metrics?.countRetry(answer.status);
      const retryAfterS = Number(answer.headers["retry-after"]);
      const waitMs = Number.isFinite(retryAfterS) && retryAfterS > 0 ? Math.min(retryAfterS, MAX_RETRY_AFTER_S) * 1000 : 500 * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  /** POSTs and returns the JSON of a 2xx answer; anything else is an HttpError naming the endpoint. */
  async postJson(url: string, payload: unknown): Promise<Record<string, unknown>> {
    return jsonOf(url, await this.post(url, payload));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async send(url: string, rawBody: string): Promise<HttpResponse> {
    try {
      return await this.http.request(url, { method: "POST", rawBody, headers: this.headers });
    } catch (error) {
      if (error instanceof TransportError) throw new HttpError(502, `upstream ${url} could not be reached: ${error.message}`);
      if (error instanceof DeadlineExceededError) {
        throw new HttpError(504, `upstream ${url} gave no complete answer within ${error.deadlineMs / 1000} s (request_timeout_s)`);
      }
      throw error;
    }
  }
}

/**
 * The JSON object of a 2xx answer (`text` when the caller pre-processed the body). 4xx keep their status
 * (the request is at fault); 5xx become 502.
 */
export function jsonOf(url: string, answer: HttpResponse, text: string = answer.text): Record<string, unknown> {
  if (!answer.ok) throw new HttpError(answer.status < 500 ? answer.status : 502, `upstream ${url} answered ${answer.status}: ${answer.text.slice(0, 2000)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UpstreamContractError(url, `answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 2000)}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new UpstreamContractError(url, `answered ${answer.status} with JSON that is not an object`);
  return body as Record<string, unknown>;
}
