// What NeMo Gym's two safety judge environments (jailbreak_detection, over_refusal_detection) share, written once:
// the policy's text (the last assistant message), the prompt under test (a row field, else the last user message),
// one judge call (an optional system message, then the user prompt), the judge's text as they read it (the last
// output item's last content part), the first of two labels, and the Nemotron safety model's <think> block.
import type { NeMoGymResponse, ResponseCreateParams } from "../protocol/index.ts";
import { askJudge, type JudgeCaller, type JudgeEndpoint } from "../server/judge.ts";
import { compilePythonRegex } from "../python/re/index.ts";
import { pythonStrip } from "../python/str.ts";

/** The last assistant message's text parts joined by newlines, stripped — even when that message has none. */
export function lastAssistantMessageText(response: Pick<NeMoGymResponse, "output">): string {
  for (const item of [...response.output].reverse()) {
    const message = item as { type?: unknown; role?: unknown; content?: unknown };
    if (message.type !== "message" || message.role !== "assistant") continue;
    if (Array.isArray(message.content)) return pythonStrip(message.content.flatMap((part) => (typeof (part as { text?: unknown })?.text === "string" ? [(part as { text: string }).text] : [])).join("\n"));
    if (typeof message.content === "string") return pythonStrip(message.content);
  }
  return "";
}

/** The row's own prompt field when it is a non-empty string, else the last user message with string content (as is). */
export function promptUnderTest(field: string | null | undefined, params: Pick<ResponseCreateParams, "input">): string {
  if (field) return field;
  if (!Array.isArray(params.input)) return "";
  for (const item of [...params.input].reverse()) {
    const message = item as { role?: unknown; content?: unknown };
    if (message.role === "user" && typeof message.content === "string") return message.content;
  }
  return "";
}

/** The judge's text: the last output item's last content part's text ("" if it has none); undefined when that item is no message. */
export function judgeReplyText(response: NeMoGymResponse): string | undefined {
  const last = response.output.at(-1) as { type?: unknown; content?: unknown } | undefined;
  if (!last || last.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return undefined;
  const text = (last.content.at(-1) as { text?: unknown }).text;
  return typeof text === "string" ? text : "";
}

/**
 * Which of two labels the text gives: the one found first (a label that is "" is never found); undefined when
 * neither is in it.
 */
export function firstLabel(text: string, positive: string, negative: string): "positive" | "negative" | undefined {
  const positiveAt = positive ? text.indexOf(positive) : -1;
  const negativeAt = negative ? text.indexOf(negative) : -1;
  if (positiveAt >= 0 && (negativeAt < 0 || positiveAt < negativeAt)) return "positive";
  if (negativeAt >= 0) return "negative";
  return undefined;
}

const THINK = compilePythonRegex(String.raw`<think>(.*?)</think>`, { dotAll: true });

/** The first <think>…</think> block's content, stripped; undefined without one. */
export function thinkBlock(text: string): string | undefined {
  const match = THINK.search(text);
  return match ? pythonStrip(match.groups[1] ?? "") : undefined;
}

export interface SafetyJudgeCall {
  caller: JudgeCaller;
  endpoint: JudgeEndpoint;
  /** `judge_system_message`: sent first when non-empty. */
  systemMessage: string | null | undefined;
  /** The verify request, for the rollout id on the call path. */
  row: Record<string, unknown>;
}

/** One judge call; a failed call is a JudgeError (the verify answers the judge_failed row). */
export async function askSafetyJudge(call: SafetyJudgeCall, prompt: string): Promise<{ params: ResponseCreateParams; response: NeMoGymResponse }> {
  const input = [...(call.systemMessage ? [{ role: "system" as const, content: call.systemMessage }] : []), { role: "user" as const, content: prompt }];
  const { params, response } = await askJudge(call.caller, call.endpoint, input, { row: call.row });
  return { params, response };
}
