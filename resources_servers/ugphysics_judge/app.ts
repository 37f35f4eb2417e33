// Undergraduate physics QA (NeMo Gym's ugphysics_judge, a math_with_judge subclass porting NeMo Skills' UGPhysics
// evaluator): math-verify first; on a symbolic miss with `should_use_judge`, one TRUE/FALSE judge call that also
// sees the row's reference `solution`. `extracted_verdict` (TRUE / FALSE / null) is the majority@k answer; pass@k
// is also broken down per `subject`.
import { z } from "zod";
import { judgeEndpoint, resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, computeSubsetMetrics, passMajorityMetricsAsDict, type VerifyRecord, passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { verifyMath } from "../../src/ports/math/index.ts";
import { judgeUGPhysics, type JudgeEvaluation, type VerdictLabel } from "./judge.ts";

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  use_chat_completions_for_judge: z.boolean().default(false),
  judge_prompt_path: z.string().default("resources_servers/ugphysics_judge/prompts/judge.yaml"),
});

/** Most work one library check may do; the configured timeout bounds it in time as well. */
const LIBRARY_MAX_STEPS = 5_000_000;

/** NeMo Gym's _ugphysics_score_fn: the final reward is the judge accuracy (Skills' headline), library_reward the symbolic one. */
const ugphysicsScores = (rollout: VerifyRecord): Record<string, number> => ({
  symbolic_accuracy: Number(rollout.library_reward ?? 0.0),
  judge_accuracy: Number(rollout.reward ?? 0.0),
});

export default resourcesServer({
  name: "UGPhysicsJudgeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    // NeMo Gym's UGPhysicsJudgeRunRequest (extra="allow": every row field is echoed back).
    input: z.looseObject({ question: z.string(), expected_answer: z.string(), solution: z.string().default(""), subject: z.string().nullish() }),
    async run(_state, body, { config, server }) {
      const { responses_create_params, response, question, expected_answer, solution, subject, ...extra } = body;
      const generated = responseOutputText(response);
      const library = verifyMath(expected_answer, generated, { maxSteps: LIBRARY_MAX_STEPS, deadlineMs: config.library_verifier_timeout_seconds * 1000 });
      if (library.reason) server.log.debug(`math library scored 0: ${library.reason}`);
      let reward: number = library.score;
      let judgeEvaluations: JudgeEvaluation[] | null = null;
      let verdict: VerdictLabel | null;
      if (library.score > 0.5) verdict = "TRUE";
      else if (!config.should_use_judge) verdict = "FALSE";
      else {
        const judge = { caller: server, endpoint: judgeEndpoint(config), promptPath: config.judge_prompt_path, useChatCompletions: config.use_chat_completions_for_judge, row: body };
        const judged = await judgeUGPhysics(judge, { problem: question, solution, expected_answer, generation: generated });
        reward = judged.correct ? 1.0 : 0.0;
        judgeEvaluations = [judged.evaluation];
        verdict = judged.verdict;
      }
      return {
        reward,
        expected_answer,
        extracted_answer: library.extractedAnswer,
        library_reward: library.score,
        judge_evaluations: judgeEvaluations,
        extracted_verdict: verdict,
        subject: subject ?? null,
        question,
        solution,
        ...extra,
      };
    },
  },
  floatFields: ["library_reward"],
  computeMetrics(tasks) {
    const metrics: Record<string, unknown> = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: ugphysicsScores, answerKey: "extracted_verdict" }));
    Object.assign(metrics, computeSubsetMetrics(tasks, "subject", { scoreFn: ugphysicsScores, answerKey: "extracted_verdict" }));
    return metrics;
  },
  keyMetrics: passMajorityKeyMetrics,
});
