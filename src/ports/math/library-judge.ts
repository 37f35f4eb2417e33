// NeMo Gym's LibraryJudgeMathResourcesServer, the part math_with_judge and polymath (its subclass) share: the
// model's text checked against `expected_answer` by the math-verify port; when that says no and the instance has
// `should_use_judge: true`, an LLM judge decides, asked in both orders. Also the metrics both report.
import { z } from "zod";
import { HttpError } from "../../protocol/errors.ts";
import { responseOutputText, type NeMoGymResponse } from "../../protocol/index.ts";
import { judgeEndpoint, type ServerContext } from "../../server/index.ts";
import { computePassMajorityMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../metrics/index.ts";
import { judgeEquivalence, type JudgeEvaluation } from "./equivalence-judge.ts";
import { verifyMath } from "./index.ts";

export const LibraryJudgeMathConfig = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
});
export type LibraryJudgeMathConfig = z.output<typeof LibraryJudgeMathConfig>;

/** LibraryJudgeMathRunRequest's fields. */
export const LibraryJudgeMathFields = { question: z.string(), expected_answer: z.string() };

/** Most work one library check may do; the configured timeout bounds it in time as well. */
const LIBRARY_MAX_STEPS = 5_000_000;

export type LibraryJudgeMathResult = {
  reward: number;
  expected_answer: string;
  extracted_answer: string | null;
  library_reward: number;
  judge_evaluations: JudgeEvaluation[] | null;
};

export async function verifyLibraryJudgeMath(
  body: { response: NeMoGymResponse; question: string; expected_answer: string } & Record<string, unknown>,
  config: LibraryJudgeMathConfig,
  server: ServerContext<unknown>,
): Promise<LibraryJudgeMathResult> {
  const { response, question, expected_answer } = body;
  const generated = responseOutputText(response);
  const library = verifyMath(expected_answer, generated, { maxSteps: LIBRARY_MAX_STEPS, deadlineMs: config.library_verifier_timeout_seconds * 1000 });
  // A library result this port cannot stand by (a gap of the math-verify port: a LaTeX command latex2sympy parses and
  // the port does not, a set SymPy compares and the port does not) is a 501 naming it, never a guessed 0.
  if (library.gaps.length > 0) {
    throw new HttpError(501, `math-verify's answer for this row is not known here: the math-verify port stops at ${library.gaps.join("; ")}`);
  }
  if (library.reason) server.log.debug(`math library scored 0: ${library.reason}`);
  const libraryReward = library.score;
  let reward: number = libraryReward;
  let judgeEvaluations: JudgeEvaluation[] | null = null;
  if (config.should_use_judge && libraryReward <= 0.5) {
    const judge = { caller: server, endpoint: judgeEndpoint(config), row: body };
    const verdict = await judgeEquivalence(judge, question, expected_answer, library.extractedAnswer || generated);
    reward = verdict.reward;
    judgeEvaluations = verdict.evaluations;
  }
  return { reward, expected_answer, extracted_answer: library.extractedAnswer, library_reward: libraryReward, judge_evaluations: judgeEvaluations };
}

/** NeMo Gym's _math_score_fn: symbolic_accuracy from library_reward, judge_accuracy where a judge was asked. */
export function mathScores(rollout: VerifyRecord): Record<string, number> {
  const scores: Record<string, number> = {};
  if ("library_reward" in rollout) scores.symbolic_accuracy = rollout.library_reward as number;
  if (rollout.judge_evaluations !== undefined && rollout.judge_evaluations !== null) scores.judge_accuracy = rollout.reward as number;
  return scores;
}

/** math_with_judge's compute_metrics: pass@k / majority@k of its scores, `extracted_answer` voted. */
export const libraryJudgeMathMetrics = (tasks: VerifyRecord[][]) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: mathScores, answerKey: "extracted_answer" }));
