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
