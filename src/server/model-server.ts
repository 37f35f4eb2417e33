// A Responses API model server: an OpenAI-compatible front for a policy. A server implements
// `responses()` (and, when its backend speaks chat natively, `chatCompletions()`); this module gives every model server the three
// dialects on top — `/v1/responses` (JSON or replayed SSE), `/v1/chat/completions` (JSON or replayed
// SSE) and Anthropic `/v1/messages` mapped through `responses()` — and strips the `/ng-rollout/<id>`
// prefix before routing so a gateway can correlate every call with its trial.
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { ChatCompletionCreateParamsSchema, ResponseCreateParamsSchema } from "../protocol/index.ts";
import type { ChatCompletion, ChatCompletionCreateParams, NeMoGymResponse, ResponseCreateParams, ResponseCreateParamsInput } from "../protocol/index.ts";
import { anthropicMessageToSse, anthropicRequestToResponses, responsesToAnthropicMessage } from "../models/anthropic/index.ts";
import { validateAnthropicIngress } from "../models/anthropic/schemas.ts";
import { chatCompletionSse, sanitizeStreamingChatBody } from "../models/chat-streaming.ts";
import { ChatConversionError } from "../models/chat-conversion/index.ts";
import { chatToResponsesParams, responseToChatCompletion } from "../models/chat-via-responses.ts";
import { responsesFailureSse, responsesSse, sanitizeStreamingResponsesBody, validateStreamingResponsesParams } from "../models/responses-streaming.ts";
import { anthropicToolSchema, chatToolSchema, checkToolSchemas, responsesToolSchema } from "../models/tool-parameters.ts";
import { jsonTruthy } from "../python/json-value.ts";
import { laxValidate, type PydanticError } from "../python/pydantic/index.ts";
import { defineServer, type ServerContext, type ServerDefinition } from "./definition.ts";
import { HttpError, RequestValidationError } from "../protocol/errors.ts";
import { missingBody } from "./base-app.ts";
import { modelMetricsOf } from "./model-metrics.ts";
import { inProcessRoutesOf, type InProcessAnswer } from "./in-process-route.ts";

export interface ModelCall {
  sessionId: string;
  /** The `/ng-rollout/<id>` correlation id, when the call arrived prefixed. */
  rolloutId: string | undefined;
}

export interface ResponsesApiModelSpec<Config> {
  name: string;
  config: z.ZodType<Config>;
  /** NeMo Gym config keys this server does not implement, each with why (see ServerDefinition.refusedConfigKeys). */
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /** `rawParams` holds only the fields the caller set (NeMo Gym dumps requests with exclude_unset). */
  responses(call: ModelCall & { params: ResponseCreateParams; rawParams: ResponseCreateParamsInput }, context: ServerContext<Config>): Promise<NeMoGymResponse>;
  /** Optional: without it, chat requests are converted and answered by `responses()`. */
  chatCompletions?(call: ModelCall & { params: ChatCompletionCreateParams; rawParams: Record<string, unknown> }, context: ServerContext<Config>): Promise<ChatCompletion>;
  /** Runs once at start-up (load files, open pools); a throw fails the start with its message. */
  setup?(context: ServerContext<Config>): void | Promise<void>;
  close?(context: ServerContext<Config>): Promise<void>;
}

type Json = Record<string, unknown>;

function bodyObject(body: unknown): Json {
  if (body === undefined || body === null) throw missingBody();
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new RequestValidationError([{ type: "dict_type", loc: ["body"], msg: "Input should be a valid dictionary", input: body }]);
  }
  return body as Json;
}

/** FastAPI's 422 for pydantic's errors on a body (`loc` prefixed with "body"), as NeMo Gym re-raises them. */
const bodyValidationError = (errors: readonly PydanticError[]) => new RequestValidationError(errors.map((error) => ({ ...error, loc: ["body", ...error.loc] })));

/**
 * `Model.model_validate(body)`, how NeMo Gym's dispatchers validate every request body: pydantic
 * lax mode, whichever path (JSON or streamed, native or converted) the body arrived on.
 */
function validateParams<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = laxValidate(schema, body);
  if (!result.success) throw bodyValidationError(result.errors);
  return result.data;
}

/** A request the Responses⇄Chat conversion cannot express is the caller's to fix: a 400 saying why. */
export function asBadRequest<T>(convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    if (error instanceof ChatConversionError) throw new HttpError(400, error.message);
    throw error;
  }
}

const NO_FLOAT_FIELDS: ReadonlySet<string> = new Set();

/** A dialect's answer, whichever way it is sent: a JSON body, or a replayed event stream. */
type DialectAnswer = { json: unknown } | { sse: string };

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } as const;

function send(reply: FastifyReply, answer: DialectAnswer) {
  return "sse" in answer ? reply.headers(SSE_HEADERS).send(answer.sse) : answer.json;
}

/** The same answer for a caller in this process (in-process-route.ts). */
function inProcessAnswer(answer: DialectAnswer): InProcessAnswer {
  return "sse" in answer ? { status: 200, jsonText: answer.sse, contentType: SSE_HEADERS["content-type"], headers: { "cache-control": SSE_HEADERS["cache-control"] } } : { body: answer.json };
}

export function responsesApiModel<Config>(spec: ResponsesApiModelSpec<Config>): ServerDefinition<Config> {
  return defineServer<Config>({
    serverType: "responses_api_models",
    className: spec.name,
    configSchema: spec.config,
    refusedConfigKeys: spec.refusedConfigKeys,
    stripRolloutPrefix: true,
    close: spec.close,
    async register(app, context) {
      await spec.setup?.(context);
      // A request over HTTP and a call in-process carry both.
      const callOf = (source: ModelCall): ModelCall => ({ sessionId: source.sessionId, rolloutId: source.rolloutId });
      const figures = modelMetricsOf(context.metrics);
      const responses = async (call: ModelCall, params: ResponseCreateParams, rawParams: Json) => {
        const start = performance.now();
        const response = await spec.responses({ ...call, params, rawParams: rawParams as ResponseCreateParamsInput }, context);
        figures.observeCall((performance.now() - start) / 1000, response.usage?.input_tokens, response.usage?.output_tokens);
        return response;
      };

      // /v1/responses and /v1/chat/completions: one core each, answered over HTTP and in-process alike.
      const inProcess = inProcessRoutesOf(app);
      const dialect = (path: string, answer: (rawBody: unknown, call: ModelCall) => Promise<DialectAnswer>) => {
        app.post(path, async (request, reply) => send(reply, await answer(request.body, callOf(request))));
        inProcess.post(path, async (call) => inProcessAnswer(await answer(call.body, callOf(call))));
      };
      const answerResponses = async (rawBody: unknown, call: ModelCall): Promise<DialectAnswer> => {
        const body = bodyObject(rawBody);
        // NeMo Gym tests `if not body.get("stream")`: any truthy stream (1, "yes") takes the streaming path.
        if (!jsonTruthy(body.stream)) {
          const params = validateParams(ResponseCreateParamsSchema, body);
          checkToolSchemas(body.tools, responsesToolSchema);
          return { json: await responses(call, params, body) };
        }

        // A bad request still fails eagerly (422) before the stream is committed.
        const { body: sanitized, namespaces } = sanitizeStreamingResponsesBody(body);
        const validated = validateStreamingResponsesParams(sanitized);
        if ("errors" in validated) throw bodyValidationError(validated.errors);
        checkToolSchemas(body.tools, responsesToolSchema);
        let response: NeMoGymResponse;
        try {
          response = await responses(call, validated.params, validated.body);
        } catch (error) {
          context.log.error({ err: error }, "responses() failed while serving a streaming /v1/responses request");
          return { sse: responsesFailureSse(error instanceof Error ? error.message : String(error)) };
        }
        return { sse: responsesSse(response, namespaces) };
      };
      dialect("/v1/responses", answerResponses);

      // A server without its own chat path answers chat through responses().
      const chatCompletions =
        spec.chatCompletions?.bind(spec) ??
        (async (call: ModelCall & { params: ChatCompletionCreateParams; rawParams: Json }) => {
          const converted = asBadRequest(() => chatToResponsesParams(call.params, call.rawParams)) as Json;
          const params = validateParams(ResponseCreateParamsSchema, converted);
          return responseToChatCompletion(await spec.responses({ ...call, params, rawParams: converted as ResponseCreateParamsInput }, context));
        });

      const answerChat = async (rawBody: unknown, call: ModelCall): Promise<DialectAnswer> => {
        const body = bodyObject(rawBody);
        // Only a genuine boolean true streams; anything else meets the strict schema and its 422.
        const streaming = body.stream === true;
        const { body: sanitized, includeUsage } = streaming ? sanitizeStreamingChatBody(body) : { body, includeUsage: false };
        const params = validateParams(ChatCompletionCreateParamsSchema, sanitized);
        checkToolSchemas(sanitized.tools, chatToolSchema);
        const start = performance.now();
        const completion = await chatCompletions({ ...call, params, rawParams: sanitized }, context);
        figures.observeCall((performance.now() - start) / 1000, completion.usage?.prompt_tokens, completion.usage?.completion_tokens);
        return streaming ? { sse: chatCompletionSse(completion, includeUsage) } : { json: completion };
      };
      dialect("/v1/chat/completions", answerChat);

      app.post("/v1/messages", async (request, reply) => {
        const body = bodyObject(request.body);
        validateAnthropicIngress(body);
        const converted = anthropicRequestToResponses(body) as Json;
        checkToolSchemas(body.tools, anthropicToolSchema);
        // NeMo Gym builds `NeMoGymResponseCreateParamsNonStreaming(**params)` from the converted fields: lax mode too.
        const response = await responses(callOf(request), validateParams(ResponseCreateParamsSchema, converted), converted);
        const message = responsesToAnthropicMessage(response, typeof body.model === "string" && body.model ? body.model : response.model);
        // NeMo Gym tests `if body.get("stream")`: 1 and "yes" stream too.
        if (jsonTruthy(body.stream)) return send(reply, { sse: anthropicMessageToSse(message) });
        // Anthropic messages carry no Python floats; a tool input `{"temperature": 1}` stays `1`.
        reply.wireFloatFields = NO_FLOAT_FIELDS;
        return message;
      });
    },
  });
}
