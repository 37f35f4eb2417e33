// A Responses API agent: `/v1/responses` runs the loop for one conversation, `/run` seeds → loops →
// verifies one dataset row, `/aggregate_metrics` summarises verify responses.
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { AggregateMetricsRequestSchema, BaseRunRequestSchema, ResponseCreateParamsSchema } from "../protocol/index.ts";
import type { NeMoGymResponse, ResponseCreateParams, ResponseCreateParamsInput } from "../protocol/index.ts";
import { computeAggregateMetrics } from "../metrics/index.ts";
import { parseBody } from "./base-app.ts";
import { HttpError } from "../protocol/errors.ts";
import { FAILURE_CLASS_HEADER } from "../protocol/failures.ts";
import { FLOAT_FIELDS } from "../protocol/wire-json.ts";
import { InfrastructureFailure } from "../client/inner-answer.ts";
import { defineServer, type ServerContext, type ServerDefinition } from "./definition.ts";
import { inProcessRoutesOf } from "./in-process-route.ts";

export interface AgentCall {
  /** Cookies the caller sent (normally the resources server's session cookie). */
  cookies: Record<string, string>;
  /** `/ng-rollout/<id>` correlation id, when the call arrived prefixed. */
  rolloutId: string | undefined;
  /** Aborted when the caller hangs up: a loop nobody waits for stops instead of running on. */
  signal: AbortSignal;
}

/** An AbortSignal that fires if the client disconnects before the reply is written. */
export function callerGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new Error("the caller disconnected"));
  });
  return controller.signal;
}

export interface AgentResponsesResult {
  response: NeMoGymResponse;
  /** Cookies to hand back to the caller (resources-server and model-server sessions). */
  cookies: Record<string, string>;
}

export interface ResponsesApiAgentSpec<Config> {
  name: string;
  config: z.ZodType<Config>;
  /** NeMo Gym config keys this server does not implement, each with why (see ServerDefinition.refusedConfigKeys). */
  refusedConfigKeys?: Readonly<Record<string, string>>;
  /** `params` is the validated request; `rawParams` is exactly what was sent (NeMo Gym forwards only set fields). */
  responses(
    call: AgentCall & { params: ResponseCreateParams; rawParams: ResponseCreateParamsInput },
    context: ServerContext<Config>,
  ): Promise<AgentResponsesResult>;
  /** `row` keeps every dataset field (extra="allow"). */
  run(call: AgentCall & { row: Record<string, unknown> & { responses_create_params: ResponseCreateParamsInput } }, context: ServerContext<Config>): Promise<Record<string, unknown>>;
  /** /run answer fields that Python types as float, written with a trailing ".0" when integral (beyond `reward`). */
  floatFields?: string[];
  /** Defaults to computing the metrics locally. */
  aggregateMetrics?(body: z.output<typeof AggregateMetricsRequestSchema>, context: ServerContext<Config>): Promise<unknown>;
}

/**
 * An attempt the infrastructure ended (InfrastructureFailure): a 500, as NeMo Gym answers any exception, with a JSON
 * string body and the failure's class in a header, so the collector records and retries it as that class.
 */
export async function answeringInfrastructureFailures<T>(reply: FastifyReply, handle: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await handle();
  } catch (error) {
    if (!(error instanceof InfrastructureFailure)) throw error;
    const answer = infrastructureFailureAnswer(error);
    return reply.code(answer.status).headers(answer.headers).header("content-type", "application/json").send(Buffer.from(answer.jsonText));
  }
}

function infrastructureFailureAnswer(error: InfrastructureFailure): { status: number; jsonText: string; headers: Record<string, string> } {
  return { status: 500, jsonText: JSON.stringify(`${error.failureClass}: ${error.message}`), headers: { [FAILURE_CLASS_HEADER]: error.failureClass } };
}

/** The Set-Cookie lines an agent answers with: the sessions its loop used (resources and model servers). */
const setCookieLines = (cookies: Record<string, string>) => Object.entries(cookies).map(([name, value]) => `${name}=${value}; Path=/; SameSite=lax`);

function setCookies(reply: FastifyReply, cookies: Record<string, string>): void {
  const lines = setCookieLines(cookies);
  if (lines.length > 0) reply.header("set-cookie", lines);
}

/**
 * refusedConfigKeys for an agent whose /run always verifies: NeMo Gym's reads neither key, so setting one would
 * silently mean nothing.
 */
export const alwaysVerifiesKeys = (agent: string): Record<string, string> => ({
  skip_verification: `${agent} always verifies (NeMo Gym's run ignores skip_verification)`,
  skip_verification_reward: `${agent} always verifies, so there is no reward for a skipped verification`,
});

export function responsesApiAgent<Config>(spec: ResponsesApiAgentSpec<Config>): ServerDefinition<Config> {
  return defineServer<Config>({
    serverType: "responses_api_agents",
    className: spec.name,
    configSchema: spec.config,
    refusedConfigKeys: spec.refusedConfigKeys,
    register(app, context) {
      // One conversation, for the HTTP routes and their in-process twins alike: the body read as the params model
      // (a 422 otherwise), then the loop.
      const converse = (call: AgentCall & { body: unknown }) =>
        spec.responses({ params: parseBody(ResponseCreateParamsSchema, call), rawParams: call.body as ResponseCreateParamsInput, cookies: call.cookies, rolloutId: call.rolloutId, signal: call.signal }, context);
      const responses = (request: FastifyRequest<{ Params: { rollout_id?: string } }>, reply: FastifyReply) =>
        answeringInfrastructureFailures(reply, async () => {
          const result = await converse({ body: request.body, cookies: request.cookies, rolloutId: request.params.rollout_id, signal: callerGone(reply) });
          setCookies(reply, result.cookies);
          return result.response;
        });
      app.post("/v1/responses", responses);
      // The prefixed twin: a self-call made during /run carries the rollout id to the model calls.
      app.post("/ng-rollout/:rollout_id/v1/responses", responses);
      // The same two routes in-process: /run's self-call, and a co-located caller's (see in-process-route.ts).
      const inProcess = inProcessRoutesOf(app);
      inProcess.post(
        "/v1/responses",
        async (call) => {
          try {
            const result = await converse(call);
            return { body: result.response, setCookie: setCookieLines(result.cookies) };
          } catch (error) {
            if (!(error instanceof InfrastructureFailure)) throw error;
            return infrastructureFailureAnswer(error);
          }
        },
        { withRolloutPrefix: true },
      );
      context.self = {
        post(path, request) {
          // A path of no in-process route (undefined) is the caller's to send over HTTP.
          const answering = inProcess.route(path);
          if (answering === undefined) return undefined;
          const deadlineMs = context.client.http.options.deadlineMs;
          return context.client.baseUrl(context.instanceName).then((base) => answering({ ...request, url: `${base}${path}`, deadlineMs }));
        },
      };

      app.post("/run", async (request, reply) => {
        parseBody(BaseRunRequestSchema, request);
        const row = request.body as Record<string, unknown> & { responses_create_params: ResponseCreateParamsInput };
        if (spec.floatFields) reply.wireFloatFields = new Set([...FLOAT_FIELDS, ...spec.floatFields]);
        return answeringInfrastructureFailures(reply, () => spec.run({ row, cookies: request.cookies, rolloutId: undefined, signal: callerGone(reply) }, context));
      });

      app.post("/aggregate_metrics", async (request) => {
        const body = parseBody(AggregateMetricsRequestSchema, request);
        return spec.aggregateMetrics ? spec.aggregateMetrics(body, context) : computeAggregateMetrics(body.verify_responses);
      });
    },
  });
}

const ROLLOUT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The row's correlation id, only when observability is on (see correlationIdOfRow). A malformed explicit id is
 * refused rather than rewritten: the caller could not look it up.
 */
export function rolloutIdForRow(row: Record<string, unknown>, globalConfig: Record<string, unknown>): string | undefined {
  if (globalConfig.observability_enabled !== true) return undefined;
  return correlationIdOfRow(row);
}

/**
 * NeMo Gym's correlation id of a row: an explicit `_ng_rollout_id`, else `"<task>-<rollout>"` from the two indices
 * (numbers, or the strings a trial gateway injects), plus `-a<n>` for retries; undefined without either. A malformed
 * explicit id is a 422.
 */
export function correlationIdOfRow(row: Record<string, unknown>): string | undefined {
  const explicit = row._ng_rollout_id;
  let rolloutId: string;
  if (explicit !== undefined && explicit !== null) {
    if (typeof explicit !== "string" || !ROLLOUT_ID_PATTERN.test(explicit)) {
      throw new HttpError(422, "_ng_rollout_id must be a string of letters, digits, dots, dashes or underscores starting with a letter or digit");
    }
    rolloutId = explicit;
  } else {
    const index = (value: unknown) => (Number.isInteger(value) || (typeof value === "string" && ROLLOUT_ID_PATTERN.test(value)) ? String(value) : undefined);
    const task = index(row._ng_task_index);
    const rollout = index(row._ng_rollout_index);
    if (task === undefined || rollout === undefined) return undefined;
    rolloutId = `${task}-${rollout}`;
  }
  const attempt = row._ng_attempt_index;
  return `${rolloutId}${Number.isInteger(attempt) && (attempt as number) > 0 ? `-a${attempt}` : ""}`;
}

export const rolloutPathPrefix = (rolloutId: string | undefined) => (rolloutId ? `/ng-rollout/${rolloutId}` : "");
