// SimpleQA's reading rules (NeMo Gym's simpleqa, after the SimpleQA-Verified judge protocol): the answer text is the
// last assistant message that has any text, and the judge's grade is one letter — A (CORRECT), B (INCORRECT),
// C (NOT_ATTEMPTED) — found by NeMo Skills' lenient rules, C when nothing fits.
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";

/** The last assistant message with text parts: those parts joined by newlines, stripped ("" when there is none). */
export function lastAssistantText(response: NeMoGymResponse): string {
  for (const item of [...response.output].reverse() as { type?: unknown; role?: unknown; content?: unknown }[]) {
    if (item.type !== "message" || item.role !== "assistant") continue;
    let texts: string[] = [];
    if (Array.isArray(item.content)) texts = item.content.flatMap((part: { text?: unknown }) => (typeof part?.text === "string" ? [part.text] : []));
    else if (typeof item.content === "string") texts = [item.content];
    // A message without text (a refusal part, say) is passed over for an earlier one.
    if (texts.length > 0) return pythonStrip(texts.join("\n"));
  }
  return "";
}

const GRADES = ["A", "B", "C"] as const;
export type Grade = (typeof GRADES)[number];

const firstCharGrade = (text: string) => GRADES.find((grade) => text.startsWith(grade));

/**
 * The grade: the first character of the stripped text, else of its last line, else the first of A, B, C found
 * ANYWHERE in it (so a judge's "After…" reads as A, as in NeMo Gym); C when none.
 */
export function parseJudgeGrade(judgeText: string): Grade {
  const cleaned = pythonStrip(judgeText);
  const first = firstCharGrade(cleaned);
  if (first) return first;
  const lastLine = pythonStrip(cleaned.slice(cleaned.lastIndexOf("\n") + 1));
  const last = firstCharGrade(lastLine);
  if (last) return last;
  return GRADES.find((grade) => cleaned.includes(grade)) ?? "C";
}

export const VERDICTS: Record<Grade, "correct" | "incorrect" | "not_attempted"> = { A: "correct", B: "incorrect", C: "not_attempted" };
