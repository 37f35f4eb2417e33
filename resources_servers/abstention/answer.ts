// How abstention reads a text: the policy's answer out of its last assistant message (thinking blocks dropped, the
// last \boxed{…} taken), SQuAD-style normalisation to spot the abstention token, and the judge's A/B/C grade.
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonLower, pythonStrip, splitWhitespace } from "../../src/python/str.ts";

const THINK_BLOCK = compilePythonRegex(String.raw`<think>.*?</think>`, { dotAll: true });
const THINKING_BLOCK = compilePythonRegex(String.raw`<thinking>.*?</thinking>`, { dotAll: true });
// The opening tag may have been the prompt template's, not the model's: everything up to an unpaired closing tag goes.
const UP_TO_THINK_CLOSE = compilePythonRegex(String.raw`^.*?</think>`, { dotAll: true });
const UP_TO_THINKING_CLOSE = compilePythonRegex(String.raw`^.*?</thinking>`, { dotAll: true });

export function stripThinkingTraces(text: string): string {
  let stripped = THINK_BLOCK.sub("", text);
  stripped = THINKING_BLOCK.sub("", stripped);
  stripped = UP_TO_THINK_CLOSE.sub("", stripped);
  stripped = UP_TO_THINKING_CLOSE.sub("", stripped);
  return pythonStrip(stripped);
}

/**
 * The text of the last assistant message that has any (its parts' texts joined by newlines), thinking stripped;
 * "" when none has. Used for the policy's response and the judge's alike, as NeMo Gym does.
 */
export function lastAssistantText(response: Pick<NeMoGymResponse, "output">): string {
  for (const item of [...response.output].reverse()) {
    const message = item as { type?: unknown; role?: unknown; content?: unknown };
    if (message.type !== "message" || message.role !== "assistant") continue;
    let texts: string[] = [];
    if (Array.isArray(message.content)) texts = message.content.flatMap((part) => (typeof (part as { text?: unknown })?.text === "string" ? [(part as { text: string }).text] : []));
    else if (typeof message.content === "string") texts = [message.content];
    if (texts.length > 0) return stripThinkingTraces(pythonStrip(texts.join("\n")));
  }
  return "";
}

const BOXED = "\\boxed{";

/** The content of the last \boxed{…}, nested braces balanced; undefined when there is none or it never closes. */
export function extractBoxedAnswer(text: string): string | undefined {
  const at = text.lastIndexOf(BOXED);
  if (at < 0) return undefined;
  const start = at + BOXED.length;
  let depth = 1;
  let i = start;
  for (; i < text.length && depth > 0; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
  }
  return depth === 0 ? text.slice(start, i - 1) : undefined;
}

const ARTICLES = compilePythonRegex(String.raw`\b(a|an|the)\b`);
const PUNCTUATION = compilePythonRegex(String.raw`[^\w\s]`);

/** SQuAD's normalisation: lower case, articles and punctuation dropped, whitespace collapsed. */
export function normalizeAnswer(text: string): string {
  let s = pythonStrip(pythonLower(text));
  s = ARTICLES.sub(" ", s);
  s = PUNCTUATION.sub("", s);
  return splitWhitespace(s).join(" ");
}

export type Grade = "A" | "B" | "C";
const GRADES: readonly Grade[] = ["A", "B", "C"];

/**
 * The judge's grade, by NeMo Gym's rules in order: the whole answer is one letter; else the last line is one; else
 * the first of A, B, C (in that order, not by position) found anywhere in the text; else B (incorrect).
 */
export function parseJudgeGrade(judgeText: string): Grade {
  const cleaned = pythonStrip(judgeText);
  if ((GRADES as readonly string[]).includes(cleaned)) return cleaned as Grade;
  const lastLine = pythonStrip(cleaned.slice(cleaned.lastIndexOf("\n") + 1));
  for (const letter of GRADES) if (lastLine === letter) return letter;
  for (const letter of GRADES) if (cleaned.includes(letter)) return letter;
  return "B";
}
