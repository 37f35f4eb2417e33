// Arena-Hard v2 pairwise judging (arena-hard-auto's protocol, as NeMo Gym's arena_judge): the policy's answer is
// compared with the row's `baseline_answer` by a judge asked twice — candidate as A, then swapped — with the
// category's prompt (`judge_prompt_paths`). Reward 1 when the first (gen-base) verdict is a candidate win; the raw
// judgements and both parsed verdicts are kept so the Arena-Elo metric can be recomputed from stored rollouts.
import { z } from "zod";
import { askJudgeChat, judgeEndpoint, readServerPromptConfig, resourcesServer, type JudgeCaller, type JudgeEndpoint } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { computePassMajorityMetrics, computeSubsetMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { pythonFormat } from "../../src/python/str-format.ts";
import { arenaEloMetrics } from "./elo.ts";
import { parseVerdict, sanitizeGeneration, type Verdict } from "./verdict.ts";

const DEFAULT_PROMPT_PATHS = {
  hard_prompt: "resources_servers/arena_judge/prompts/arena.yaml",
  creative_writing: "resources_servers/arena_judge/prompts/arena_creative.yaml",
};

const Config = z
  .looseObject({
    judge_model_server: z.looseObject({ type: z.string().optional(), name: z.string() }),
    judge_chat_completions_create_params: z.record(z.string(), z.unknown()),
    judge_prompt_paths: z.record(z.string(), z.string()).default(DEFAULT_PROMPT_PATHS),
    default_category: z.string().default("hard_prompt"),
    arena_elo_bootstrap_rounds: z.number().int().default(100),
    arena_elo_bootstrap_seed: z.number().int().default(42),
    sanitize_generations: z.boolean().default(false),
  })
  .refine((config) => Object.hasOwn(config.judge_prompt_paths, config.default_category), {
    message: "default_category is not one of the judge_prompt_paths keys",
    path: ["default_category"],
  });
type Config = z.output<typeof Config>;

interface Judgement {
  text: string;
  verdict: Verdict | null;
}

async function judgeOnce(judge: { caller: JudgeCaller; endpoint: JudgeEndpoint; row: Record<string, unknown> }, promptPath: string, fill: Record<string, string>): Promise<Judgement> {
  const prompt = await readServerPromptConfig(promptPath);
  const messages = [
    ...(prompt.system != null ? [{ role: "system" as const, content: pythonFormat(prompt.system, [], fill) }] : []),
    { role: "user" as const, content: pythonFormat(prompt.user, [], fill) },
  ];
  // A failed call is a JudgeError: /verify answers NeMo Gym's judge_failed row. A received answer with no label is
  // scored here (verdict null), as NeMo Gym does.
  const { text } = await askJudgeChat(judge.caller, judge.endpoint, messages, { row: judge.row });
  return { text, verdict: parseVerdict(text) };
}

const CANDIDATE_WINS: readonly (string | null)[] = ["A>>B", "A>B"];
const BASELINE_WINS: readonly (string | null)[] = ["B>A", "B>>A"];

/** NeMo Gym's _arena_score_fn: the gen-base verdict's distribution, and wins in both orders. */
function arenaScores(rollout: VerifyRecord): Record<string, number> {
  const gen = rollout.verdict_gen_base as string | null | undefined;
  const base = rollout.verdict_base_gen as string | null | undefined;
  const strict = gen === "A>>B" ? 1.0 : 0.0;
  const slight = gen === "A>B" ? 1.0 : 0.0;
  return {
    wins: strict + slight,
    strict_wins: strict,
    ties: gen === "A=B" ? 1.0 : 0.0,
    losses: BASELINE_WINS.includes(gen ?? null) ? 1.0 : 0.0,
    double_wins: CANDIDATE_WINS.includes(gen ?? null) && BASELINE_WINS.includes(base ?? null) ? 1.0 : 0.0,
    invalid_gen_base: rollout.invalid_gen_base ? 1.0 : 0.0,
  };
}

export default resourcesServer({
  name: "ArenaJudgeServer",
  config: Config,
  tools: {},
  verify: {
    // NeMo Gym's ArenaJudgeRunRequest: all optional, `extra="allow"` (every row field is echoed back).
    input: z.looseObject({ question: z.string().nullish(), baseline_answer: z.string().nullish(), category: z.string().nullish(), uid: z.string().nullish() }),
    async run(_state, body, { config, server }) {
      const cfg = config as Config;
      const { responses_create_params, response, question, baseline_answer, category: requested, uid, ...extra } = body;
      let candidate = responseOutputText(response);
      let baseline = baseline_answer ?? "";
      if (cfg.sanitize_generations) {
        candidate = sanitizeGeneration(candidate);
        baseline = sanitizeGeneration(baseline);
      }
      let category = requested || cfg.default_category;
      if (!Object.hasOwn(cfg.judge_prompt_paths, category)) {
        server.log.warn(`Unknown category ${JSON.stringify(category)}; falling back to default ${JSON.stringify(cfg.default_category)}.`);
        category = cfg.default_category;
      }
      const judge = { caller: server, endpoint: judgeEndpoint(cfg, { params: "judge_chat_completions_create_params" }), row: body };
      const promptPath = cfg.judge_prompt_paths[category]!;
      const q = question ?? "";
      // Both orders at once; both settle before a failure of either is raised (NeMo Gym's gather(return_exceptions)).
      const outcomes = await Promise.allSettled([
        judgeOnce(judge, promptPath, { question: q, answer_1: candidate, answer_2: baseline }),
        judgeOnce(judge, promptPath, { question: q, answer_1: baseline, answer_2: candidate }),
      ]);
      for (const outcome of outcomes) if (outcome.status === "rejected") throw outcome.reason;
      const [genBase, baseGen] = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<Judgement>).value) as [Judgement, Judgement];
      return {
        reward: CANDIDATE_WINS.includes(genBase.verdict) ? 1.0 : 0.0,
        judgement_gen_base: genBase.text,
        judgement_base_gen: baseGen.text,
        verdict_gen_base: genBase.verdict,
        verdict_base_gen: baseGen.verdict,
        category,
        invalid_gen_base: genBase.verdict === null,
        invalid_base_gen: baseGen.verdict === null,
        question: question ?? null,
        baseline_answer: baseline_answer ?? null,
        uid: uid ?? null,
        ...extra,
      };
    },
  },
  computeMetrics(tasks, config) {
    const bootstrap = { rounds: (config as Config).arena_elo_bootstrap_rounds, seed: (config as Config).arena_elo_bootstrap_seed };
    const metrics: Record<string, unknown> = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: arenaScores, answerKey: "verdict_gen_base" }));
    Object.assign(metrics, computeSubsetMetrics(tasks, "category", { scoreFn: arenaScores, answerKey: "verdict_gen_base" }));
    Object.assign(metrics, arenaEloMetrics(tasks, bootstrap));
    return metrics;
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    for (const name of ["mean/input_tokens", "mean/output_tokens"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    for (const name of ["arena_elo/score", "arena_elo/ci_lower", "arena_elo/ci_upper", "arena_elo/invalid_scores"]) if (name in agentMetrics) key[name] = agentMetrics[name];
    Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]"));
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { excludeNames: ["no_answer"] }));
    return key;
  },
});
