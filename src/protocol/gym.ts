/**
 * NeMo Gym's own request/response bodies: `/run`, `/seed_session`,
 * `/verify`, `/aggregate_metrics`.
 *
 * Dataset rows carry arbitrary extra keys (`expected_answer`,
 * `verifier_metadata`, `_ng_task_index`, ...) that must survive the trip
 * row → `/run` → `/verify` → rollout line, so every body here keeps unknown
 * top-level keys (after the declared ones); `responses_create_params` itself
 * stays strict.
 */
import { z } from "zod";
import { ResponseCreateParamsSchema, ResponseSchema, type NeMoGymResponse } from "./responses.ts";

export const BaseRunRequestSchema = z.looseObject({
  responses_create_params: ResponseCreateParamsSchema,
});
export type BaseRunRequest = z.output<typeof BaseRunRequestSchema>;
export type BaseRunRequestInput = z.input<typeof BaseRunRequestSchema>;

export const BaseVerifyRequestSchema = z.looseObject({
  ...BaseRunRequestSchema.shape,
  response: ResponseSchema,
});
export type BaseVerifyRequest = z.output<typeof BaseVerifyRequestSchema>;
export type BaseVerifyRequestInput = z.input<typeof BaseVerifyRequestSchema>;

/** Reward is a plain float; it is not range-checked. */
export const BaseVerifyResponseSchema = z.looseObject({
  ...BaseVerifyRequestSchema.shape,
  reward: z.number(),
});
export type BaseVerifyResponse = z.output<typeof BaseVerifyResponseSchema>;
export type BaseVerifyResponseInput = z.input<typeof BaseVerifyResponseSchema>;

/** `/seed_session` receives the whole dataset row; servers pick what they need. */
export const BaseSeedSessionRequestSchema = z.looseObject({});
export type BaseSeedSessionRequest = z.output<typeof BaseSeedSessionRequestSchema>;

export const BaseSeedSessionResponseSchema = z.looseObject({});
export type BaseSeedSessionResponse = z.output<typeof BaseSeedSessionResponseSchema>;

const JsonObjectSchema = z.record(z.string(), z.unknown());

export const AggregateMetricsRequestSchema = z.object({
  verify_responses: z.array(JsonObjectSchema),
});
export type AggregateMetricsRequest = z.output<typeof AggregateMetricsRequestSchema>;

export const AggregateMetricsResponseSchema = z.object({
  group_level_metrics: z.array(JsonObjectSchema).default(() => []),
  agent_metrics: JsonObjectSchema.default(() => ({})),
  key_metrics: JsonObjectSchema.default(() => ({})),
});
export type AggregateMetricsResponse = z.output<typeof AggregateMetricsResponseSchema>;

/**
 * Like openai's `Response.output_text`: the text of every `output_text` part
 * of every `message` item, concatenated without separator.
 */
export function responseOutputText(response: Pick<NeMoGymResponse, "output">): string {
  let text = "";
  for (const item of response.output) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (part.type === "output_text") text += part.text;
    }
  }
  return text;
}
