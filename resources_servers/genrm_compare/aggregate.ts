// NeMo Gym's genrm_compare aggregation: which pairs are compared, and how the pairwise judgements become one reward
// per response ("simple_tiebreaker": equal scores are split by the ranking, each response's scores averaged over its
// comparisons), then the optional length bonuses and style penalty, all relative to the group.
import { numpySum } from "../../src/metrics/index.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonLen, pythonStrip } from "../../src/python/str.ts";
import { pythonSum } from "../../src/python/sum.ts";
import { reasoningAndAnswer, type PairScores } from "./genrm-output.ts";

export const COMPARISON_STRATEGIES = ["circular", "all_pairs"] as const;
export type ComparisonStrategy = (typeof COMPARISON_STRATEGIES)[number];
export const AGGREGATOR_METHODS = ["simple_tiebreaker"] as const;

/** Rankings run 1-6: below the midpoint response 1 is better, above it response 2. */
export const RANKING_MIDPOINT = 3.5;

/** The (i, j) index pairs compared: every pair (i < j), or each response with the next one, the last with the first. */
export function comparisonPairs(strategy: ComparisonStrategy, responseCount: number): Array<[number, number]> {
  if (responseCount < 2) throw new Error(`Need at least 2 responses for comparison, got ${responseCount}`);
  const pairs: Array<[number, number]> = [];
  if (strategy === "all_pairs") {
    for (let i = 0; i < responseCount; i++) for (let j = i + 1; j < responseCount; j++) pairs.push([i, j]);
  } else {
    for (let i = 0; i < responseCount; i++) pairs.push([i, (i + 1) % responseCount]);
  }
  return pairs;
}

/** Which responses one judgement compared, and which of the `num_judges_per_comparison` passes it was. */
export interface ComparisonSlot {
  i: number;
  j: number;
  judgeIndex: number;
}

export interface Adjustments {
  reasoningBonus: number;
  answerBonus: number;
  topPercentile: number;
  reasoningLengthPenaltyCoeff: number;
  answerLengthPenaltyCoeff: number;
  stylePenaltyCoeff: number;
}

export interface Aggregation {
  rewards: number[];
  metrics: Record<string, number>;
  baseScores: number[];
  bonuses: number[];
}

/** Zero-centred weights where the smallest value weighs most (lengths, style densities); all equal → all 0. */
function zeroCentredWeights(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const min = Math.min(...values);
  if (max === min) return values.map(() => 0);
  const span = max - min;
  const raw = values.map((value) => 1.0 - (value - min) / span);
  const mean = pythonSum(raw) / raw.length;
  return raw.map((weight) => weight - mean);
}

/** The shortest non-empty one's index (the first of equals), or undefined when all are empty. */
function shortestNonEmpty(lengths: readonly number[]): number | undefined {
  let best: number | undefined;
  lengths.forEach((length, index) => {
    if (length > 0 && (best === undefined || length < lengths[best]!)) best = index;
  });
  return best;
}

/** Bonuses for the shortest reasoning / answer if among the top scorers, then the group-relative length weights. */
export function applyLengthBonuses(scores: number[], responses: readonly unknown[], adjust: Adjustments): number[] {
  const bonuses = responses.map(() => 0);
  if (responses.length < 2) return scores.map(() => 0);
  const texts = responses.map(reasoningAndAnswer);
  const reasoningLengths = texts.map((t) => pythonLen(pythonStrip(t.reasoning)));
  const answerLengths = texts.map((t) => pythonLen(pythonStrip(t.answer)));
  const sorted = [...scores].sort((a, b) => b - a);
  const topThreshold = sorted[Math.max(0, Math.trunc(scores.length * adjust.topPercentile) - 1)]!;
  for (const [bonus, lengths] of [
    [adjust.reasoningBonus, reasoningLengths],
    [adjust.answerBonus, answerLengths],
  ] as const) {
    if (!(bonus > 0)) continue;
    const index = shortestNonEmpty(lengths);
    if (index !== undefined && scores[index]! >= topThreshold) {
      scores[index]! += bonus;
      bonuses[index]! += bonus;
    }
  }
  if (adjust.reasoningLengthPenaltyCoeff > 0 || adjust.answerLengthPenaltyCoeff > 0) {
    const reasoningWeights = zeroCentredWeights(reasoningLengths);
    const answerWeights = zeroCentredWeights(answerLengths);
    for (let index = 0; index < responses.length; index++) {
      const total = reasoningWeights[index]! * adjust.reasoningLengthPenaltyCoeff + answerWeights[index]! * adjust.answerLengthPenaltyCoeff;
      if (total !== 0) {
        scores[index]! += total;
        bonuses[index]! += total;
      }
    }
  }
  return bonuses;
}

// Arena-Hard's style elements, counted outside code blocks (as NeMo Gym's patterns, Python `re` semantics).
const CODE_BLOCK = compilePythonRegex("```[\\s\\S]*?```", { multiline: true });
const STYLE_PATTERNS = {
  header: [compilePythonRegex("^#{1,6}\\s", { multiline: true })],
  list: [compilePythonRegex("^\\s*\\d+\\.\\s", { multiline: true }), compilePythonRegex("^\\s*[-*+]\\s", { multiline: true })],
  bold: [compilePythonRegex("\\*\\*[^*\\n]+\\*\\*"), compilePythonRegex("__[^_\\n]+__")],
};
const EMOJI_RANGES: Array<[number, number]> = [
  [0x1f600, 0x1f64f],
  [0x1f300, 0x1f5ff],
  [0x1f680, 0x1f6ff],
  [0x1f1e0, 0x1f1ff],
  [0x2702, 0x27b0],
  [0x24c2, 0x1f251],
  [0x1f900, 0x1f9ff],
  [0x1fa00, 0x1fa6f],
  [0x1fa70, 0x1faff],
  [0x2600, 0x26ff],
  [0x2700, 0x27bf],
];
// Single code points in those ranges: a ZWJ sequence counts once per pictograph, as in NeMo Gym.
const EMOJI = compilePythonRegex(`[${EMOJI_RANGES.map(([from, to]) => `${String.fromCodePoint(from)}-${String.fromCodePoint(to)}`).join("")}]`);

const count = (pattern: { findall(text: string): unknown[] }, text: string) => pattern.findall(text).length;
const withoutCode = (text: string) => CODE_BLOCK.sub("", text);

export function countStyleElements(text: string): { header_count: number; list_count: number; bold_count: number; emoji_count: number } {
  const plain = withoutCode(text);
  const total = (patterns: Array<{ findall(text: string): unknown[] }>) => patterns.reduce((sum, pattern) => sum + count(pattern, plain), 0);
  return { header_count: total(STYLE_PATTERNS.header), list_count: total(STYLE_PATTERNS.list), bold_count: total(STYLE_PATTERNS.bold), emoji_count: count(EMOJI, plain) };
}

/** Style elements per character (code blocks out of both); 0 for an empty text. */
export function styleDensity(text: string): number {
  const plain = withoutCode(text);
  const length = pythonLen(pythonStrip(plain));
  if (length <= 0) return 0;
  const counts = countStyleElements(plain);
  return (counts.header_count + counts.list_count + counts.bold_count + counts.emoji_count) / length;
}

/** Lower formatting density than the group's gains, higher loses (zero-centred, scaled by the coefficient). */
export function applyStylePenalties(scores: number[], responses: readonly unknown[], coefficient: number): number[] {
  const adjustments = scores.map(() => 0);
  if (responses.length < 2 || coefficient <= 0) return adjustments;
  const weights = zeroCentredWeights(responses.map((response) => styleDensity(reasoningAndAnswer(response).answer)));
  for (let index = 0; index < responses.length; index++) {
    const adjustment = weights[index]! * coefficient;
    if (adjustment !== 0) {
      scores[index]! += adjustment;
      adjustments[index] = adjustment;
    }
  }
  return adjustments;
}

/** The rewards of `responses` from their pairwise judgements (`slots[k]` says which pair `judgements[k]` is). */
export function aggregateScores(judgements: readonly PairScores[], slots: readonly ComparisonSlot[], responses: readonly unknown[], defaultScore: number, adjust: Adjustments): Aggregation {
  const accumulated = responses.map(() => 0);
  const comparisons = responses.map(() => 0);
  const individualScores: number[] = [];
  let tiebreaks = 0;
  judgements.forEach((judgement, k) => {
    const { i, j } = slots[k]!;
    let { score1, score2 } = judgement;
    individualScores.push(score1, score2);
    if (score1 === score2) {
      tiebreaks++;
      const adjustment = RANKING_MIDPOINT - judgement.ranking;
      score1 += adjustment;
      score2 -= adjustment;
    }
    accumulated[i]! += score1;
    accumulated[j]! += score2;
    comparisons[i]!++;
    comparisons[j]!++;
  });
  const rewards = accumulated.map((sum, index) => (comparisons[index]! > 0 ? sum / comparisons[index]! : defaultScore));
  const baseScores = [...rewards];
  let bonuses = responses.map(() => 0);
  if (adjust.reasoningBonus > 0 || adjust.answerBonus > 0 || adjust.reasoningLengthPenaltyCoeff > 0 || adjust.answerLengthPenaltyCoeff > 0) {
    const lengthBonuses = applyLengthBonuses(rewards, responses, adjust);
    bonuses = bonuses.map((bonus, index) => bonus + lengthBonuses[index]!);
  }
  if (adjust.stylePenaltyCoeff > 0) {
    const styleAdjustments = applyStylePenalties(rewards, responses, adjust.stylePenaltyCoeff);
    bonuses = bonuses.map((bonus, index) => bonus + styleAdjustments[index]!);
  }
  const metrics: Record<string, number> = {};
  if (individualScores.length > 0) {
    // numpy's mean and (population) std: pairwise sums.
    const mean = numpySum(individualScores) / individualScores.length;
    metrics.mean_individual_score = mean;
    metrics.std_individual_score = Math.sqrt(numpySum(individualScores.map((score) => (score - mean) ** 2)) / individualScores.length);
  }
  if (judgements.length > 0) metrics.tiebreak_usage_rate = tiebreaks / judgements.length;
  return { rewards, metrics, baseScores, bonuses };
}
