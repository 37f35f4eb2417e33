// RULER's string-match scores (NeMo-Skills' nemo_skills/evaluation/evaluator/ruler.py), in the two versions NeMo
// Gym's servers port: v1 (the `ruler` server) counts a reference as found when it is a case-insensitive substring
// of the prediction; v2 (`ruler2`) softens that to max(substring, 1 − WER).
import { compilePythonRegex, pythonLower, pythonSum, splitWhitespace } from "../../python/index.ts";
import { wordEditDistance } from "../text-overlap/word-edit-distance.ts";

// ---- RULER v1 ----

const found = (prediction: string, reference: string) => (pythonLower(prediction).includes(pythonLower(reference)) ? 1 : 0);

/** v1 string_match_all_single: the share of the references found in the prediction (refs must not be empty). */
export function rulerMatchAll(prediction: string, references: readonly string[]): number {
  return pythonSum(references.map((reference) => found(prediction, reference))) / references.length;
}

/** v1 string_match_part_single: 1.0 when any reference is found (refs must not be empty). */
export function rulerMatchPart(prediction: string, references: readonly string[]): number {
  return references.reduce((best, reference) => Math.max(best, found(prediction, reference)), -Infinity);
}

// ---- RULER v2 ----

/** Word error rate of `hypothesis` against `reference` (words split on whitespace); +inf for a reference of no words. */
export function wordErrorRate(hypothesis: string, reference: string): number {
  const referenceWords = splitWhitespace(reference);
  if (referenceWords.length === 0) return Infinity;
  return wordEditDistance(splitWhitespace(hypothesis), referenceWords) / referenceWords.length;
}

/** max(1.0 if the reference is a substring, 1 − WER), both sides lower-cased. */
export function softMatch(prediction: string, reference: string): number {
  const [p, r] = [pythonLower(prediction), pythonLower(reference)];
  return Math.max(p.includes(r) ? 1 : 0, 1 - wordErrorRate(p, r));
}

const mean = (values: number[]) => (values.length === 0 ? 0 : pythonSum(values) / values.length);

// `Document N:` then lines up to the first blank line (the header block a part-match prediction may repeat).
const DOCUMENT_HEADER = compilePythonRegex(String.raw`Document \d+:(?:.*\n)+?\n`);

export const RULER2_MATCH_TYPES = ["all", "part", "2steps"] as const;
export type Ruler2MatchType = (typeof RULER2_MATCH_TYPES)[number];

/**
 * v2's score of a prediction against its references: `all` averages the soft matches; `part` takes the best one
 * after deleting `Document N:` header blocks from the prediction; `2steps` averages over the prediction's last
 * paragraph (after its last "\n\n"). No references scores 0.0.
 */
export function ruler2Match(matchType: Ruler2MatchType, prediction: string, references: readonly string[]): number {
  switch (matchType) {
    case "all":
      return mean(references.map((reference) => softMatch(prediction, reference)));
    case "part": {
      const withoutHeaders = DOCUMENT_HEADER.sub("", prediction);
      return references.length === 0 ? 0 : references.reduce((best, reference) => Math.max(best, softMatch(withoutHeaders, reference)), -Infinity);
    }
    case "2steps": {
      const lastParagraph = prediction.split("\n\n").at(-1)!;
      return mean(references.map((reference) => softMatch(lastParagraph, reference)));
    }
  }
}
