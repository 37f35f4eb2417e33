// Responses API ⇄ Chat Completions conversion (NeMo Gym's `responses_converter.py`) as pure functions, for
// every model server and gateway that fronts a Chat Completions backend.
export { ChatConversionError } from "./errors.ts";
export { moveThinkTagsToReasoningFields, reasoningFieldOf, reasoningFieldsToThinkTags, splitThinkTags, wrapInThinkTags } from "./reasoning-tags.ts";
export { knownChatRequestFields, responsesInputToChatMessages, responsesToChatRequest, type ChatMessage, type ChatRequestBody, type ResponsesToChatOptions } from "./responses-to-chat.ts";
export {
  assistantMessageToOutputItems,
  chatCompletionToResponse,
  chatMessagesToResponseItems,
  chatRequestToResponsesParams,
  usageFromChat,
  type ChatToResponsesOptions,
} from "./chat-to-responses.ts";
