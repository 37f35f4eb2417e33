// Arena-Elo, arena-hard-auto's headline (show_result.py, as NeMo Gym's arena_judge computes it): each task's verdict
// pair becomes weighted battles of the candidate against the baseline, a two-player Elo is fitted by logistic
// regression, the candidate's score is its predicted win rate against the baseline (in %), and a bootstrap of the
// battles (NumPy's global generator seeded once per aggregate) gives the 95% interval.
//
// With two players the fit has a closed form: every battle row is (candidate +ln10, baseline -ln10) and NeMo Gym
// duplicates the table to count a tie as half a win, so the maximum-likelihood win probability is
// p = (2·wins + ties) / (2·battles), and the Elo gap is 400·log10(p / (1 − p)). sklearn's L-BFGS reaches that optimum
// to ~1e-9, far inside the two decimals the scores are rounded to. A table with one outcome class only (p = 0 or 1)
// is what sklearn refuses with a ValueError: the bootstrap skips such a draw, as NeMo Gym does.
import { NumpyRandomState, numpyPercentile } from "../../src/python/numpy-random.ts";
import { pythonRound } from "../../src/python/float.ts";
import { VALID_VERDICTS, type Verdict } from "./verdict.ts";

type Winner = "candidate" | "baseline" | "tie";

export interface EloSummary {
  score: number;
  ci_lower: number;
  ci_upper: number;
  invalid_scores: number;
  n: number;
}

const STRICT_WEIGHT = 3;
const WEIGHTS: Readonly<Record<Verdict, number>> = { "A=B": 1, "A>B": 1, "A>>B": STRICT_WEIGHT, "B>A": 1, "B>>A": STRICT_WEIGHT };
const INIT_RATING = 1000;
const SCALE = 400;

/**
 * A task's rollouts collapsed to one verdict per direction: the most candidate-favouring label any rollout got
 * (for the swapped call, where the candidate is B, the order is reversed); null when none parsed.
 */
export function bestOfRollouts(verdicts: readonly (string | null | undefined)[], reverse: boolean): Verdict | null {
  const order = reverse ? [...VALID_VERDICTS].reverse() : VALID_VERDICTS;
  return order.find((label) => verdicts.includes(label)) ?? null;
}

/** arena-hard-auto's get_battles_from_judgment: [gen-base, base-gen] pairs → weighted battles, and the unparsed count. */
export function battlesFromJudgment(scores: readonly (readonly [string | null, string | null])[]): { battles: Winner[]; invalid: number } {
  const battles: Winner[] = [];
  let invalid = 0;
  for (const [genBase, baseGen] of scores) {
    for (const [verdict, candidateIsA] of [[genBase, true], [baseGen, false]] as const) {
      const weight = verdict !== null && Object.hasOwn(WEIGHTS, verdict) ? WEIGHTS[verdict as Verdict] : 0;
      if (weight === 0) {
        invalid++;
        continue;
      }
      const aWins = verdict === "A>B" || verdict === "A>>B";
      const winner: Winner = verdict === "A=B" ? "tie" : aWins === candidateIsA ? "candidate" : "baseline";
      for (let i = 0; i < weight; i++) battles.push(winner);
    }
  }
  return { battles, invalid };
}

/** The candidate's fitted Elo (the baseline anchored at 1000), or undefined when the table has one outcome class. */
function candidateElo(battles: readonly Winner[]): number | undefined {
  let wins = 0;
  let ties = 0;
  for (const winner of battles) {
    if (winner === "candidate") wins++;
    else if (winner === "tie") ties++;
  }
  const p = (2 * wins + ties) / (2 * battles.length);
  if (p <= 0 || p >= 1) return undefined;
  return INIT_RATING + SCALE * Math.log10(p / (1 - p));
}

/** The predicted win rate (%) of a rating against the baseline's 1000, rounded as NeMo Gym rounds it. */
const winRatePercent = (elo: number) => pythonRound((1 / (1 + 10 ** ((INIT_RATING - elo) / SCALE))) * 100, 2);

const nanSummary = (invalid: number, n: number): EloSummary => ({ score: Number.NaN, ci_lower: Number.NaN, ci_upper: Number.NaN, invalid_scores: invalid, n });

/** NeMo Gym's _aggregate_arena_elo over [gen-base best, base-gen best] pairs. */
export function aggregateArenaElo(scores: readonly (readonly [string | null, string | null])[], bootstrap: { rounds: number; seed: number }): EloSummary {
  if (scores.length === 0) return nanSummary(0, 0);
  const { battles, invalid } = battlesFromJudgment(scores);
  if (battles.length === 0) return nanSummary(invalid, scores.length);
  const winners = new Set(battles);
  if (!((winners.has("candidate") && winners.has("baseline")) || winners.has("tie"))) {
    const score = winners.has("candidate") && !winners.has("baseline") ? 100.0 : 0.0;
    return { score, ci_lower: 0.0, ci_upper: 0.0, invalid_scores: invalid, n: scores.length };
  }
  const fitted = candidateElo(battles)!;
  const random = new NumpyRandomState(bootstrap.seed);
  const resampled: number[] = [];
  for (let round = 0; round < bootstrap.rounds; round++) {
    const sample = random.randint(0, battles.length, battles.length).map((index) => battles[index]!);
    const elo = candidateElo(sample);
    if (elo !== undefined) resampled.push(elo);
  }
  // NeMo Gym indexes the bootstrap table by model: with every draw skipped there is no column (a KeyError, a 500).
  if (resampled.length === 0) throw Object.assign(new Error("'candidate'"), { name: "KeyError" });
  const score = winRatePercent(fitted);
  const lower = winRatePercent(numpyPercentile(resampled, 2.5));
  const upper = winRatePercent(numpyPercentile(resampled, 97.5));
  return { score, ci_lower: pythonRound(lower - score, 2), ci_upper: pythonRound(upper - score, 2), invalid_scores: invalid, n: scores.length };
}

export interface ArenaRollout {
  verdict_gen_base?: unknown;
  verdict_base_gen?: unknown;
  category?: unknown;
}

const asVerdict = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** NeMo Gym's _compute_arena_elo_metrics: `arena_elo/*` overall, then `arena_elo/<category>/*` per category seen. */
export function arenaEloMetrics(tasks: readonly (readonly ArenaRollout[])[], bootstrap: { rounds: number; seed: number }): Record<string, number> {
  const paired: [string | null, string | null][] = [];
  const categories: unknown[] = [];
  for (const rollouts of tasks) {
    if (rollouts.length === 0) continue;
    paired.push([
      bestOfRollouts(rollouts.map((r) => asVerdict(r.verdict_gen_base)), false),
      bestOfRollouts(rollouts.map((r) => asVerdict(r.verdict_base_gen)), true),
    ]);
    categories.push(rollouts[0]!.category);
  }
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(aggregateArenaElo(paired, bootstrap))) out[`arena_elo/${key}`] = value;
  const buckets = new Map<string, [string | null, string | null][]>();
  paired.forEach((pair, index) => {
    const category = categories[index];
    if (category === undefined || category === null) return;
    const label = String(category);
    if (!buckets.has(label)) buckets.set(label, []);
    buckets.get(label)!.push(pair);
  });
  for (const [category, pairs] of buckets) {
    for (const [key, value] of Object.entries(aggregateArenaElo(pairs, bootstrap))) out[`arena_elo/${category}/${key}`] = value;
  }
  return out;
}
