/**
 * Anthropic Messages ⇄ Responses conversion for the `/v1/messages` route every model server serves:
 * the request becomes Responses create params, the server's own `responses()` runs, and its
 * NeMoGymResponse comes back as an Anthropic message, or as Anthropic SSE when the request streamed.
 */
export { anthropicRequestToResponses } from "./request-to-responses.ts";
export { responsesToAnthropicMessage } from "./response-to-messages.ts";
export { anthropicMessageToSse, anthropicSseFrames } from "./sse.ts";
export type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicStopReason,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolUseBlock,
  AnthropicUsage,
} from "./types.ts";
