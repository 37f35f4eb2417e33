// The one path every LLM-as-judge environment asks its judge through (NeMo Gym's nemo_gym/judge.py boundary).
//
// A failed judge *call* — transport, deadline, auth, any HTTP error, a body that is not a judge answer — is a
// JudgeError. The resources server's /verify turns it into NeMo Gym's judge_failsafe row (200, reward 0.0,
// `_ng_failure_class: judge_failed`), which collection routes to `<output>_failures.jsonl`: never a reward, left out of
// the metrics, retried by `--resume`. A judge answer that arrived but says nothing parseable is NOT an error: the
// environment's parser scores it, as NeMo Gym does. Only the call is wrapped, never the scoring around it, so a bug in
// prompt assembly stays a bug (a 500) instead of being filed as a judge failure.
//
// On top of NeMo Gym: bounded retries of 429/5xx with backoff, a per-judge-server concurrency cap, the rollout id on
// the call path (`/ng-rollout/<id>/...`, so the judge's logs and the gateway correlate it with the rollout), and an
// optional result cache (judge-cache.ts) for re-verifying stored rollouts without paying twice.
import { z } from "zod";
import {
  ChatCompletionCreateParamsSchema,
  ChatCompletionSchema,
  ResponseCreateParamsSchema,
  ResponseSchema,
  responseOutputText,
  type ChatCompletion,
  type ChatCompletionCreateParams,
  type ChatCompletionCreateParamsInput,
  type NeMoGymResponse,
  type ResponseCreateParams,
  type ResponseCreateParamsInput,
} from "../protocol/index.ts";
import type { ConfigDict } from "../config/index.ts";
import type { ServerClient } from "../client/server-client.ts";
import type { HttpResponse } from "../client/http-client.ts";
import { Semaphore } from "../models/semaphore.ts";
import { correlationIdOfRow, rolloutPathPrefix } from "./agent-server.ts";
import { judgeCacheFor, type JudgeCache } from "./judge-cache.ts";

/** A judge call failed; /verify answers NeMo Gym's judge_failed row instead of a reward. */
export class JudgeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "JudgeError";
  }
}

/** Where a judge lives and how it is sampled: an instance's `judge_model_server` and `judge_responses_create_params`. */
export interface JudgeEndpoint {
  serverName: string;
  /** Sampling parameters; the prompt (`input` / `messages`) is set per call. */
  params: Record<string, unknown>;
  /** Calls in flight to this judge (NeMo Gym's `judge_endpoint_max_concurrency`); else the global `judge_max_concurrency`. */
  maxConcurrency?: number;
}

export const JudgeModelServerRefSchema = z.looseObject({ type: z.string().optional(), name: z.string() });

/** The endpoint an instance config names (NeMo Gym's key names by default; some servers use their own). */
export function judgeEndpoint(config: Record<string, unknown>, keys: { server?: string; params?: string; maxConcurrency?: string } = {}): JudgeEndpoint {
  const serverKey = keys.server ?? "judge_model_server";
  const paramsKey = keys.params ?? "judge_responses_create_params";
  const concurrencyKey = keys.maxConcurrency ?? "judge_endpoint_max_concurrency";
  const cap = config[concurrencyKey];
  if (cap !== undefined && cap !== null && !(Number.isInteger(cap) && (cap as number) > 0)) throw new Error(`${concurrencyKey}: expected a positive integer, got ${JSON.stringify(cap)}`);
  const ref = JudgeModelServerRefSchema.safeParse(config[serverKey]);
  if (!ref.success) throw new Error(`${serverKey}: expected {type: responses_api_models, name: <instance>}, got ${JSON.stringify(config[serverKey])}`);
  const params = config[paramsKey] ?? {};
  if (typeof params !== "object" || params === null || Array.isArray(params)) throw new Error(`${paramsKey}: expected a mapping of sampling parameters`);
  return { serverName: ref.data.name, params: params as Record<string, unknown>, ...(typeof cap === "number" ? { maxConcurrency: cap } : {}) };
}

/** Global-config knobs of the judge path (ours; NeMo Gym has none of them). */
export interface JudgeSettings {
  /** Retries of a 429 / 500 / 502 / 503 / 504 answer (transport failures are retried by the HTTP client). */
  maxRetries: number;
  /** First backoff; doubles per retry, capped at 30 s; a Retry-After header (seconds) wins when larger. */
  retryBackoffMs: number;
  /** Judge calls in flight per judge server, per resources server process. */
  maxConcurrency: number;
  /** Deadline of one judge call attempt. */
  deadlineMs: number;
  /** SQLite file of the judge result cache; off when unset. */
  cachePath: string | undefined;
}

export const JUDGE_GLOBAL_KEYS = ["judge_max_retries", "judge_retry_backoff_ms", "judge_max_concurrency", "judge_timeout_seconds", "judge_cache_path"] as const;

export function judgeSettingsOf(globalConfig: ConfigDict): JudgeSettings {
  const number = (key: string, fallback: number, min: number) => {
    const value = globalConfig[key];
    if (value === undefined || value === null) return fallback;
    const parsed = typeof value === "string" ? Number(value) : value;
    if (typeof parsed !== "number" || !Number.isFinite(parsed) || parsed < min) throw new Error(`${key}: expected a number >= ${min}, got ${JSON.stringify(value)}`);
    return parsed;
  };
  const cachePath = globalConfig.judge_cache_path;
  if (cachePath !== undefined && cachePath !== null && typeof cachePath !== "string") throw new Error(`judge_cache_path: expected a file path, got ${JSON.stringify(cachePath)}`);
  return {
    maxRetries: Math.floor(number("judge_max_retries", 3, 0)),
    retryBackoffMs: number("judge_retry_backoff_ms", 1000, 0),
    maxConcurrency: Math.floor(number("judge_max_concurrency", 64, 1)),
    deadlineMs: number("judge_timeout_seconds", 600, 0.001) * 1000,
    cachePath: cachePath || undefined,
  };
}

/** What a judge call needs from the resources server asking: its client, the global config, and the row being judged. */
export interface JudgeCaller {
  client: ServerClient;
  globalConfig: ConfigDict;
}

export interface JudgeCallOptions {
  /** The verify request (or any row): its `_ng_rollout_id` / task and rollout indices name the rollout on the call path. */
  row?: Record<string, unknown>;
  signal?: AbortSignal;
}

interface JudgeRuntime {
  settings: JudgeSettings;
  limits: Map<string, Semaphore>;
  cache: JudgeCache | undefined;
}

const runtimes = new WeakMap<ServerClient, JudgeRuntime>();

function runtimeOf(caller: JudgeCaller): JudgeRuntime {
  let runtime = runtimes.get(caller.client);
  if (!runtime) {
    const settings = judgeSettingsOf(caller.globalConfig);
    runtime = { settings, limits: new Map(), cache: settings.cachePath ? judgeCacheFor(settings.cachePath) : undefined };
    runtimes.set(caller.client, runtime);
  }
  return runtime;
}

/**
 * The rollout id the agent's model calls carry (correlationIdOfRow), so the judge's calls correlate with them; a
 * malformed explicit id is the agent's to refuse, and here just leaves the path bare.
 */
export function judgedRolloutId(row: Record<string, unknown> | undefined): string | undefined {
  if (!row) return undefined;
  try {
    return correlationIdOfRow(row);
  } catch {
    return undefined;
  }
}

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 30_000;

function retryAfterMs(response: HttpResponse): number {
  const header = response.headers["retry-after"];
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_BACKOFF_MS) : 0;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => { signal?.removeEventListener("abort", onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** POSTs one judge request with retries; returns the parsed JSON body of a 2xx answer or throws JudgeError. */
async function postToJudge(caller: JudgeCaller, endpoint: JudgeEndpoint, path: string, body: unknown, options: JudgeCallOptions): Promise<unknown> {
  const runtime = runtimeOf(caller);
  const { settings } = runtime;
  const { serverName } = endpoint;
  let limit = runtime.limits.get(serverName);
  if (!limit) runtime.limits.set(serverName, (limit = new Semaphore(endpoint.maxConcurrency ?? settings.maxConcurrency)));
  const fullPath = `${rolloutPathPrefix(judgedRolloutId(options.row))}${path}`;
  const release = await limit.acquire();
  try {
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await caller.client.post(serverName, fullPath, { json: body, deadlineMs: settings.deadlineMs, signal: options.signal, idempotent: true });
      } catch (error) {
        throw new JudgeError(`${serverName}${path}: ${(error as Error).name}: ${(error as Error).message}`, { cause: error });
      }
      if (response.ok) {
        try {
          return response.json();
        } catch (error) {
          throw new JudgeError(`${serverName}${path} answered ${response.status} with a body that is not JSON: ${response.text.slice(0, 300)}`, { cause: error });
        }
      }
      if (!RETRYABLE_STATUSES.has(response.status) || attempt >= settings.maxRetries) {
        const retried = attempt > 0 ? ` (after ${attempt} retr${attempt === 1 ? "y" : "ies"})` : "";
        throw new JudgeError(`${serverName}${path} answered ${response.status}${retried}: ${response.text.slice(0, 500)}`);
      }
      const backoff = Math.min(settings.retryBackoffMs * 2 ** attempt, MAX_BACKOFF_MS);
      try {
        await sleep(Math.max(backoff, retryAfterMs(response)), options.signal);
      } catch (error) {
        throw new JudgeError(`${serverName}${path}: the verify request was abandoned while waiting to retry`, { cause: error });
      }
    }
  } finally {
    release();
  }
}

/** The sampling parameters plus this call's prompt; the prompt replaces whatever `input` the config held. */
function withPrompt<T extends Record<string, unknown>>(params: Record<string, unknown>, prompt: T): Record<string, unknown> {
  return { ...structuredClone(params), ...prompt };
}

export interface JudgeResponsesResult {
  /** The request sent, as the environments record it (`judge_evaluations[*].responses_create_params`). */
  params: ResponseCreateParams;
  response: NeMoGymResponse;
  /** All output text of the answer, concatenated (responseOutputText). */
  text: string;
  /** True when the answer came from the judge cache. */
  cached: boolean;
}

/** Asks a judge through its `/v1/responses` (NeMo Gym's call_judge with NeMoGymResponse). */
export async function askJudge(
  caller: JudgeCaller,
  endpoint: JudgeEndpoint,
  input: ResponseCreateParamsInput["input"],
  options: JudgeCallOptions = {},
): Promise<JudgeResponsesResult> {
  const params = ResponseCreateParamsSchema.parse(withPrompt(endpoint.params, { input }));
  const cache = runtimeOf(caller).cache;
  const key = cache?.keyOf(endpoint.serverName, judgeModelOf(caller.globalConfig, endpoint.serverName), "/v1/responses", params);
  const hit = key === undefined ? undefined : cache!.get(key);
  let body: unknown = hit;
  if (body === undefined) body = await postToJudge(caller, endpoint, "/v1/responses", params, options);
  const parsed = ResponseSchema.safeParse(body);
  if (!parsed.success) throw new JudgeError(`${endpoint.serverName}/v1/responses answered a body that is not a Response: ${JSON.stringify(body).slice(0, 300)}`);
  if (hit === undefined && key !== undefined) cache!.set(key, body);
  return { params, response: parsed.data, text: responseOutputText(parsed.data), cached: hit !== undefined };
}

export interface JudgeChatResult {
  params: ChatCompletionCreateParams;
  completion: ChatCompletion;
  /** The first choice's message content ("" when null). */
  text: string;
  cached: boolean;
}

/** Asks a judge through its `/v1/chat/completions` (the servers whose NeMo Gym config sets `use_chat_completions_for_judge`). */
export async function askJudgeChat(
  caller: JudgeCaller,
  endpoint: JudgeEndpoint,
  messages: ChatCompletionCreateParamsInput["messages"],
  options: JudgeCallOptions = {},
): Promise<JudgeChatResult> {
  // Responses-only sampling keys have chat spellings; the rest (temperature, top_p) are shared.
  const { max_output_tokens, input: _input, ...shared } = endpoint.params as Record<string, unknown>;
  const chatParams = { ...shared, ...(max_output_tokens !== undefined && shared.max_tokens === undefined ? { max_tokens: max_output_tokens } : {}) };
  const params = ChatCompletionCreateParamsSchema.parse(withPrompt(chatParams, { messages }));
  const cache = runtimeOf(caller).cache;
  const key = cache?.keyOf(endpoint.serverName, judgeModelOf(caller.globalConfig, endpoint.serverName), "/v1/chat/completions", params);
  const hit = key === undefined ? undefined : cache!.get(key);
  let body: unknown = hit;
  if (body === undefined) body = await postToJudge(caller, endpoint, "/v1/chat/completions", params, options);
  const parsed = ChatCompletionSchema.safeParse(body);
  if (!parsed.success) throw new JudgeError(`${endpoint.serverName}/v1/chat/completions answered a body that is not a ChatCompletion: ${JSON.stringify(body).slice(0, 300)}`);
  if (hit === undefined && key !== undefined) cache!.set(key, body);
  const content = parsed.data.choices?.[0]?.message?.content;
  return { params, completion: parsed.data, text: typeof content === "string" ? content : "", cached: hit !== undefined };
}

/** Python's `value or fallback` for a sampling number (None and 0 fall back). */
const pythonOr = (value: unknown, fallback: number) => (typeof value === "number" && value !== 0 ? value : fallback);

/**
 * The sampling parameters NeMo Gym's `use_chat_completions_for_judge` servers send over chat: only max_tokens (from
 * max_output_tokens), temperature and top_p, each `value or fallback`; the max_tokens fallback is the server's own.
 */
export function chatJudgeSamplingParams(params: Record<string, unknown>, maxTokensFallback: number): { max_tokens: number; temperature: number; top_p: number } {
  return { max_tokens: pythonOr(params.max_output_tokens, maxTokensFallback), temperature: pythonOr(params.temperature, 0.0), top_p: pythonOr(params.top_p, 1.0) };
}

/** A chat judge answer as NeMo Gym records it in the verify response: a Response holding one assistant message. */
export function chatAnswerAsResponse(completion: ChatCompletion, text: string): NeMoGymResponse {
  return ResponseSchema.parse({
    id: completion.id,
    created_at: completion.created,
    model: completion.model,
    object: "response",
    output: [{ id: "msg_chat", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
    parallel_tool_calls: false,
    tool_choice: "none",
    tools: [],
  });
}

/** The model a judge server instance serves, for the cache key: its `model` / `model_name` field, else its name. */
function judgeModelOf(globalConfig: ConfigDict, serverName: string): string {
  const block = globalConfig[serverName] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const impl = block && Object.values(block)[0] && Object.values(Object.values(block)[0]!)[0];
  const model = impl?.model ?? impl?.model_name;
  return typeof model === "string" ? model : serverName;
}

/** Re-raises any failure of `call` as a JudgeError (NeMo Gym's reraise_judge_errors), for a bespoke judge call. */
export async function reraiseJudgeErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof JudgeError) throw error;
    throw new JudgeError(`${(error as Error).name}: ${(error as Error).message}`, { cause: error });
  }
}

/** NeMo Gym's judge_failsafe row: the verify request, reward 0.0 and the routing keys; collection files it as a failure. */
export function judgeFailedRow(body: Record<string, unknown>, error: JudgeError): Record<string, unknown> {
  return { ...body, reward: 0.0, _ng_failure_class: "judge_failed", _ng_failure_judge_error: error.message };
}
