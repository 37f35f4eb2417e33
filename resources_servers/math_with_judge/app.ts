// Math final-answer QA (OpenMathReasoning, DAPO-17k, AIME). The model's text is checked against
// `expected_answer` by the math-verify port (src/ports/math); when that says no and the instance has
// `should_use_judge: true`, an LLM judge decides, asked in both orders. The shipped configs keep the judge off.
import { z } from "zod";
import { judgeEndpoint, resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, passMajorityMetricsAsDict, type VerifyRecord, passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { verifyMath } from "../../src/ports/math/index.ts";
import { judgeEquivalence, type JudgeEvaluation } from "./judge.ts";

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
});

/** Most work one library check may do; the configured timeout bounds it in time as well. */
const LIBRARY_MAX_STEPS = 5_000_000;

function mathScores(rollout: VerifyRecord): Record<string, number> {
  const scores: Record<string, number> = {};
  if ("library_reward" in rollout) scores.symbolic_accuracy = rollout.library_reward as number;
  if (rollout.judge_evaluations !== undefined && rollout.judge_evaluations !== null) scores.judge_accuracy = rollout.reward as number;
  return scores;
}

export default resourcesServer({
  name: "LibraryJudgeMathResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ question: z.string(), expected_answer: z.string() }),
    async run(_state, body, { config, server }) {
      const { response, question, expected_answer } = body;
      const generated = responseOutputText(response);
      const library = verifyMath(expected_answer, generated, { maxSteps: LIBRARY_MAX_STEPS, deadlineMs: config.library_verifier_timeout_seconds * 1000 });
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
      return {
        reward,
        expected_answer,
        extracted_answer: library.extractedAnswer,
        library_reward: libraryReward,
        judge_evaluations: judgeEvaluations,
      };
    },
  },
  floatFields: ["library_reward"],
  computeMetrics: (tasks) => passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: mathScores, answerKey: "extracted_answer" })),
  keyMetrics: passMajorityKeyMetrics,
});
