// NewtonBench's evaluate_law for m0_gravity and NeMo Gym's reward on top of it. The submitted function is checked
// for its signature, then run (law-eval.ts, never exec) against the true law on 5000 log-uniform points: the RMSLE
// of the two. Separately an LLM judge says whether the two laws are symbolically the same (up to constants). The
// reward: 0.3 · (+1 equivalent / −1 not) + 0.7 · (1 − 2x/(x+3)) with x the RMSLE; without an RMSLE, 1.0 for an
// equivalent law and −0.3 for any other.
import { pythonFormat } from "../../src/python/str-format.ts";
import { compileLaw, LawRuntimeError } from "./law-eval.ts";
import { fastPow, groundTruth, type Difficulty, type LawVersion } from "./gravity.ts";
import type { Rng } from "./rng.ts";

/** NewtonBench's validate_function_definition for m0_gravity (its two regexes, searched anywhere in the text). */
export function validateGravityFunction(code: string): string | undefined {
  if (!/def\s+discovered_law\s*\(mass1,\s*mass2,\s*distance\):/.test(code)) return "Invalid function signature";
  // As Python's re: `\s` may cross lines, `.` may not.
  if (!/return\s+.+/.test(code)) return "No return statement found";
  return undefined;
}

const NUM_POINTS = 5000;

/** `exp(uniform(log(low), log(high)))`, n draws: numpy's uniform is low + (high − low) · U. */
function logUniform(rng: Rng, low: number, high: number, n: number): number[] {
  const a = Math.log(low);
  const b = Math.log(high);
  return Array.from({ length: n }, () => Math.exp(a + (b - a) * rng.uniform()));
}

/**
 * NewtonBench's calculate_rmsle: points where either side is nan are dropped, both sides are made positive (abs),
 * then sqrt(nanmean((log1p(pred) − log1p(true))²)) — nanmean also skips the nan that inf − inf leaves.
 */
export function rmsle(yTrue: readonly number[], yPred: readonly number[]): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < yTrue.length; i++) {
    const t = yTrue[i]!;
    const p = yPred[i]!;
    if (Number.isNaN(t) || Number.isNaN(p)) continue;
    const d = Math.log1p(Math.abs(p)) - Math.log1p(Math.abs(t));
    const square = d * d;
    if (Number.isNaN(square)) continue;
    sum += square;
    count++;
  }
  return count === 0 ? NaN : Math.sqrt(sum / count);
}

export interface LawScore {
  /** NaN when the law could not be run. */
  rmsle: number;
  /** Python's message when running the law failed (NewtonBench's "Failed to execute or evaluate submitted code: …"). */
  error: string | undefined;
}

/** Runs the law against the true one on NewtonBench's test points. An UnsupportedLawError propagates (a 501). */
export function scoreLaw(code: string, difficulty: Difficulty, version: LawVersion, rng: Rng): LawScore {
  const { law } = groundTruth(difficulty, version);
  const mass1 = logUniform(rng, 1, 1e3, NUM_POINTS);
  const mass2 = logUniform(rng, 1, 1e3, NUM_POINTS);
  const distance = logUniform(rng, 1, 1e1, NUM_POINTS);
  try {
    const submitted = compileLaw(code);
    // The test points are numpy float64 scalars: the true law's powers are numpy's (Math.pow, as the submission's).
    const yTrue = mass1.map((m1, i) => law(m1, mass2[i]!, distance[i]!, fastPow, fastPow));
    const yPred = mass1.map((m1, i) => submitted.call([m1, mass2[i]!, distance[i]!]));
    return { rmsle: rmsle(yTrue, yPred), error: undefined };
  } catch (error) {
    if (error instanceof LawRuntimeError) return { rmsle: NaN, error: `Failed to execute or evaluate submitted code: ${error.message}` };
    throw error;
  }
}

// ---- the symbolic judge ----

/** NewtonBench's judge prompt, formatted: Equation 1 the true law's formula, Equation 2 the submission as written. */
export const judgePromptFor = (template: string, groundTruthFormula: string, submitted: string, paramDescription: string) =>
  pythonFormat(template, [], { equation1: groundTruthFormula, equation2: submitted, param_description: paramDescription });

/**
 * NewtonBench's reading of a judge answer: `ANSWER: YES|NO` (first one, case-insensitive), else the last standalone
 * YES / NO; `undefined` when there is neither (NewtonBench then asks again).
 */
export function judgeVerdict(text: string): boolean | undefined {
  const upper = text.trim().toUpperCase();
  const answer = /ANSWER:\s*(YES|NO)/.exec(upper);
  if (answer) return answer[1] === "YES";
  const all = [...upper.matchAll(/\b(YES|NO)\b/g)];
  if (all.length > 0) return all.at(-1)![1] === "YES";
  return undefined;
}

/** NewtonBench asks its judge up to three times for a readable verdict; none of them readable is "not equivalent". */
export const JUDGE_ATTEMPTS = 3;

// ---- the reward (NeMo Gym's verify) ----

export function newtonBenchReward(rmsleValue: number, symbolicEquivalent: boolean | null): number {
  if (!Number.isFinite(rmsleValue)) {
    if (symbolicEquivalent === null) return 0;
    return symbolicEquivalent ? 1 : -0.3;
  }
  const symbolic = symbolicEquivalent === true ? 1 : -1;
  const x = rmsleValue;
  const reward = 0.3 * symbolic + 0.7 * (1 - (2 * x) / (x + 3));
  return Number.isFinite(reward) ? reward : 0;
}
