/**
 * The Anthropic Messages response the ingress emits: the SDK's `Message` dumped with `exclude_none`, so
 * keys follow the SDK's declaration order and unset optional fields (`container`, `stop_sequence`,
 * `citations`, cache usage, …) are absent rather than null.
 */

export interface AnthropicTextBlock {
  text: string;
  type: "text";
}

export interface AnthropicThinkingBlock {
  /** The reasoning item's `encrypted_content`, or "" (open models sign nothing). */
  signature: string;
  thinking: string;
  type: "thinking";
}

export interface AnthropicToolUseBlock {
  id: string;
  input: Record<string, unknown>;
  name: string;
  type: "tool_use";
}

export type AnthropicContentBlock = AnthropicTextBlock | AnthropicThinkingBlock | AnthropicToolUseBlock;

export type AnthropicStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface AnthropicMessage {
  id: string;
  content: AnthropicContentBlock[];
  model: string;
  role: "assistant";
  stop_reason: AnthropicStopReason;
  /** Never set by the converter (Responses has no stop sequences); null when present. */
  stop_sequence?: string | null;
  type: "message";
  usage: AnthropicUsage;
}
