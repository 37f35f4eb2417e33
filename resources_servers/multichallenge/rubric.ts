// MultiChallenge's own scoring pieces, each as NeMo Gym's multichallenge app.py defines it: the judge context built
// from raw messages, the YES/NO verdict read from a judge answer and a rubric item's score. The final answer and the
// aggregation are src/ports/rubric-judge.ts (shared with inverse_if), re-exported here.
import { pythonStrip } from "../../src/python/str.ts";
export { AGGREGATION_MODES, PASS_THRESHOLD, aggregateScores, finalAnswerText, type AggregationMode } from "../../src/ports/rubric-judge.ts";
import { AttributeError } from "../../src/python/exception.ts";
import { fromJsonValue, pythonStr } from "../../src/python/values.ts";

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

function pythonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return "dict";
}
