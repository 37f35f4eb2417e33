// Builds a NeMoGymResponse around output items the way NeMo Gym's model servers do: the request's
// sampling fields are echoed, every optional field is present (null when unset).
import { createHash, randomUUID } from "node:crypto";
import type { NeMoGymResponse, ResponseCreateParams, Usage } from "../protocol/index.ts";

export function usageOf(inputTokens: number, outputTokens: number): Usage {
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

export interface EnvelopeOptions {
  params: ResponseCreateParams;
  model: string;
  output: NeMoGymResponse["output"];
  usage: Usage | null;
  id?: string;
  createdAt?: number;
  incompleteReason?: "max_output_tokens" | "content_filter";
}

export function responseEnvelope(options: EnvelopeOptions): NeMoGymResponse {
  const { params } = options;
  return {
    id: options.id ?? `resp_${randomUUID().replace(/-/g, "")}`,
    created_at: options.createdAt ?? Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: options.incompleteReason ? { reason: options.incompleteReason } : null,
    instructions: params.instructions ?? null,
    metadata: params.metadata ?? null,
    model: options.model,
    object: "response",
    output: options.output,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    temperature: params.temperature ?? null,
    tool_choice: params.tool_choice ?? "auto",
    tools: params.tools ?? [],
    top_p: params.top_p ?? null,
    background: params.background ?? null,
    max_output_tokens: params.max_output_tokens ?? null,
    max_tool_calls: params.max_tool_calls ?? null,
    previous_response_id: params.previous_response_id ?? null,
    prompt: params.prompt ?? null,
    reasoning: params.reasoning ?? null,
    service_tier: params.service_tier ?? null,
    status: null,
    text: params.text ?? null,
    top_logprobs: params.top_logprobs ?? null,
    truncation: params.truncation ?? null,
    usage: options.usage,
    user: params.user ?? null,
  } as NeMoGymResponse;
}

/** A stable id from content, so a deterministic policy produces byte-identical rollouts run after run. */
export function stableId(prefix: string, ...parts: unknown[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(typeof part === "string" ? part : JSON.stringify(part)).update("\u0000");
  return `${prefix}_${hash.digest("hex").slice(0, 32)}`;
}

/** A rough token count (4 characters a token) for usage figures of scripted policies. */
export const approxTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));
