// omniscience's grade (NeMo Gym's omniscience, after AA-Omniscience): one letter — A CORRECT, B INCORRECT,
// C PARTIAL_ANSWER, D NOT_ATTEMPTED — and INCORRECT when nothing fits (a confident wrong answer is what the
// benchmark penalises, so an unreadable judgement is not let off as an abstention).
import { pythonStrip } from "../../src/python/str.ts";

const GRADES = ["A", "B", "C", "D"] as const;
export type Grade = (typeof GRADES)[number];

/** The whole stripped text is a letter; else its last line is exactly one; else the first of A–D found anywhere; else B. */
export function parseJudgeGrade(judgeText: string): Grade {
  const cleaned = pythonStrip(judgeText);
  const exact = GRADES.find((grade) => cleaned === grade);
  if (exact) return exact;
  const lastLine = pythonStrip(cleaned.slice(cleaned.lastIndexOf("\n") + 1));
  const last = GRADES.find((grade) => lastLine === grade);
  if (last) return last;
  return GRADES.find((grade) => cleaned.includes(grade)) ?? "B";
}

export type Verdict = "correct" | "incorrect" | "partial" | "not_attempted";
export const VERDICTS: Record<Grade, Verdict> = { A: "correct", B: "incorrect", C: "partial", D: "not_attempted" };
