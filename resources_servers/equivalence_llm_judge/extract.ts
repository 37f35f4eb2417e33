// What the judge is shown, read from the verify request as NeMo Gym's equivalence_llm_judge reads it: the question
// (the last user message, optionally cut by a regex), the expected answer (the row's, else its metadata's) and the
// generated answer (the last assistant message, optionally cut by a regex). Regexes run with Python's semantics
// (MULTILINE | DOTALL); an invalid one (Python's re.error) matches nothing, as NeMo Gym catches it.
import type { NeMoGymResponse, ResponseCreateParams } from "../../src/protocol/index.ts";
import { HttpError } from "../../src/server/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { fromJsonValue, pythonStr } from "../../src/python/values.ts";
import { PyRegexError } from "../../src/python/exception.ts";
import { compilePythonRegexValue, UnsupportedPythonRegexError } from "../../src/python/re/index.ts";

const FLAGS = { multiline: true, dotAll: true };

/**
 * The part of `text` the regex picks: its LAST match, then the first capture group that is not blank, else the whole
 * match (stripped); `text` itself when nothing matches or the pattern is invalid.
 */
export function extractByRegex(text: string, pattern: unknown): string {
  let matches;
  try {
    matches = [...compilePythonRegexValue(pattern, FLAGS).finditer(text)];
  } catch (error) {
    if (error instanceof PyRegexError) return text;
    if (error instanceof UnsupportedPythonRegexError) throw new HttpError(501, `equivalence_llm_judge: the regex ${JSON.stringify(pattern)} uses Python syntax this port does not run (${error.message})`);
    throw error;
  }
  const last = matches.at(-1);
  if (last === undefined) return text;
  for (const group of last.groups.slice(1)) if (typeof group === "string" && pythonStrip(group) !== "") return pythonStrip(group);
  return pythonStrip(last.groups[0]!);
}

/** Whether a regex is one this port runs (for config time); a pattern Python rejects passes, since it only matches nothing. */
export function unsupportedRegex(pattern: string): string | undefined {
  try {
    compilePythonRegexValue(pattern, FLAGS);
  } catch (error) {
    if (error instanceof UnsupportedPythonRegexError) return error.message;
  }
  return undefined;
}

/** The text of one content list: every part that has a string `text`, joined by newlines. */
function partTexts(parts: readonly unknown[]): string[] {
  return parts.flatMap((part) => {
    const text = (part as { text?: unknown } | null)?.text;
    return typeof text === "string" ? [text] : [];
  });
}

/**
 * The generated answer: the last assistant message's text (its text parts joined by newlines, stripped), cut by the
 * regex when one is given; `failureMessage` when that message is empty or there is no assistant message.
 */
export function lastAssistantText(response: NeMoGymResponse, regex: unknown, failureMessage: string): string {
  for (const item of [...response.output].reverse()) {
    const message = item as { type?: unknown; role?: unknown; content?: unknown };
    if (message.type !== "message" || message.role !== "assistant") continue;
    let text: string;
    if (Array.isArray(message.content)) text = pythonStrip(partTexts(message.content).join("\n"));
    else if (typeof message.content === "string") text = pythonStrip(message.content);
    else break;
    if (text === "") return failureMessage;
    return regex ? extractByRegex(text, regex) : text;
  }
  return failureMessage;
}

/**
 * The question: the last user message's text (a content list's text blocks joined by newlines; a list without any
 * leaves the earlier user message standing), stripped, cut by the regex when one is given. A string `input` has no
 * messages, so the question is empty.
 */
export function questionText(params: ResponseCreateParams, regex: string | null | undefined): string {
  let last: string | undefined;
  if (Array.isArray(params.input)) {
    for (const item of params.input as readonly { role?: unknown; content?: unknown }[]) {
      if (item.role !== "user") continue;
      if (typeof item.content === "string") last = item.content;
      else if (Array.isArray(item.content)) {
        const texts = partTexts(item.content);
        if (texts.length > 0) last = texts.join("\n");
      }
    }
  }
  const text = pythonStrip(last ?? "");
  if (text === "" || !regex) return text;
  return extractByRegex(text, regex);
}

/** The expected answer: a non-empty `expected_answer`, else `metadata.expected_answer` as Python's str() prints it. */
export function expectedAnswerOf(row: { expected_answer?: string | null; metadata?: Record<string, unknown> | null }): string | undefined {
  if (row.expected_answer) return row.expected_answer;
  const fromMetadata = row.metadata?.expected_answer;
  return fromMetadata === undefined || fromMetadata === null ? undefined : pythonStr(fromJsonValue(fromMetadata));
}
