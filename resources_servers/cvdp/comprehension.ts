// CVDP's code-comprehension categories (6, 8, 9, 10): the answer is prose, scored against the row's
// `subjective_reference` by BLEU-2 (NLTK's sentence_bleu over whitespace tokens) and CVDP's ROUGE-2 recall, as NeMo
// Gym's `_verify_subjective` does. Each category has a scoring mode: "score" (every one of the four today) rewards the
// BLEU score itself; "threshold" would reward 1.0 iff ROUGE and BLEU both exceed 0.40. Categories 9 and 10 have an
// LLM-judge mode in CVDP; NeMo Gym does not wire a judge and scores them by BLEU/ROUGE too, and so does this.
import { cvdpRougeRecall, sentenceBleu, uniformWeights } from "../../src/ports/text-overlap/index.ts";
import { pythonStrip, splitWhitespace } from "../../src/python/index.ts";

export const CODE_COMPREHENSION_CATEGORIES = [6, 8, 9, 10];

/** CVDP's cvdp_constants: n-gram order and thresholds. */
const N_GRAM = 2;
const BLEU_THRESHOLD = 0.4;
const ROUGE_THRESHOLD = 0.4;

/** CVDP's CATEGORY_SCORING_MODES; a category not listed is "threshold" (its DEFAULT_SCORING_MODE). */
const SCORING_MODES: Record<number, "score" | "threshold"> = { 6: "score", 8: "score", 9: "score", 10: "score" };

export interface ComprehensionScore {
  reward: number;
  bleu_score: number;
  rouge_score: number;
}

/**
 * The answer's scores against the reference. A reference with fewer than two words (after ROUGE's punctuation
 * stripping) has no bigrams: CVDP's ROUGE divides by zero, NeMo Gym answers 500, and this throws that
 * ZeroDivisionError (a broken row, never a score).
 */
export function scoreComprehension(category: number, answer: string, reference: string): ComprehensionScore {
  const hypothesis = pythonStrip(answer);
  const bleu = sentenceBleu([splitWhitespace(reference)], splitWhitespace(hypothesis), uniformWeights(N_GRAM));
  const rouge = cvdpRougeRecall(hypothesis, reference, N_GRAM);
  const reward = (SCORING_MODES[category] ?? "threshold") === "score" ? bleu : rouge > ROUGE_THRESHOLD && bleu > BLEU_THRESHOLD ? 1.0 : 0.0;
  return { reward, bleu_score: bleu, rouge_score: rouge };
}
