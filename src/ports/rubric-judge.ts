// What NeMo Gym's rubric-judged environments (multichallenge, inverse_if) share, each as their app.py define it:
// the final answer read from a response with the thinking removed, and the aggregation of per-item scores into one
// reward by `aggregation_mode`.
import type { NeMoGymResponse } from "../protocol/index.ts";
import { stripThinkingTraces } from "./assistant-answer-text.ts";
import { pythonStrip } from "../python/str.ts";
import { pythonSum } from "../python/sum.ts";

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
    // Unlike lastAssistantAnswerText, a message whose parts hold no text is the answer (""), as in NeMo Gym's multichallenge.
    return excludeThinking ? stripThinkingTraces(text) : pythonStrip(text);
  }
  return "";
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
