// A fake vLLM OpenAI-compatible server over real HTTP (127.0.0.1, port 0) for tests and benchmarks:
// `POST /v1/chat/completions` answers scripted generations in vLLM's wire format (logprobs as
// "token_id:N" with `return_tokens_as_token_ids`, inline `prompt_token_ids` / `token_ids` with
// `return_token_ids`, reasoning fields, tool calls, usage), `POST /tokenize` tokenizes the prompt with a
// deterministic fake tokenizer, `POST /v1/responses` answers scripted Responses. Every request is recorded.
//
//   const vllm = await startFakeVllm();
//   vllm.script({ reasoning_content: "think", content: "hi" }, { error: "context_length" });
//   … vllm.url ("http://127.0.0.1:PORT/v1"), vllm.chatBodies(), vllm.requests …
//   await vllm.close();
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

export interface FakeToolCall {
  /** Default `chatcmpl-tool-<n>`. */
  id?: string;
  name: string;
  arguments: string;
}

/** One generated choice. */
export interface FakeGeneration {
  /** The message text (default "ok"; null for none). */
  content?: string | null;
  /** A reasoning parser's output as vLLM < 0.16 names it… */
  reasoning_content?: string | null;
  /** …and as vLLM ≥ 0.16 names it. */
  reasoning?: string | null;
  tool_calls?: FakeToolCall[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finish_reason?: "stop" | "length" | "tool_calls" | "content_filter";
  /** Generation token ids; default: the fake tokenization of reasoning + content + tool call arguments. */
  token_ids?: number[];
  /** Generate this many tokens (cheap synthetic ids, content "x" × n unless given): for large generations. */
  tokens?: number;
  /** Per-token log-probs; default `fakeLogProbs(n)`. */
  logprobs?: number[];
  /** Default: counted from the prompt and the generation; null: no usage. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Merged into the message (e.g. `routed_experts`, or a token bundle a trainer-side server attaches). */
  message?: Json;
  /** Merged into the choice (e.g. `token_ids` to fake a disagreement, `logprobs: null`). */
  choice?: Json;
  /** Merged into the completion's top level (e.g. `prompt_token_ids`). */
  completion?: Json;
  delayMs?: number;
}

export type FakeReply =
  | FakeGeneration
  /** vLLM's 400 for a prompt beyond the context window. */
  | { error: "context_length"; delayMs?: number }
  /** Any status and body, e.g. `{ status: 503, body: "overloaded" }`. */
  | { status: number; body: unknown; headers?: Record<string, string>; delayMs?: number }
  /** The answer of `POST /v1/responses` (is_responses_native). */
  | { response: Json; delayMs?: number };

export interface RecordedRequest {
  method: string;
  /** e.g. `/v1/chat/completions`, `/tokenize`. */
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
}

export type FakeScript = FakeReply | ((request: RecordedRequest) => FakeReply);

export interface FakeVllmOptions {
  /** Served by `GET /v1/models`; completions echo the request's `model`. */
  model?: string;
  /** `created` of every completion (default 1753983920). */
  created?: number;
  /** Answer when the script queue is empty (default `{ content: "ok" }`). */
  defaultReply?: FakeScript;
  /** Always return inline `prompt_token_ids` / `choice.token_ids`, not only when `return_token_ids` is asked. */
  inlineTokenIds?: boolean;
  /** Serve `POST /tokenize` (default true; false answers it 404, as an endpoint without it would). */
  serveTokenize?: boolean;
  maxModelLen?: number;
}

export interface FakeVllm {
  /** Base URL with the version, as vllm_model's `base_url` takes it: `http://127.0.0.1:PORT/v1`. */
  url: string;
  origin: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Queue answers for the next generation requests (chat or responses), first in, first used. */
  script(...replies: FakeScript[]): void;
  setDefault(reply: FakeScript): void;
  /** Bodies of the `/v1/chat/completions` requests received. */
  chatBodies(): any[];
  /** Forget recorded requests and queued replies. */
  reset(): void;
  close(): Promise<void>;
}

// ---- the fake tokenizer (deterministic, cheap) ----

/** Token pieces of a text: each word with its leading whitespace. */
export const fakeTokenPieces = (text: string): string[] => text.match(/\s*\S+|\s+$/g) ?? [];

function pieceId(piece: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < piece.length; i++) hash = Math.imul(hash ^ piece.charCodeAt(i), 0x01000193);
  return 100 + ((hash >>> 0) % 150_000);
}

export const fakeTokenIds = (text: string): number[] => fakeTokenPieces(text).map(pieceId);

/** The log-probs the fake reports: -0.01, -0.02, … -0.10, repeating. */
export const fakeLogProbs = (count: number): number[] => Array.from({ length: count }, (_, i) => -((i % 10) + 1) / 100);

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : part?.type === "image_url" ? "<image>" : part?.type === "audio_url" ? "<audio>" : "")).join("");
}

/** The prompt as a chat template would render it (roughly), from the fields that shape it. */
export function fakeRenderPrompt(body: { messages?: Json[]; tools?: unknown; chat_template_kwargs?: unknown }): string {
  let prompt = "";
  for (const message of body.messages ?? []) {
    prompt += ` <|${String(message.role)}|> ${contentText(message.content)}`;
    const reasoning = message.reasoning ?? message.reasoning_content;
    if (reasoning) prompt += ` <think> ${String(reasoning)} </think>`;
    if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) prompt += ` <tool_calls> ${JSON.stringify(message.tool_calls)}`;
  }
  if (body.tools) prompt += ` <tools> ${JSON.stringify(body.tools)}`;
  if (body.chat_template_kwargs) prompt += ` <kwargs> ${JSON.stringify(body.chat_template_kwargs)}`;
  return `${prompt} <|assistant|>`;
}

/** The prompt token ids the fake reports (inline and from /tokenize) for a chat request body. */
export const fakePromptTokenIds = (body: Json): number[] => fakeTokenIds(fakeRenderPrompt(body as never));

// ---- wire format ----

const CONTEXT_LENGTH_ERROR = {
  object: "error",
  message:
    "This model's maximum context length is 32768 tokens. However, you requested 32818 tokens in the messages, Please reduce the length of the messages. None",
  type: "BadRequestError",
  param: null,
  code: 400,
};

const encoder = new TextEncoder();

interface Generated {
  ids: number[];
  pieces: string[] | undefined;
}

function generatedTokens(reply: FakeGeneration, content: string | null, toolCalls: Json[]): Generated {
  if (reply.token_ids) return { ids: reply.token_ids, pieces: undefined };
  if (reply.tokens !== undefined) return { ids: synthetic(reply.tokens).ids, pieces: undefined };
  const reasoning = reply.reasoning_content ?? reply.reasoning;
  const text = (reasoning ? `<think>${reasoning}</think>` : "") + (content ?? "") + toolCalls.map((call) => JSON.stringify(call.function)).join("");
  const pieces = fakeTokenPieces(text);
  return { ids: pieces.map(pieceId), pieces };
}

const LOGPROBS_MARK = "\u0000logprobs\u0000";

/**
 * `choice.logprobs.content` as JSON text, built as one string (no per-token objects), so a 65k-token answer
 * costs milliseconds; the last large one is cached, since benchmarks ask for the same one over and over.
 */
let cachedLogprobs: { ids: number[]; logProbs: number[]; asTokenIds: boolean; json: string } | undefined;
function logprobsContentJson(generated: Generated, logProbs: number[], asTokenIds: boolean): string {
  if (cachedLogprobs && cachedLogprobs.ids === generated.ids && cachedLogprobs.logProbs === logProbs && cachedLogprobs.asTokenIds === asTokenIds) return cachedLogprobs.json;
  const parts = new Array<string>(generated.ids.length);
  for (let i = 0; i < generated.ids.length; i++) {
    const token = asTokenIds ? `token_id:${generated.ids[i]}` : (generated.pieces?.[i] ?? `<${generated.ids[i]}>`);
    parts[i] = `{"token":${JSON.stringify(token)},"logprob":${logProbs[i]},"bytes":[${encoder.encode(token).join(",")}],"top_logprobs":[]}`;
  }
  const json = `[${parts.join(",")}]`;
  if (generated.ids.length >= 1024) cachedLogprobs = { ids: generated.ids, logProbs, asTokenIds, json };
  return json;
}

/** Synthetic ids of a `tokens: n` generation, cached by length. */
const syntheticIds = new Map<number, number[]>();
const syntheticLogProbs = new Map<number, number[]>();
function synthetic(count: number): { ids: number[]; logProbs: number[] } {
  let ids = syntheticIds.get(count);
  if (!ids) {
    ids = new Array<number>(count);
    for (let i = 0; i < count; i++) ids[i] = 1000 + ((i * 7919) % 150_000);
    syntheticIds.set(count, ids);
    syntheticLogProbs.set(count, fakeLogProbs(count));
  }
  return { ids, logProbs: syntheticLogProbs.get(count)! };
}

let toolCallCounter = 0;

/** The completion's JSON text. */
function chatCompletion(body: Json, reply: FakeGeneration, options: FakeVllmOptions, completionNumber: number): string {
  const content = reply.content === undefined ? (reply.tokens !== undefined ? "x".repeat(reply.tokens) : "ok") : reply.content;
  const toolCalls = (reply.tool_calls ?? []).map((call) => ({
    id: call.id ?? `chatcmpl-tool-${++toolCallCounter}`,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  const generated = generatedTokens(reply, content, toolCalls);
  const logProbs = reply.logprobs ?? (reply.tokens !== undefined && !reply.token_ids ? synthetic(reply.tokens).logProbs : fakeLogProbs(generated.ids.length));
  const promptIds = fakePromptTokenIds(body);

  const message: Json = { role: "assistant", content, tool_calls: toolCalls };
  if (reply.reasoning_content !== undefined) message.reasoning_content = reply.reasoning_content;
  if (reply.reasoning !== undefined) message.reasoning = reply.reasoning;
  Object.assign(message, reply.message);

  // vLLM: `logprobs = top_logprobs if logprobs else None`, so an explicit null top_logprobs yields none.
  const wantsLogprobs = body.logprobs === true && body.top_logprobs !== null;
  const choice: Json = {
    index: 0,
    message,
    // Spliced in as pre-built JSON text when the completion is serialized.
    logprobs: wantsLogprobs ? { content: LOGPROBS_MARK } : null,
    finish_reason: reply.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    stop_reason: null,
  };
  const inline = body.return_token_ids === true || options.inlineTokenIds === true;
  if (inline) choice.token_ids = generated.ids;
  Object.assign(choice, reply.choice);

  const completion: Json = {
    id: `chatcmpl-fake-${completionNumber}`,
    object: "chat.completion",
    created: options.created ?? 1753983920,
    model: body.model,
    choices: [choice],
    usage:
      reply.usage === null
        ? null
        : {
            prompt_tokens: reply.usage?.prompt_tokens ?? promptIds.length,
            completion_tokens: reply.usage?.completion_tokens ?? generated.ids.length,
            total_tokens: (reply.usage?.prompt_tokens ?? promptIds.length) + (reply.usage?.completion_tokens ?? generated.ids.length),
            prompt_tokens_details: null,
          },
    prompt_logprobs: null,
  };
  if (inline) completion.prompt_token_ids = promptIds;
  Object.assign(completion, reply.completion);
  const text = JSON.stringify(completion);
  const logprobs = (completion.choices as Json[])[0]!.logprobs as Json | null;
  if (logprobs?.content !== LOGPROBS_MARK) return text;
  return text.replace(JSON.stringify(LOGPROBS_MARK), () => logprobsContentJson(generated, logProbs, body.return_tokens_as_token_ids === true));
}

function defaultResponse(body: Json, reply: FakeGeneration, options: FakeVllmOptions): Json {
  return {
    id: "resp_fake",
    created_at: options.created ?? 1753983920,
    model: body.model,
    object: "response",
    output: [
      {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: reply.content ?? "", annotations: [] }],
      },
    ],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
  };
}

// ---- the server ----

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers });
  response.end(text);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeVllm(options: FakeVllmOptions = {}): Promise<FakeVllm> {
  const requests: RecordedRequest[] = [];
  const queue: FakeScript[] = [];
  let defaultReply: FakeScript = options.defaultReply ?? { content: "ok" };
  let completions = 0;

  const nextReply = (recorded: RecordedRequest): FakeReply => {
    const script = queue.shift() ?? defaultReply;
    return typeof script === "function" ? script(recorded) : script;
  };

  const server = createServer(async (request, response) => {
    try {
      const text = await readBody(request);
      let body: any = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          return send(response, 400, { object: "error", message: "body is not JSON", type: "BadRequestError", param: null, code: 400 });
        }
      }
      const path = (request.url ?? "/").split("?")[0]!;
      const recorded: RecordedRequest = { method: request.method ?? "GET", path, headers: request.headers, body };
      requests.push(recorded);

      if (request.method === "GET" && path === "/v1/models") return send(response, 200, { object: "list", data: [{ id: options.model ?? "fake-model", object: "model" }] });
      if (request.method === "POST" && path === "/tokenize" && options.serveTokenize !== false) {
        const tokens = fakePromptTokenIds(body ?? {});
        return send(response, 200, { count: tokens.length, max_model_len: options.maxModelLen ?? 32768, tokens, token_strs: null });
      }
      if (request.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/v1/responses")) return send(response, 404, { detail: "Not Found" });

      const reply = nextReply(recorded);
      if (reply.delayMs) await sleep(reply.delayMs);
      if ("error" in reply) return send(response, 400, CONTEXT_LENGTH_ERROR);
      if ("status" in reply) return send(response, reply.status, reply.body, reply.headers);
      if (path === "/v1/responses") return send(response, 200, "response" in reply ? reply.response : defaultResponse(body, reply, options));
      if ("response" in reply) return send(response, 500, "a Responses answer was scripted for a chat completion request");
      return send(response, 200, chatCompletion(body, reply, options, ++completions), { "content-type": "application/json" });
    } catch (error) {
      send(response, 500, String((error as Error)?.stack ?? error));
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    script: (...replies) => void queue.push(...replies),
    setDefault: (reply) => void (defaultReply = reply),
    chatBodies: () => requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

