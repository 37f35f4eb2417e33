// SimpleQA's reading rules (NeMo Gym's simpleqa, after the SimpleQA-Verified judge protocol): the answer text is the
// last assistant message that has any text, and the judge's grade is one letter — A (CORRECT), B (INCORRECT),
// C (NOT_ATTEMPTED) — found by NeMo Skills' lenient rules, C when nothing fits.
import type { NeMoGymResponse } from "../../src/protocol/index.ts";
import { pythonStrip } from "../../src/python/str.ts";
import { lastAssistantAnswerText } from "../../src/ports/assistant-answer-text.ts";

/** The answer text: the last assistant message with text parts, joined by newlines and stripped; "" when none. */
export const lastAssistantText = (response: NeMoGymResponse): string => lastAssistantAnswerText(response, { stripThinking: false });

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
