// NeMo Gym kills math-verify after 10 s and scores 0. Here every parse and comparison spends from one budget
// (steps and wall time); running out throws, and the caller scores 0 with the reason instead of hanging.

export class MathWorkLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MathWorkLimitError";
  }
}

export interface BudgetLimits {
  maxSteps: number;
  deadlineMs: number;
}

export const DEFAULT_LIMITS: BudgetLimits = { maxSteps: 5_000_000, deadlineMs: 2_000 };

let steps = 0;
let maxSteps = Infinity;
let deadline = Infinity;
let gaps: string[] = [];

/** Runs `work` with a fresh budget and gap log (verification is synchronous, so one at a time is enough). */
export function withBudget<T>(limits: BudgetLimits, work: () => T): T {
  const saved = { steps, maxSteps, deadline, gaps };
  steps = 0;
  maxSteps = limits.maxSteps;
  deadline = Date.now() + limits.deadlineMs;
  gaps = [];
  try {
    return work();
  } finally {
    ({ steps, maxSteps, deadline, gaps } = saved);
  }
}

/**
 * Notes a gap of this port: a place where math-verify would go on (a LaTeX command latex2sympy parses, a set
 * SymPy compares) and this port gives up instead, so a "no" it then answers is not math-verify's answer.
 */
export function noteGap(reason: string): void {
  if (!gaps.includes(reason)) gaps.push(reason);
}

/** The gaps noted so far in the current budget. */
export const notedGaps = (): readonly string[] => gaps;

/** Counts `n` units of work; checks the clock every 4096 units. */
export function spend(n = 1): void {
  const before = steps;
  steps += n;
  if (steps > maxSteps) throw new MathWorkLimitError(`work limit of ${maxSteps} steps exceeded`);
  if (before >>> 12 !== steps >>> 12 && Date.now() > deadline) throw new MathWorkLimitError("time limit exceeded");
}
