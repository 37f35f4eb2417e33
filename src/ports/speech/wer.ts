// Word error rate as jiwer 4's `wer(reference, hypothesis)` computes it with its default transform: each sentence
// has runs of two or more whitespace characters made one space, is stripped, and is split on " " (empty pieces
// dropped); the WER is the total word-level Levenshtein distance over the total number of reference words. jiwer
// counts substitutions, deletions and insertions from rapidfuzz's opcodes, whose sum is that distance however ties
// are broken. With no reference words at all, jiwer's WER is the number of insertions: the hypothesis words.
import { compilePythonRegex } from "../../python/re/index.ts";
import { pythonStrip } from "../../python/str.ts";
import { wordEditDistance } from "../text-overlap/word-edit-distance.ts";

const SPACE_RUN = compilePythonRegex(String.raw`\s\s+`);

/** jiwer's `wer_default` on one sentence: RemoveMultipleSpaces, Strip, ReduceToListOfListOfWords. */
export const werWords = (sentence: string): string[] => pythonStrip(SPACE_RUN.sub(" ", sentence)).split(" ").filter((word) => word.length >= 1);

/** jiwer's `wer` over parallel lists of sentences (one sentence each for a per-sample WER). */
export function corpusWer(references: readonly string[], hypotheses: readonly string[]): number {
  if (references.length !== hypotheses.length) throw new Error(`wer: ${references.length} references but ${hypotheses.length} hypotheses`);
  let errors = 0;
  let referenceWords = 0;
  let hypothesisWords = 0;
  references.forEach((reference, index) => {
    const ref = werWords(reference);
    const hyp = werWords(hypotheses[index]!);
    errors += wordEditDistance(ref, hyp);
    referenceWords += ref.length;
    hypothesisWords += hyp.length;
  });
  // No reference words: every hypothesis word is an insertion (jiwer returns that count).
  return referenceWords === 0 ? hypothesisWords : errors / referenceWords;
}

/** jiwer's `wer(reference, hypothesis)` for one pair. */
export const wer = (reference: string, hypothesis: string): number => corpusWer([reference], [hypothesis]);
