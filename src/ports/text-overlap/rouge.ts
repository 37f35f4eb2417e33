// ROUGE-n recall as CVDP computes it (cvdp_lib/subjective.py, which NeMo Gym's cvdp server replicates) — not the
// usual ROUGE-N: each text is lower-cased, every character that is neither a word character nor whitespace (Python
// `re`'s \w and \s) is deleted, and the rest split on whitespace into words; the score is the number of DISTINCT
// n-grams the two texts share over the reference's n-gram count WITH repeats (so a reference that repeats an n-gram
// cannot reach 1.0). A reference with fewer than n words has no n-grams: Python divides by zero there, and so does
// this (ZeroDivisionError, which a server answers with a 500 — never a score).
import { compilePythonRegex, pythonLower, splitWhitespace, ZeroDivisionError } from "../../python/index.ts";

const NOT_WORD_OR_SPACE = compilePythonRegex(String.raw`[^\w\s]`);

/** CVDP's generate_ngrams: the text's word n-grams after its lower-casing and punctuation stripping. */
export function cvdpNgrams(text: string, n: number): string[] {
  const words = splitWhitespace(NOT_WORD_OR_SPACE.sub("", pythonLower(text)));
  const ngrams: string[] = [];
  // Words hold no whitespace, so a space-joined n-gram is unambiguous.
  for (let start = 0; start + n <= words.length; start++) ngrams.push(words.slice(start, start + n).join(" "));
  return ngrams;
}

/** CVDP's calculate_ROUGE(generated, reference, n): shared distinct n-grams over the reference's n-grams. */
export function cvdpRougeRecall(generated: string, reference: string, n: number): number {
  const generatedNgrams = new Set(cvdpNgrams(generated, n));
  const referenceNgrams = cvdpNgrams(reference, n);
  let shared = 0;
  for (const ngram of new Set(referenceNgrams)) if (generatedNgrams.has(ngram)) shared++;
  if (referenceNgrams.length === 0) throw new ZeroDivisionError("division by zero");
  return shared / referenceNgrams.length;
}

// ---- rouge-score (Google's `rouge_score` package), without its stemmer ----
// Its tokenizer lower-cases the text (Python's str.lower), turns every run of characters other than ASCII a-z and
// 0-9 into a space and keeps the non-empty pieces: letters outside ASCII (é, ß, CJK, …) are separators, never
// tokens. Scores are its Score(precision, recall, fmeasure); F = 2PR/(P+R), 0 when P+R is 0.

/** A rouge-score Score. */
export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

const NON_ALPHANUMERIC_RUN = /[^a-z0-9]+/g;

/** rouge_score.tokenize.tokenize(text, stemmer=None). */
export function rougeScoreTokens(text: string): string[] {
  return pythonLower(text)
    .replace(NON_ALPHANUMERIC_RUN, " ")
    .split(" ")
    .filter((token) => token !== "");
}

const rougeFmeasure = (precision: number, recall: number): number => (precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0);

/** The length of the longest common subsequence of two token lists (rouge-score's DP table, one row at a time). */
function lcsLength(reference: readonly string[], candidate: readonly string[]): number {
  let previous = new Uint32Array(candidate.length + 1);
  let current = new Uint32Array(candidate.length + 1);
  for (const token of reference) {
    for (let j = 1; j <= candidate.length; j++) current[j] = token === candidate[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    [previous, current] = [current, previous];
  }
  return previous[candidate.length]!;
}

/** RougeScorer(["rougeL"]).score(target, prediction)["rougeL"]: 0/0/0 when either text has no token. */
export function rougeLScore(target: string, prediction: string): RougeScore {
  const targetTokens = rougeScoreTokens(target);
  const predictionTokens = rougeScoreTokens(prediction);
  if (targetTokens.length === 0 || predictionTokens.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const lcs = lcsLength(targetTokens, predictionTokens);
  const precision = lcs / predictionTokens.length;
  const recall = lcs / targetTokens.length;
  return { precision, recall, fmeasure: rougeFmeasure(precision, recall) };
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  // Tokens are [a-z0-9]+, so a space-joined n-gram is unambiguous.
  for (let start = 0; start + n <= tokens.length; start++) {
    const ngram = tokens.slice(start, start + n).join(" ");
    counts.set(ngram, (counts.get(ngram) ?? 0) + 1);
  }
  return counts;
}

/** RougeScorer([`rouge${n}`]).score(target, prediction): clipped n-gram overlap over each side's n-gram count (at least 1). */
export function rougeNScore(target: string, prediction: string, n: number): RougeScore {
  const targetNgrams = ngramCounts(rougeScoreTokens(target), n);
  const predictionNgrams = ngramCounts(rougeScoreTokens(prediction), n);
  let overlap = 0;
  for (const [ngram, count] of targetNgrams) overlap += Math.min(count, predictionNgrams.get(ngram) ?? 0);
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);
  const precision = overlap / Math.max(total(predictionNgrams), 1);
  const recall = overlap / Math.max(total(targetNgrams), 1);
  return { precision, recall, fmeasure: rougeFmeasure(precision, recall) };
}
