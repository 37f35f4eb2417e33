// NeMo Gym's cohort-based verify: the rollouts of one prompt arrive one /verify at a time, and each is scored only
// relative to the others. Every arrival is compared (through the judge) with the earlier ones right away, then waits;
// when the cohort's `num_rollouts_per_prompt`-th member has arrived and every comparison is in, the judgements are
// put in NeMo Gym's batch order (judge pass, i, j), aggregated, and each member gets its reward.
//
// Beyond NeMo Gym, so that no member waits forever: a failed comparison (a JudgeError) fails the whole cohort once
// it is complete — every member answers the judge_failed row and is retried together on resume — where NeMo Gym's
// scoring then never completes; and a cohort completes when its comparisons are in, not when its last arrival's
// are (NeMo Gym aggregates at the last arrival even if an earlier arrival's comparison is still running).
import type { PairScores } from "./genrm-output.ts";
import { comparisonPairs, type ComparisonSlot, type ComparisonStrategy } from "./aggregate.ts";

export interface CohortScoring {
  cohortSize: number;
  strategy: ComparisonStrategy;
  judgesPerComparison: number;
  /** One judgement of responses[i] (as response 1) against responses[j] (as response 2). */
  compare(responses: readonly unknown[], slot: ComparisonSlot): Promise<PairScores>;
  /** The members' rewards from the cohort's judgements, in (judge pass, i, j) order. */
  aggregate(judgements: PairScores[], slots: ComparisonSlot[], responses: readonly unknown[]): number[];
}

interface Cohort {
  responses: unknown[];
  judgements: PairScores[];
  slots: ComparisonSlot[];
  running: number;
  failure: { error: unknown } | undefined;
  members: Array<{ resolve(reward: number): void; reject(error: unknown): void }>;
}

export class CohortTable {
  private readonly open = new Map<string, Cohort>();

  /** Open cohorts (members arrived, not yet complete). */
  get size(): number {
    return this.open.size;
  }

  /** Adds a response to its cohort; resolves with its reward once the cohort is scored. */
  async join(key: string, response: unknown, scoring: CohortScoring): Promise<number> {
    let cohort = this.open.get(key);
    if (!cohort) this.open.set(key, (cohort = { responses: [], judgements: [], slots: [], running: 0, failure: undefined, members: [] }));
    const index = cohort.responses.length;
    cohort.responses.push(response);
    // A full cohort leaves the table: a further rollout with this key starts the next one.
    if (cohort.responses.length >= scoring.cohortSize) this.open.delete(key);
    const reward = new Promise<number>((resolve, reject) => cohort.members.push({ resolve, reject }));

    const slots = index === 0 ? [] : newSlots(index, scoring);
    const seen = cohort.responses.slice(0, index + 1);
    cohort.running++;
    try {
      const judgements = await Promise.all(slots.map((slot) => scoring.compare(seen, slot)));
      cohort.judgements.push(...judgements);
      cohort.slots.push(...slots);
    } catch (error) {
      cohort.failure ??= { error };
    } finally {
      cohort.running--;
    }
    if (cohort.responses.length >= scoring.cohortSize && cohort.running === 0) settle(cohort, scoring);
    return reward;
  }
}

/** The pairs of the full cohort's plan that the newest member (index) completes: the other side arrived earlier. */
function newSlots(index: number, scoring: CohortScoring): ComparisonSlot[] {
  const slots: ComparisonSlot[] = [];
  const pairs = comparisonPairs(scoring.strategy, scoring.cohortSize);
  for (let judgeIndex = 0; judgeIndex < scoring.judgesPerComparison; judgeIndex++) {
    for (const [i, j] of pairs) if (i <= index && j <= index && (i === index || j === index)) slots.push({ i, j, judgeIndex });
  }
  return slots;
}

function settle(cohort: Cohort, scoring: CohortScoring): void {
  if (cohort.failure) {
    for (const member of cohort.members) member.reject(cohort.failure.error);
    return;
  }
  const order = cohort.slots.map((slot, k) => ({ slot, judgement: cohort.judgements[k]! }));
  order.sort((a, b) => a.slot.judgeIndex - b.slot.judgeIndex || a.slot.i - b.slot.i || a.slot.j - b.slot.j);
  let rewards: number[];
  try {
    rewards = scoring.aggregate(
      order.map((o) => o.judgement),
      order.map((o) => o.slot),
      cohort.responses,
    );
  } catch (error) {
    for (const member of cohort.members) member.reject(error);
    return;
  }
  cohort.members.forEach((member, k) => member.resolve(rewards[k]!));
}
