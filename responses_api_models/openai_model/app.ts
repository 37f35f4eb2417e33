// openai_model: a passthrough to any OpenAI-compatible endpoint (`/responses`, `/chat/completions`).
// The request wins over `extra_body`, `model` is forced to the configured one, and upstream failures come
// back with the upstream's status and body instead of hanging or retrying forever.
import { z } from "zod";
import { DeadlineExceededError, HttpClient, TransportError, type HttpResponse } from "../../src/client/index.ts";
import { ChatCompletionSchema, ResponseSchema } from "../../src/protocol/index.ts";
import { HttpError, modelMetricsOf, responsesApiModel, type ModelMetrics } from "../../src/server/index.ts";
import { Semaphore } from "../../src/models/semaphore.ts";

const OpenAIModelConfig = z.looseObject({
  openai_base_url: z.string().url(),
  openai_api_key: z.string().nullish(),
  openai_model: z.string(),
  extra_body: z.record(z.string(), z.unknown()).nullish().transform((v) => v ?? {}),
  openai_default_headers: z.record(z.string(), z.string()).nullish().transform((v) => v ?? {}),
  max_concurrent_requests: z.number().int().positive().nullish(),
  drop_input_reasoning_items: z.union([z.boolean(), z.string().transform((s) => s.toLowerCase() === "true")]).default(false),
  /** Retries for 429/500/502/503/504/520 answers (NeMo Gym retries some of these forever). */
  max_retries: z.number().int().min(0).default(3),
  request_timeout_s: z.number().positive().default(600),
});
type OpenAIModelConfig = z.output<typeof OpenAIModelConfig>;

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504, 520]);

interface Upstream {
  http: HttpClient;
  gate: Semaphore | undefined;
  metrics: ModelMetrics;
}
const upstreams = new WeakMap<object, Upstream>();

async function callUpstream(config: OpenAIModelConfig, path: string, payload: unknown): Promise<unknown> {
  const { http, gate, metrics } = upstreams.get(config)!;
  const url = `${config.openai_base_url.replace(/\/+$/, "")}${path}`;
  const headers: Record<string, string> = { ...config.openai_default_headers };
  if (config.openai_api_key) headers.authorization = `Bearer ${config.openai_api_key}`;
  const release = await gate?.acquire();
  try {
    for (let attempt = 0; ; attempt++) {
      const answer = await send(http, url, payload, headers);
      if (answer.ok) {
        try {
          return answer.json();
        } catch {
          throw new HttpError(502, `upstream ${url} answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 2000)}`);
        }
      }
      if (RETRY_STATUSES.has(answer.status) && attempt < config.max_retries) {
        metrics.countRetry(answer.status);
        const retryAfterS = Number(answer.headers["retry-after"]);
        await new Promise((r) => setTimeout(r, Number.isFinite(retryAfterS) && retryAfterS > 0 ? Math.min(retryAfterS, 30) * 1000 : 500 * 2 ** attempt));
        continue;
      }
      // 4xx are the caller's to fix and keep their status; upstream 5xx become 502 (a bad gateway, not our bug).
      throw new HttpError(answer.status < 500 ? answer.status : 502, `upstream ${url} answered ${answer.status}: ${answer.text.slice(0, 2000)}`);
    }
  } finally {
    release?.();
  }
}

/** One POST; an unreachable or silent upstream is a gateway error naming it (502 / 504), not our 500. */
async function send(http: HttpClient, url: string, payload: unknown, headers: Record<string, string>): Promise<HttpResponse> {
  try {
    return await http.request(url, { method: "POST", json: payload, headers });
  } catch (error) {
    if (error instanceof TransportError) throw new HttpError(502, `upstream ${url} could not be reached: ${error.message}`);
    if (error instanceof DeadlineExceededError) throw new HttpError(504, `upstream ${url} gave no complete answer within ${error.deadlineMs / 1000} s (request_timeout_s)`);
    throw error;
  }
}

/** As NeMo Gym's reasoning item model, which has no `status` (OpenAI rejects it when echoed back). */
const withoutReasoningStatus = (item: unknown) => {
  if ((item as { type?: string })?.type !== "reasoning") return item;
  const { status: _status, ...rest } = item as Record<string, unknown>;
  return rest;
};

export default responsesApiModel({
  name: "SimpleModelServer",
  config: OpenAIModelConfig,

  setup({ config, metrics }) {
    upstreams.set(config, {
      metrics: modelMetricsOf(metrics),
      http: new HttpClient({ deadlineMs: config.request_timeout_s * 1000, maxRetries: 2 }),
      gate: config.max_concurrent_requests ? new Semaphore(config.max_concurrent_requests) : undefined,
    });
  },

  async close({ config }) {
    await upstreams.get(config)?.http.close();
  },

  async responses({ rawParams }, { config }) {
    let input = rawParams.input;
    if (Array.isArray(input)) {
      input = input.map(withoutReasoningStatus) as typeof input;
      if (config.drop_input_reasoning_items) input = input.filter((item) => (item as { type?: string }).type !== "reasoning");
    }
    const payload = { ...config.extra_body, ...rawParams, input, model: config.openai_model };
    const upstream = await callUpstream(config, "/responses", payload);
    const parsed = ResponseSchema.safeParse(upstream);
    if (!parsed.success) throw new HttpError(502, `upstream /responses answered something that is not a Responses API response: ${parsed.error.message.slice(0, 1000)}`);
    return parsed.data;
  },

  async chatCompletions({ rawParams }, { config }) {
    const upstream = await callUpstream(config, "/chat/completions", { ...config.extra_body, ...rawParams, model: config.openai_model });
    const parsed = ChatCompletionSchema.safeParse(upstream);
    if (!parsed.success) throw new HttpError(502, `upstream /chat/completions answered something that is not a chat completion: ${parsed.error.message.slice(0, 1000)}`);
    return parsed.data;
  },
});
