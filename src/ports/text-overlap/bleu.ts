// BLEU as NLTK 3.x's `nltk.translate.bleu_score.sentence_bleu` computes it with no smoothing (its `method0`) and
// `auto_reweigh` off — the scorer CVDP's code-comprehension categories use. Tokens are given (CVDP splits on
// whitespace). For each order k of the weights: the hypothesis' k-grams, each count clipped to its largest count in
// any one reference, over all of them (at least 1) — modified precision. The brevity penalty uses the reference
// length closest to the hypothesis' (the shorter on a tie). What NLTK does at the edges, kept here:
//   - no unigram matches at all (an empty hypothesis included): the score is 0, returned before anything else;
//   - a higher order with no matches (a hypothesis shorter than k has none): that precision becomes
//     sys.float_info.min (NLTK warns "the BLEU score evaluates to 0"), so the score is tiny, not 0 — about
//     1.5e-154 · (the rest) for weight 1/2;
//   - the sum of weighted logs is math.fsum and exp Python's math.exp (glibc's, src/python); log is V8's Math.log,
//     which may differ from glibc's by an ulp (1e-16 relative, far inside the parity tests' 1e-12).
import { pythonExp, pythonFsum } from "../../python/index.ts";

/** Python's sys.float_info.min: the smallest normal double (not Number.MIN_VALUE, the smallest subnormal). */
const FLOAT_INFO_MIN = 2.2250738585072014e-308;

/** The k-grams of a token list with their counts; a k-gram is keyed by its tokens joined with "\u0000". */
function ngramCounts(tokens: readonly string[], k: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let start = 0; start + k <= tokens.length; start++) {
    const key = tokens.slice(start, start + k).join("\u0000");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** NLTK's modified_precision: clipped k-gram matches over the hypothesis' k-gram count (at least 1). */
export function modifiedPrecision(references: readonly (readonly string[])[], hypothesis: readonly string[], k: number): { numerator: number; denominator: number } {
  const counts = ngramCounts(hypothesis, k);
  const referenceCounts = references.map((reference) => ngramCounts(reference, k));
  let numerator = 0;
  let total = 0;
  for (const [ngram, count] of counts) {
    const most = Math.max(0, ...referenceCounts.map((reference) => reference.get(ngram) ?? 0));
    numerator += Math.min(count, most);
    total += count;
  }
  return { numerator, denominator: Math.max(1, total) };
}

/** NLTK's closest_ref_length: the reference length nearest the hypothesis length, the shorter on a tie. */
function closestReferenceLength(references: readonly (readonly string[])[], hypothesisLength: number): number {
  let best = references[0]!.length;
  for (const { length } of references) {
    const [distance, bestDistance] = [Math.abs(length - hypothesisLength), Math.abs(best - hypothesisLength)];
    if (distance < bestDistance || (distance === bestDistance && length < best)) best = length;
  }
  return best;
}

/** NLTK's brevity_penalty. */
function brevityPenalty(referenceLength: number, hypothesisLength: number): number {
  if (hypothesisLength > referenceLength) return 1;
  if (hypothesisLength === 0) return 0;
  return pythonExp(1 - referenceLength / hypothesisLength);
}

/**
 * `sentence_bleu(references, hypothesis, weights)` (NLTK 3.x, no smoothing): one weight per n-gram order, from
 * unigrams up. `references` must not be empty (NLTK raises on that too).
 */
export function sentenceBleu(references: readonly (readonly string[])[], hypothesis: readonly string[], weights: readonly number[]): number {
  if (references.length === 0) throw new Error("sentenceBleu: at least one reference is needed");
  const precisions = weights.map((_, index) => modifiedPrecision(references, hypothesis, index + 1));
  const penalty = brevityPenalty(closestReferenceLength(references, hypothesis.length), hypothesis.length);
  if (precisions.length === 0 || precisions[0]!.numerator === 0) return 0;
  // float(Fraction(numerator, denominator)): both are small ints, so JS division is the same correctly rounded ratio.
  const smoothed = precisions.map(({ numerator, denominator }) => (numerator !== 0 ? numerator / denominator : FLOAT_INFO_MIN));
  return penalty * pythonExp(pythonFsum(weights.map((weight, index) => weight * Math.log(smoothed[index]!))));
}

/** Uniform weights for BLEU-n, as CVDP builds them: `[1.0 / n] * n`. */
export const uniformWeights = (n: number): number[] => Array.from({ length: n }, () => 1.0 / n);
