// PolyMath's difficulty-weighted pass@k, pass@1[avg-of-k] and majority@k (NeMo Gym's port of NeMo Skills'
// WeightedMathMetrics): each task counts with the `weight` of its first rollout (low 1, medium 2, high 4, top 8;
// missing or 0 → 1), keys suffixed `_weighted`, percentages. Python's arithmetic order is kept so values agree to the
// last bit.
import { passAtKUnbiased, type ScoreFn, type VerifyRecord } from "../../src/metrics/index.ts";
import { compareStrings } from "../../src/python/str.ts";
import { jsonTruthy } from "../../src/python/json-value.ts";
import { pythonFloat } from "../../src/python/numbers.ts";

export function weightedPassMajorityMetrics(tasks: VerifyRecord[][], scoreFn: ScoreFn, answerKey: string): Record<string, number> {
  const perTask = tasks
    .filter((rollouts) => rollouts.length > 0)
    .map((rollouts) => ({
      // float(rollouts[0].get("weight") or 1.0)
      weight: jsonTruthy(rollouts[0]!.weight) ? pythonFloat(rollouts[0]!.weight) : 1.0,
      scoreDicts: rollouts.map(scoreFn),
      answers: rollouts.map((rollout) => rollout[answerKey] ?? null),
    }));
  if (perTask.length === 0) return {};

  const maxK = Math.max(...perTask.map(({ scoreDicts }) => scoreDicts.length));
  const scoreNames = [...new Set(perTask.flatMap(({ scoreDicts }) => scoreDicts.flatMap((scores) => Object.keys(scores))))].sort(compareStrings);

  const out: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    for (const name of scoreNames) {
      let passK = 0;
      let pass1Avg = 0;
      let majority = 0;
      let contributingWeight = 0;
      for (const { weight, scoreDicts, answers } of perTask) {
        const values = scoreDicts.filter((scores) => name in scores).map((scores) => jsonTruthy(scores[name]));
        if (values.length === 0 || k > values.length) continue;
        const incorrect = values.filter((v) => !v).length;
        passK += incorrect < k ? weight : weight * passAtKUnbiased(values.length, values.length - incorrect, k);
        pass1Avg += (weight * values.slice(0, k).filter(Boolean).length) / k;
        if (k >= 2) {
          // zip(answers[:k], vals[:k]) as NeMo Gym writes it: answers of every rollout, values of those with the score.
          const votes = new Map<string, { value: boolean; count: number }>();
          for (let i = 0; i < Math.min(k, answers.length, values.length); i++) {
            if (answers[i] === null) continue;
            const key = JSON.stringify([answers[i], values[i]]);
            const entry = votes.get(key);
            if (entry) entry.count++;
            else votes.set(key, { value: values[i]!, count: 1 });
          }
          if (votes.size > 0) {
            const top = Math.max(...[...votes.values()].map(({ count }) => count));
            const tied = [...votes.values()].filter(({ count }) => count === top);
            majority += (weight * tied.filter(({ value }) => value).length) / tied.length;
          }
        }
        contributingWeight += weight;
      }
      if (contributingWeight > 0) {
        out[`pass@${k}/${name}_weighted`] = (100.0 * passK) / contributingWeight;
        out[`pass@1[avg-of-${k}]/${name}_weighted`] = (100.0 * pass1Avg) / contributingWeight;
        if (k >= 2) out[`majority@${k}/${name}_weighted`] = (100.0 * majority) / contributingWeight;
      }
    }
  }
  return out;
}
