// MultiChallenge's scoring pieces, each as NeMo Gym's multichallenge app.py defines it: the final answer read from a
// response (thinking removed), the judge context built from raw messages, the YES/NO verdict read from a judge answer,
// a rubric item's score, and the aggregation of the item scores into one reward.
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { AttributeError } from "../../src/python/exception.ts";
import { fromJsonValue, pythonStr } from "../../src/python/values.ts";

export const AGGREGATION_MODES = ["mean", "min", "max", "all", "any", "weighted"] as const;
export type AggregationMode = (typeof AGGREGATION_MODES)[number];

/**
 * The text of the last assistant message: its parts' texts joined by newlines, stripped; with `excludeThinking`,
 * paired `<think>…</think>` / `<thinking>…</thinking>` blocks go, and so does everything up to an unpaired closing
 * tag (the opening tag was in the prompt template). "" when no assistant message has text content.
 */
export function finalAnswerText(response: Pick<NeMoGymResponse, "output">, excludeThinking = true): string {
  for (const item of [...response.output].reverse()) {
    const message = item as { type?: unknown; role?: unknown; content?: unknown };
    if (message.type !== "message" || message.role !== "assistant") continue;
    let text: string;
    if (Array.isArray(message.content)) {
      const texts = message.content.flatMap((part) => (typeof (part as { text?: unknown })?.text === "string" ? [(part as { text: string }).text] : []));
      text = pythonStrip(texts.join("\n"));
    } else if (typeof message.content === "string") {
      text = pythonStrip(message.content);
    } else {
      continue;
    }
    if (excludeThinking) {
      text = text.replace(/<think>.*?<\/think>/gs, "").replace(/<thinking>.*?<\/thinking>/gs, "");
      // Anchored at the start of the text (Python's `^` without MULTILINE): one replacement at most.
      text = text.replace(/^.*?<\/think>/s, "").replace(/^.*?<\/thinking>/s, "");
    }
    return pythonStrip(text);
  }
  return "";
}

/** `[ROLE]: content` per message, blank-line separated; `thinking` messages are left out when asked. */
export function contextFromMessages(messages: unknown[], excludeThinking = true): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message === null || typeof message !== "object" || Array.isArray(message)) throw new AttributeError(`'${pythonTypeOf(message)}' object has no attribute 'get'`);
    const record = message as Record<string, unknown>;
    const role = "role" in record ? record.role : "unknown";
    const content = "content" in record ? record.content : "";
    if (excludeThinking && role === "thinking") continue;
    if (typeof role !== "string") throw new AttributeError(`'${pythonTypeOf(role)}' object has no attribute 'upper'`);
    parts.push(`[${role.toUpperCase()}]: ${pythonStr(fromJsonValue(content))}`);
  }
  return parts.join("\n\n");
}

export type Verdict = "YES" | "NO";

/**
 * The judge's verdict: whichever label occurs last in the answer; with neither label, the answer's last line
 * (upper-cased) decides — "YES" in it is YES, else "NO" in it is NO — and anything else is NO.
 */
export function extractVerdict(judgeText: string, yesLabel: string, noLabel: string): Verdict {
  const yesAt = judgeText.lastIndexOf(yesLabel);
  const noAt = judgeText.lastIndexOf(noLabel);
  if (yesAt < 0 && noAt < 0) {
    const lines = pythonStrip(judgeText).split("\n");
    const lastLine = pythonStrip(lines.at(-1) ?? "").toUpperCase();
    if (lastLine.includes("YES")) return "YES";
    if (lastLine.includes("NO")) return "NO";
    return "NO";
  }
  return yesAt > noAt ? "YES" : "NO";
}

/** 1 when the verdict is the one the item expects: NO for pass criteria "no" (any case), YES for anything else. */
export function rubricItemScore(passCriteria: string, verdict: Verdict): number {
  if (passCriteria.toUpperCase() === "NO") return verdict === "NO" ? 1 : 0;
  return verdict === "YES" ? 1 : 0;
}

/** A rubric item counts as passed from 0.99 up. */
export const PASS_THRESHOLD = 0.99;

/** The reward from the item scores (and weights, for `weighted`); no items is 0. */
export function aggregateScores(mode: AggregationMode, evaluations: readonly { score: number; weight: number }[]): number {
  if (evaluations.length === 0) return 0;
  const scores = evaluations.map((e) => e.score);
  switch (mode) {
    case "mean":
      return pythonSum(scores) / scores.length;
    case "min":
      return Math.min(...scores);
    case "max":
      return Math.max(...scores);
    case "all":
      return scores.every((s) => s >= PASS_THRESHOLD) ? 1 : 0;
    case "any":
      return scores.some((s) => s >= PASS_THRESHOLD) ? 1 : 0;
    case "weighted": {
      const totalWeight = pythonSum(evaluations.map((e) => e.weight));
      if (totalWeight === 0) return 0;
      return pythonSum(evaluations.map((e) => e.score * e.weight)) / totalWeight;
    }
  }
}

function pythonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return "dict";
}
