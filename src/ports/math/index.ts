// Answer equivalence in the manner of HF math-verify 0.8.0 as NeMo Gym's math_with_judge calls it:
// math_metric(gold=LaTeX, prediction=expression+LaTeX, aggregation max, precision 6) on
// `\boxed{<expected>}` and the model's text. Bounded: oversized or pathological input, or running out of the
// work budget, scores 0 with a reason (NeMo Gym kills the library after 10 s and scores 0).
import { DEFAULT_LIMITS, MathWorkLimitError, notedGaps, withBudget, type BudgetLimits } from "./budget.ts";
import { verifyCandidates } from "./compare.ts";
import { extractCandidates, type Candidate } from "./extract.ts";
import { sympyStr } from "./print.ts";
import { pythonStrip } from "../../python/str.ts";

export { extractCandidates, type Candidate } from "./extract.ts";
export { expressionsEqual, verifyCandidates } from "./compare.ts";
export { parseLatex } from "./latex.ts";
export { normalizeLatex, extractBoxedContent } from "./normalize.ts";
export { sympyStr } from "./print.ts";
export { MathWorkLimitError } from "./budget.ts";

export interface MathVerification {
  /** 1 when a predicted answer equals the expected one, else 0. */
  score: 0 | 1;
  /** SymPy-style strings of the gold candidates (parsed answer, then the extracted string); null when not reached. */
  extractedGold: string[] | null;
  extractedPrediction: string[] | null;
  /** NeMo Gym's `extracted_answer`: the first predicted string equal to a gold string, else the first one. */
  extractedAnswer: string | null;
  /** Why the score is 0 without a comparison (no gold answer, input too large, work limit). */
  reason?: string;
  /**
   * Why this result may not be math-verify's: where this port gave up and math-verify would not have (budget.ts'
   * noteGap). A gap met while extracting always counts (math-verify would have taken that candidate); one met while
   * comparing only when no pair matched. Empty when the result is the one this port stands by.
   */
  gaps: string[];
}

/** Longer model outputs are not searched (math-verify would exceed NeMo Gym's 10 s on them anyway). */
export const MAX_TEXT_CHARS = 500_000;
/** A run of digits/operators this long makes the plain-expression pattern quadratic per start position. */
const MAX_EXPRESSION_RUN = 5_000;

/** NeMo Gym's _strip_math_delimiters: one outer `\( … \)`, then one outer `$ … $`. */
export function stripMathDelimiters(expected: string): string {
  let s = pythonStrip(expected);
  if (s.startsWith("\\(") && s.endsWith("\\)")) s = pythonStrip(s.slice(2, -2));
  if (s.startsWith("$") && s.endsWith("$") && s.length > 1) s = pythonStrip(s.slice(1, -1));
  return s;
}

const candidateString = (c: Candidate) => (typeof c === "string" ? c : sympyStr(c));

export function verifyMath(expected: string, prediction: string, limits: BudgetLimits = DEFAULT_LIMITS): MathVerification {
  const zero = (reason: string, gaps: readonly string[] = []): MathVerification => ({ score: 0, extractedGold: null, extractedPrediction: null, extractedAnswer: null, reason, gaps: [...gaps] });
  if (prediction.length > MAX_TEXT_CHARS || expected.length > MAX_TEXT_CHARS) return zero(`input longer than ${MAX_TEXT_CHARS} characters`);
  if (longestExpressionRun(prediction) > MAX_EXPRESSION_RUN) return zero(`a run of digits and operators longer than ${MAX_EXPRESSION_RUN} characters`);
  try {
    return withBudget(limits, () => {
      const gold = extractCandidates(`\\boxed{${stripMathDelimiters(expected)}}`, ["latex"]);
      if (gold.length === 0) return zero("no gold answer could be extracted", notedGaps());
      const predicted = extractCandidates(prediction, ["expr", "latex"]);
      const extractionGaps = [...notedGaps()];
      const score = verifyCandidates(gold, predicted) ? 1 : 0;
      const extractedGold = gold.map(candidateString);
      const extractedPrediction = predicted.map(candidateString);
      const goldStrings = extractedGold.map((s) => pythonStrip(s));
      const extractedAnswer = extractedPrediction.find((p) => pythonStrip(p) !== "" && goldStrings.includes(pythonStrip(p))) ?? extractedPrediction[0] ?? null;
      return { score, extractedGold, extractedPrediction, extractedAnswer, gaps: score === 1 ? extractionGaps : [...notedGaps()] };
    });
  } catch (error) {
    if (error instanceof MathWorkLimitError) return zero(error.message);
    if (error instanceof RangeError) return zero(`math library error: ${error.message}`);
    throw error;
  }
}

function longestExpressionRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/[\d.\s+\-*×/^()÷]{1000,}/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
