// Physics QA (NeMo Gym's physics_judge, a math_with_judge subclass): math-verify first; on a symbolic miss with
// `should_use_judge`, NeMo Skills' physics judge grades the model's whole generation against `expected_answer` in
// one call and says [Correct] / [Incorrect]. Pass@k as math_with_judge, plus a per-`domain` breakdown.
import { z } from "zod";
import { judgeEndpoint, resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, computeSubsetMetrics, passMajorityMetricsAsDict, type VerifyRecord, passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { verifyMath } from "../../src/ports/math/index.ts";
import { judgePhysics, type JudgeEvaluation } from "./judge.ts";

const Config = z.looseObject({
  judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
  judge_responses_create_params: z.record(z.string(), z.unknown()),
  should_use_judge: z.boolean().default(true),
  library_verifier_timeout_seconds: z.number().positive().default(10),
  library_verifier_max_concurrency: z.number().int().positive().default(32),
  use_chat_completions_for_judge: z.boolean().default(false),
  judge_prompt_path: z.string().default("resources_servers/physics_judge/prompts/judge.yaml"),
});

/** Most work one library check may do; the configured timeout bounds it in time as well. */
const LIBRARY_MAX_STEPS = 5_000_000;

/** math_with_judge's score function: symbolic accuracy always, judge accuracy when the judge was asked. */
function mathScores(rollout: VerifyRecord): Record<string, number> {
  const scores: Record<string, number> = {};
  if ("library_reward" in rollout) scores.symbolic_accuracy = rollout.library_reward as number;
  if (rollout.judge_evaluations !== undefined && rollout.judge_evaluations !== null) scores.judge_accuracy = rollout.reward as number;
  return scores;
}

export default resourcesServer({
  name: "PhysicsJudgeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ question: z.string(), expected_answer: z.string() }),
    async run(_state, body, { config, server }) {
      const { response, question, expected_answer } = body;
      const generated = responseOutputText(response);
      const library = verifyMath(expected_answer, generated, { maxSteps: LIBRARY_MAX_STEPS, deadlineMs: config.library_verifier_timeout_seconds * 1000 });
      if (library.reason) server.log.debug(`math library scored 0: ${library.reason}`);
      let reward: number = library.score;
      let judgeEvaluations: JudgeEvaluation[] | null = null;
      if (config.should_use_judge && library.score <= 0.5) {
        // Skills' physics judge reads the whole generation, not the extracted answer.
        const judge = { caller: server, endpoint: judgeEndpoint(config), promptPath: config.judge_prompt_path, useChatCompletions: config.use_chat_completions_for_judge, row: body };
        const verdict = await judgePhysics(judge, question, generated, expected_answer);
        reward = verdict.correct ? 1.0 : 0.0;
        judgeEvaluations = [verdict.evaluation];
      }
      return { reward, expected_answer, extracted_answer: library.extractedAnswer, library_reward: library.score, judge_evaluations: judgeEvaluations };
    },
  },
  floatFields: ["library_reward"],
  computeMetrics(tasks) {
    const metrics: Record<string, unknown> = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: mathScores, answerKey: "extracted_answer" }));
    if (tasks.some((rollouts) => rollouts.some((rollout) => "domain" in rollout))) {
      Object.assign(metrics, computeSubsetMetrics(tasks, "domain", { scoreFn: mathScores, answerKey: "extracted_answer" }));
    }
    return metrics;
  },
  keyMetrics: passMajorityKeyMetrics,
});
