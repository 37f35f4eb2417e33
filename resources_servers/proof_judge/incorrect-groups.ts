// NeMo Gym's zero_reward_incorrect_groups: the rollouts of one problem wait for each other (expected_group_size of
// them) and, when the verifier scored every proof of the group 0 (r_y), each one's reward becomes 0.
//
// Beyond NeMo Gym, so that no member waits forever: a member whose judge call failed still arrives, as a failure;
// a complete group with a failure fails every member (each answers the judge_failed row and is retried together on
// resume), where in NeMo Gym the rest of the group would wait for it forever.
export type GroupArrival = { verifierReward: number } | { failure: unknown };

interface Group {
  arrivals: GroupArrival[];
  waiters: Array<{ resolve(zeroOut: boolean): void; reject(error: unknown): void }>;
}

export class IncorrectGroups {
  private readonly open = new Map<string, Group>();

  constructor(private readonly expectedGroupSize: number) {}

  /** Resolves with whether the group's rewards are zeroed once the group is complete; rejects if any member failed. */
  arrive(problem: string, arrival: GroupArrival): Promise<boolean> {
    let group = this.open.get(problem);
    if (!group) this.open.set(problem, (group = { arrivals: [], waiters: [] }));
    group.arrivals.push(arrival);
    const decided = new Promise<boolean>((resolve, reject) => group.waiters.push({ resolve, reject }));
    if (group.arrivals.length === this.expectedGroupSize) {
      this.open.delete(problem);
      const failed = group.arrivals.find((a): a is { failure: unknown } => "failure" in a);
      const zeroOut = group.arrivals.every((a) => "verifierReward" in a && a.verifierReward === 0.0);
      for (const waiter of group.waiters) failed ? waiter.reject(failed.failure) : waiter.resolve(zeroOut);
    }
    return decided;
  }
}
