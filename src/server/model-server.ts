// A Responses API model server: an OpenAI-compatible front for a policy. Subclasses implement the two
// dialects; the `/ng-rollout/<id>` prefix is stripped before routing so a gateway can correlate calls.
import { z } from "zod";
import { ChatCompletionCreateParamsSchema, ResponseCreateParamsSchema } from "../protocol/index.ts";
import type { ChatCompletion, ChatCompletionCreateParams, NeMoGymResponse, ResponseCreateParams, ResponseCreateParamsInput } from "../protocol/index.ts";
import { parseBody } from "./base-app.ts";
import { defineServer, type ServerContext, type ServerDefinition } from "./definition.ts";
import { HttpError } from "./errors.ts";

export interface ModelCall {
  sessionId: string;
  rolloutId: string | undefined;
}

export interface ResponsesApiModelSpec<Config> {
  name: string;
  config: z.ZodType<Config>;
  responses(call: ModelCall & { params: ResponseCreateParams; rawParams: ResponseCreateParamsInput }, context: ServerContext<Config>): Promise<NeMoGymResponse>;
  chatCompletions?(call: ModelCall & { params: ChatCompletionCreateParams; rawParams: Record<string, unknown> }, context: ServerContext<Config>): Promise<ChatCompletion>;
  /** Runs once at start-up (load files, open pools); a throw fails the start with its message. */
  setup?(context: ServerContext<Config>): void | Promise<void>;
  close?(context: ServerContext<Config>): Promise<void>;
}

export function responsesApiModel<Config>(spec: ResponsesApiModelSpec<Config>): ServerDefinition<Config> {
  return defineServer<Config>({
    serverType: "responses_api_models",
    className: spec.name,
    configSchema: spec.config,
    stripRolloutPrefix: true,
    close: spec.close,
    async register(app, context) {
      await spec.setup?.(context);
      app.post("/v1/responses", async (request) => {
        if ((request.body as { stream?: unknown } | undefined)?.stream === true) {
          throw new HttpError(400, "stream=true is not supported by this model server yet; send stream=false or omit it");
        }
        const params = parseBody(ResponseCreateParamsSchema, request);
        return spec.responses({ params, rawParams: request.body as ResponseCreateParamsInput, sessionId: request.sessionId, rolloutId: request.rolloutId }, context);
      });
      app.post("/v1/chat/completions", async (request) => {
        if (!spec.chatCompletions) throw new HttpError(404, "Not Found");
        const params = parseBody(ChatCompletionCreateParamsSchema, request);
        return spec.chatCompletions(
          { params, rawParams: request.body as Record<string, unknown>, sessionId: request.sessionId, rolloutId: request.rolloutId },
          context,
        );
      });
    },
  });
}
