// Reasoning travels through Chat Completions as `<think>…</think>` blocks inside assistant content (NeMo Gym's
// convention); a vLLM reasoning parser moves it into `reasoning_content` / `reasoning` fields instead. These
// helpers convert between the two forms.

const THINK_BLOCK = /<think>(.*?)<\/think>/gs;

/** `["a", "", "b"]` → `<think>a</think><think>b</think>` (empty texts are skipped). */
export function wrapInThinkTags(texts: readonly string[]): string {
  return texts
    .filter((text) => text)
    .map((text) => `<think>${text}</think>`)
    .join("");
}

/** Cuts every `<think>…</think>` block out of `content`: their texts in order, and what remains. */
export function splitThinkTags(content: string): { reasoning: string[]; content: string } {
  const reasoning = [...content.matchAll(THINK_BLOCK)].map((match) => match[1]!);
  return { reasoning, content: reasoning.length > 0 ? content.replace(THINK_BLOCK, "") : content };
}

type Message = Record<string, unknown>;

/**
 * For a backend that runs a reasoning parser: `<think>` blocks are cut out of every assistant message's
 * content; with `keepReasoning` (interleaved reasoning) the first block is sent back as both
 * `reasoning_content` (vLLM < 0.16) and `reasoning` (vLLM ≥ 0.16), otherwise it is dropped.
 */
export function moveThinkTagsToReasoningFields(messages: readonly Message[], options: { keepReasoning: boolean }): Message[] {
  return messages.map((message) => {
    if (message.role !== "assistant" || !("content" in message)) return message;
    const content = message.content;
    let reasoning: string | undefined;
    let remaining: unknown = content;
    if (typeof content === "string") {
      const split = splitThinkTags(content);
      remaining = split.content;
      reasoning = split.reasoning[0];
    } else if (Array.isArray(content)) {
      remaining = content.map((part) => {
        const text = (part as { text?: unknown })?.text;
        if (typeof text !== "string") return part;
        const split = splitThinkTags(text);
        // As NeMo Gym: the last part holding a block decides.
        if (split.reasoning.length > 0) reasoning = split.reasoning[0];
        return { ...(part as object), text: split.content };
      });
    } else if (content) {
      throw new TypeError(`assistant message content must be a string, a list of parts or null, got ${typeof content}`);
    }
    const moved: Message = { ...message, content: remaining };
    if (reasoning !== undefined && options.keepReasoning) {
      moved.reasoning_content = reasoning;
      moved.reasoning = reasoning;
    }
    return moved;
  });
}

/**
 * The inverse, on a generated message: a reasoning parser's `reasoning_content` (or `reasoning`) is removed
 * and put back in front of the content as one `<think>` block, so the message is plain Chat Completions.
 * Returns the message unchanged when neither field holds text.
 */
export function reasoningFieldsToThinkTags(message: Message): Message {
  const reasoning = message.reasoning_content || message.reasoning;
  if (!reasoning) return message;
  const { reasoning_content: _rc, reasoning: _r, ...rest } = message;
  const content = typeof message.content === "string" ? message.content : "";
  return { ...rest, content: wrapInThinkTags([String(reasoning)]) + content };
}

/** The reasoning text a parser put on a message, if any (`reasoning_content` first, as NeMo Gym reads it). */
export function reasoningFieldOf(message: Message): string | undefined {
  const reasoning = message.reasoning_content || message.reasoning;
  return reasoning ? String(reasoning) : undefined;
}
