// FrontierScience's reading of a judge's answer (NeMo Gym's frontierscience_judge, after NeMo Skills'
// frontierscience-olympiad): the verdict is the LAST `Judgement: YES|NO` anywhere in the text (any case, any
// whitespace after the colon, so also inside a code block or bold markers); none is no verdict. Research mode also
// reads a rubric score from the last line that mentions "score" and holds one: `score[7] / max_possible_score[10]`,
// `7/10` or `7 out of 10` (scaled onto the rubric's maximum), else `Score: 7` (taken as it is). Python regex
// semantics (src/python/re): `\d` and `\s` are Unicode's, as in Python.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { splitLines } from "../../src/python/str.ts";

const NUMBER = String.raw`([+-]?(?:\d+(?:\.\d+)?|\.\d+))`;
const JUDGEMENT = compilePythonRegex(String.raw`Judgement:\s*(YES|NO)`, { ignoreCase: true });
const BRACKETED_SCORE = compilePythonRegex(
  String.raw`(?:final[_\s-]*)?score\s*\[\s*${NUMBER}\s*\]\s*/\s*(?:max[_\s-]*possible[_\s-]*)?score\s*\[\s*${NUMBER}\s*\]`,
  { ignoreCase: true },
);
const DENOMINATED_SCORE = compilePythonRegex(String.raw`${NUMBER}\s*(?:/|out\s+of)\s*${NUMBER}`, { ignoreCase: true });
const LABELED_SCORE = compilePythonRegex(String.raw`(?:final\s+)?score\s*[:=]\s*${NUMBER}`, { ignoreCase: true });

export type Verdict = "YES" | "NO";

/** The last `Judgement: YES|NO` of the judge's text, upper-cased; null when there is none. */
export function parseJudgement(judgeText: string): Verdict | null {
  let last: string | undefined;
  for (const match of JUDGEMENT.finditer(judgeText)) last = match.groups[1];
  return last === undefined ? null : (last.toUpperCase() as Verdict);
}

/**
 * The rubric score on `maxScore` points: from the last line (Python's splitlines) that says "score" (any case) and
 * holds a score — a fraction is scaled (`7/10` → 7 of 10; a denominator ≤ 0 is no score at all, even if an earlier
 * line had one), a labelled number is taken unscaled. null when no line has one.
 */
export function parseRubricScore(judgeText: string, maxScore = 10.0): number | null {
  for (const line of splitLines(judgeText).reverse()) {
    if (!line.toLowerCase().includes("score")) continue;
    for (const pattern of [BRACKETED_SCORE, DENOMINATED_SCORE]) {
      const match = pattern.search(line);
      if (!match) continue;
      const numerator = pythonFloat(match.groups[1]);
      const denominator = pythonFloat(match.groups[2]);
      if (denominator <= 0) return null;
      return (numerator / denominator) * maxScore;
    }
    const labeled = LABELED_SCORE.search(line);
    if (labeled) return pythonFloat(labeled.groups[1]);
  }
  return null;
}

export interface Grade {
  reward: number;
  verdict: Verdict | null;
  rubricScore: number | null;
  rubricScoreNormalized: number | null;
  invalidJudgeResponse: boolean;
}

/**
 * The reward of a judge's text. Olympiad: 1 for YES, else 0. Research: 1 when the parsed score reaches the threshold
 * (the verdict, when absent, follows the score); a text with no score is an invalid judge response scored by its
 * verdict alone.
 */
export function gradeJudgeText(judgeText: string, mode: "olympiad" | "research", rubric: { passThreshold: number; maxScore: number }): Grade {
  let verdict = parseJudgement(judgeText);
  if (mode === "olympiad") return { reward: verdict === "YES" ? 1 : 0, verdict, rubricScore: null, rubricScoreNormalized: null, invalidJudgeResponse: false };
  const rubricScore = parseRubricScore(judgeText, rubric.maxScore);
  if (rubricScore === null) return { reward: verdict === "YES" ? 1 : 0, verdict, rubricScore, rubricScoreNormalized: null, invalidJudgeResponse: true };
  const rubricScoreNormalized = Math.max(0.0, Math.min(rubricScore, rubric.maxScore)) / rubric.maxScore;
  const reward = rubricScore >= rubric.passThreshold ? 1 : 0;
  verdict ??= reward ? "YES" : "NO";
  return { reward, verdict, rubricScore, rubricScoreNormalized, invalidJudgeResponse: false };
}
