// The answer text NeMo Gym's knowledge-QA judge servers (simpleqa, omniscience, frontierscience_judge) read from a
// Responses answer — the model's, and the judge's too when it is asked over /v1/responses: the last assistant message
// that has text parts, joined by newlines and stripped; optionally without its thinking traces, as NeMo Skills'
// parse_reasoning does (<think>…</think> and <thinking>…</thinking> blocks, then anything up to a stray closing tag
// at the start). Python regex semantics (src/python/re). Also every assistant message's text at once, as NeMo Gym's
// proof-grading servers (imo_gradingbench) read it.
import type { NeMoGymResponse } from "../protocol/index.ts";
import { compilePythonRegex } from "../python/re/index.ts";
import { pythonStrip } from "../python/str.ts";

const THINKING_TRACES = [
  compilePythonRegex("<think>.*?</think>", { dotAll: true }),
  compilePythonRegex("<thinking>.*?</thinking>", { dotAll: true }),
  compilePythonRegex("^.*?</think>", { dotAll: true }),
  compilePythonRegex("^.*?</thinking>", { dotAll: true }),
];

export function stripThinkingTraces(text: string): string {
  let stripped = text;
  for (const trace of THINKING_TRACES) stripped = trace.sub("", stripped);
  return pythonStrip(stripped);
}

/** The last assistant message with text parts (a message without any, e.g. a refusal, is passed over); "" when none. */
export function lastAssistantAnswerText(response: Pick<NeMoGymResponse, "output">, options: { stripThinking: boolean }): string {
  for (const item of [...response.output].reverse() as { type?: unknown; role?: unknown; content?: unknown }[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    let texts: string[] = [];
    if (Array.isArray(item.content)) texts = item.content.flatMap((part: { text?: unknown }) => (typeof part?.text === "string" ? [part.text] : []));
    else if (typeof item.content === "string") texts = [item.content];
    if (texts.length === 0) continue;
    const text = pythonStrip(texts.join("\n"));
    return options.stripThinking ? stripThinkingTraces(text) : text;
  }
  return "";
}

/**
 * The model's answer as these servers judge it: thinking traces stripped, and nothing at all when a trace was opened
 * but never closed (the answer was cut off mid-reasoning).
 */
export function answerAfterThinking(response: Pick<NeMoGymResponse, "output">): string {
  const raw = lastAssistantAnswerText(response, { stripThinking: false });
  const opened = raw.includes("<think>") || raw.includes("<thinking>");
  const closed = raw.includes("</think>") || raw.includes("</thinking>");
  return opened && !closed ? "" : lastAssistantAnswerText(response, { stripThinking: true });
}

/**
 * Every assistant message's text, in order, one per line and stripped (NeMo Gym's `_extract_assistant_text` of its
 * proof-grading servers): a string content as it is, else each part's `text` (a refusal part has none). Reasoning
 * items are never read.
 */
export function assistantMessagesText(response: Pick<NeMoGymResponse, "output">): string {
  const texts: string[] = [];
  for (const item of response.output as { type?: unknown; role?: unknown; content?: unknown }[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content as { text?: unknown }[]) if (typeof part?.text === "string") texts.push(part.text);
  }
  return pythonStrip(texts.join("\n"));
}

// NeMo Gym indexes `output[-1]` / `content[-1]`: an answer with nothing there fails verify (a 500), it is neither a
// failed judge call nor a verdict.
const listIndexError = () => Object.assign(new Error("list index out of range"), { name: "IndexError" });

/**
 * A judge's verdict text as NeMo Gym's judge servers read it: the last output item's last content part, when the item
 * is a message and the part output_text; undefined for any other item or part (no verdict); IndexError where Python's
 * indexing raises.
 */
export function lastOutputPartText(response: Pick<NeMoGymResponse, "output">): string | undefined {
  const last = response.output.at(-1);
  if (last === undefined) throw listIndexError();
  if (last.type !== "message" || !Array.isArray(last.content)) return undefined;
  const part = last.content.at(-1);
  if (part === undefined) throw listIndexError();
  return part.type === "output_text" ? part.text : undefined;
}

/** NeMo Gym's instruction-following servers' text: the last output item's first content part; "" when it has none (a tool call, …). */
export function finalResponseText(response: Pick<NeMoGymResponse, "output">): string {
  const last = response.output.at(-1) as { content?: unknown } | undefined;
  if (!last || !Array.isArray(last.content) || last.content.length === 0) return "";
  const text = (last.content[0] as { text?: unknown }).text;
  if (typeof text !== "string") throw new TypeError("the last output item's first content part has no text");
  return text;
}
