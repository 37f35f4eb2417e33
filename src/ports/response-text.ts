// The "best-effort" assistant text several NeMo Gym servers (spartqa, ragtruth, iheval, bbq, rolemrc, …) read from a
// Responses answer with their `_response_text`: openai's `Response.output_text` when it is a non-empty string, else
// the text of every `message` item, whatever its role or part type (a string content, or each part's `text`), joined
// without separator.
//
// `output_text` is a property that iterates each message's content and reads `.type` of every part; a message whose
// content is a non-empty string (an easy input message echoed into the output) makes it raise AttributeError, which
// `getattr(response, "output_text", None)` turns into None — so that response falls through to the second reading.
import type { NeMoGymResponse } from "../protocol/index.ts";

type Item = { type?: unknown; content?: unknown };
type Part = { type?: unknown; text?: unknown };

/** openai's `Response.output_text`, or undefined where the property raises (a message with a non-empty string content). */
export function openaiOutputText(response: Pick<NeMoGymResponse, "output">): string | undefined {
  let text = "";
  for (const item of response.output as Item[]) {
    if (item.type !== "message") continue;
    if (typeof item.content === "string") {
      if (item.content !== "") return undefined;
      continue;
    }
    for (const part of (item.content ?? []) as Part[]) if (part.type === "output_text" && typeof part.text === "string") text += part.text;
  }
  return text;
}

/** A message content flattened to text: a string as it is, a list's string items and parts' `text`. */
export function messageContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content as unknown[]) {
    if (typeof part === "string") text += part;
    else if (typeof (part as Part | null)?.text === "string") text += (part as Part).text;
  }
  return text;
}

/** `_response_text(response)`: output_text when non-empty, else every message item's text joined. */
export function bestEffortResponseText(response: Pick<NeMoGymResponse, "output">): string {
  const outputText = openaiOutputText(response);
  if (outputText) return outputText;
  let text = "";
  for (const item of response.output as Item[]) if (item.type === "message") text += messageContentText(item.content);
  return text;
}
