// Relax's Responses API leaves out fields that NeMo Gym's strict Responses models require (spec §2.3 step 9).
// Filling them here keeps every Gym agent working unchanged against Relax.
import { isJsonObject, type JsonObject, type JsonValue } from "../types.ts";

/**
 * Completes a successful `/v1/responses` body in place and returns it. `request` is the body that was sent
 * upstream, whose tool settings are the truthful defaults. Missing and null fields are both filled: a strict
 * model rejects either.
 */
export function applyResponsesFixups(response: JsonObject, request: JsonObject): JsonObject {
  const output = response.output;
  if (Array.isArray(output)) for (const item of output) if (isJsonObject(item)) summarizeReasoning(item);

  response.parallel_tool_calls ??= request.parallel_tool_calls ?? true;
  response.tool_choice ??= request.tool_choice ?? "auto";
  response.tools ??= request.tools ?? [];

  const usage = response.usage;
  if (isJsonObject(usage)) {
    usage.input_tokens_details ??= { cached_tokens: 0 };
    usage.output_tokens_details ??= { reasoning_tokens: 0 };
  }
  return response;
}

/** Gym reads a reasoning item's `summary`; Relax puts the text in `content` as `reasoning_text` parts. */
function summarizeReasoning(item: JsonObject): void {
  if (item.type !== "reasoning" || !Array.isArray(item.content) || item.content.length === 0) return;
  item.summary = item.content
    .filter((part): part is JsonObject => isJsonObject(part) && part.type === "reasoning_text")
    .map((part) => ({ type: "summary_text", text: part.text ?? "" }));
}
