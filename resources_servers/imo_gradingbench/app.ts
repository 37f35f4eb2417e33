// IMO-GradingBench (NeMo Gym's imo_gradingbench): the policy is the grader of a proof and must end its answer with
// one of four grades — correct (7) > almost (6) > partial (1) > incorrect (0). No LLM judge: the last word is parsed.
// Rules, as NeMo Gym's ImoGradingBenchResourcesServer (a port of NeMo Skills' GradingBenchMetrics):
// - the text is every assistant message's text, one per line, stripped (reasoning items are never read);
// - the grade is its last whitespace-separated word without the characters *_`.,;:!?()[]{}, lower-cased, when it is
//   one of the four grades (anything else is no grade);
// - the gold grade is `expected_answer` stripped and lower-cased, when it is one of the four;
// - reward 1.0 iff a grade was found and equals the gold one; `binary_match` when both fall in the same bucket
//   (high: correct, almost; low: partial, incorrect); `score_diff` = |7/6/1/0 of the grade − of the gold| when both exist.
// Metrics: pass@k / pass@1[avg-of-k] / majority@k of exact_accuracy and binarized_accuracy (with no_answer), and the
// mean absolute error of the grades' points, pooled and best-of-k.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { assistantMessagesText } from "../../src/ports/assistant-answer-text.ts";
import { pythonLower, pythonStrip, splitWhitespace } from "../../src/python/str.ts";
import { pythonSum } from "../../src/python/sum.ts";

const GRADE_TO_SCORE = { correct: 7, almost: 6, partial: 1, incorrect: 0 } as const;
type Grade = keyof typeof GRADE_TO_SCORE;
const GRADE_TO_BINARY: Record<Grade, "high" | "low"> = { correct: "high", almost: "high", partial: "low", incorrect: "low" };
const isGrade = (word: string): word is Grade => Object.hasOwn(GRADE_TO_SCORE, word);

// Skills' exact character class: markdown and punctuation around the last word.
const PUNCTUATION = /[*_`.,;:!?()[\]{}]+/g;

/** The grade a grader's answer ends with, or null. */
export function extractGrade(text: string): Grade | null {
  const words = splitWhitespace(text);
  if (words.length === 0) return null;
  const lastWord = pythonLower(words.at(-1)!.replace(PUNCTUATION, ""));
  return isGrade(lastWord) ? lastWord : null;
}

/** The gold grade of a row (`expected_answer`), or null when it is none of the four. */
export function normalizeExpectedGrade(text: string | null | undefined): Grade | null {
  if (!text) return null;
  const candidate = pythonLower(pythonStrip(text));
  return isGrade(candidate) ? candidate : null;
}

const ROW_FIELDS = ["expected_answer", "grading_id", "problem_id"];

const scores = (result: VerifyRecord) => ({ exact_accuracy: Number(result.reward ?? 0), binarized_accuracy: result.binary_match ? 1 : 0 });

/** The MAE metrics over the points of the grades (only rollouts with both grades count): pooled, best-of-k, and Skills' bare `mae`. */
export function maeMetrics(tasks: VerifyRecord[][], maxK: number): Record<string, number> {
  if (maxK === 0 || tasks.length === 0) return {};
  const out: Record<string, number> = {};
  for (let k = 1; k <= maxK; k++) {
    const pooled: number[] = [];
    const bestPerTask: number[] = [];
    for (const rollouts of tasks) {
      const errors = rollouts.slice(0, k).flatMap((r) => (r.score_diff === null || r.score_diff === undefined ? [] : [Number(r.score_diff)]));
      pooled.push(...errors);
      if (errors.length > 0) bestPerTask.push(Math.min(...errors));
    }
    if (pooled.length > 0) {
      out[`pass@1[avg-of-${k}]/mae`] = pythonSum(pooled) / pooled.length;
      out[`pass@1[avg-of-${k}]/mae_count`] = pooled.length;
    }
    if (bestPerTask.length > 0) {
      out[`pass@${k}/mae`] = pythonSum(bestPerTask) / bestPerTask.length;
      out[`pass@${k}/mae_count`] = bestPerTask.length;
    }
  }
  if (`pass@1[avg-of-${maxK}]/mae` in out) {
    out.mae = out[`pass@1[avg-of-${maxK}]/mae`]!;
    out.mae_count = out[`pass@1[avg-of-${maxK}]/mae_count`]!;
  }
  return out;
}

export default resourcesServer({
  name: "ImoGradingBenchResourcesServer",
  tools: {},
  verify: {
    input: z.looseObject({ expected_answer: z.string().nullish(), grading_id: z.string().nullish(), problem_id: z.string().nullish() }),
    run(_state, body) {
      const { responses_create_params: _params, response, reward: _reward, ...rest } = body as Record<string, unknown>;
      const predicted = extractGrade(assistantMessagesText(body.response));
      const expected = normalizeExpectedGrade(body.expected_answer);
      const binary_match = predicted !== null && expected !== null && GRADE_TO_BINARY[predicted] === GRADE_TO_BINARY[expected];
      // NeMo Gym's response model: its fields, then the request's other fields (extra="allow"; the declared ones first).
      return {
        reward: predicted !== null && predicted === expected ? 1.0 : 0.0,
        expected_answer: body.expected_answer ?? null,
        extracted_grade: predicted,
        binary_match,
        score_diff: predicted !== null && expected !== null ? Math.abs(GRADE_TO_SCORE[predicted] - GRADE_TO_SCORE[expected]) : null,
        grading_id: body.grading_id ?? null,
        problem_id: body.problem_id ?? null,
        ...Object.fromEntries(Object.entries(rest).filter(([key]) => !ROW_FIELDS.includes(key))),
      };
    },
  },
  floatFields: ["score_diff"],
  computeMetrics(tasks) {
    const result = computePassMajorityMetrics(tasks, { scoreFn: scores, answerKey: "extracted_grade" });
    return Object.assign(passMajorityMetricsAsDict(result), maeMetrics(tasks, result.maxK));
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    if ("mean/reward" in agentMetrics) key["mean/reward"] = agentMetrics["mean/reward"];
    Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]", { scoreNames: ["exact_accuracy", "binarized_accuracy", "mae", "no_answer"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["exact_accuracy", "binarized_accuracy", "mae"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "majority@{k}", { scoreNames: ["exact_accuracy", "binarized_accuracy"] }));
    if ("mae" in agentMetrics) {
      key.mae = agentMetrics.mae;
      key.mae_count = agentMetrics.mae_count ?? 0.0;
    }
    return key;
  },
});
