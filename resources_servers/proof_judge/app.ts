// Theorem proving judged by an LLM (NeMo Gym's proof_judge): the policy writes "## Solution" (the proof) then
// "## Self Evaluation" ending in \boxed{0|0.5|1}. A verifier judge grades the proof (r_y); with beta > 0 a
// meta-verifier judge grades the self-evaluation (r_meta), and the reward is alpha·r_y + beta·(1 - |s' - r_y|)·r_meta.
// With zero_reward_incorrect_groups, a problem whose every proof the verifier scored 0 gets 0 throughout.
import { z } from "zod";
import { JudgeError, resourcesServer, type ServerContext } from "../../src/server/index.ts";
import {
  afterThinking,
  appendProofLog,
  askProofJudge,
  assistantText,
  extractBoxedScore,
  fillTemplate,
  MAX_PROOF_CHARS,
  MAX_VERIFICATION_CHARS,
  ProofJudgeConfigFields,
  ProofPromptTemplates,
  refuseExternalJudge,
  textLengthError,
} from "../../src/ports/proof-grading.ts";
import { IncorrectGroups } from "./incorrect-groups.ts";

const Config = z
  .looseObject({
    ...ProofJudgeConfigFields,
    alpha: z.number().default(1.0),
    beta: z.number().default(0.0),
    zero_reward_incorrect_groups: z.boolean().default(false),
    expected_group_size: z.number().int().default(-1),
  })
  .refine((config) => !config.zero_reward_incorrect_groups || config.expected_group_size > 0, {
    message: "expected_group_size must be > 0 when zero_reward_incorrect_groups is enabled",
    path: ["expected_group_size"],
  });
type Config = z.output<typeof Config>;

const VERIFIER = "verifier.yaml";
const META_VERIFIER = "meta-verifier.yaml";
export const SOLUTION_HEADER = "## Solution";
export const SELF_EVAL_HEADER = "## Self Evaluation";

/** The proof, the self-evaluation and its \boxed score s' of the policy's answer, or why it has none. */
export function parseProofResponse(text: string, assertThinkEnd: boolean): { proof: string; selfEvaluation: string; selfScore: number } | { reason: string } {
  const answer = afterThinking(text, assertThinkEnd);
  if (answer === null) return { reason: "missing_think_end" };
  const solutionAt = answer.indexOf(SOLUTION_HEADER);
  if (solutionAt === -1) return { reason: "missing_solution_header" };
  const afterSolution = answer.slice(solutionAt + SOLUTION_HEADER.length);
  const selfEvalAt = afterSolution.indexOf(SELF_EVAL_HEADER);
  if (selfEvalAt === -1) return { reason: "missing_self_eval_header" };
  const proof = afterSolution.slice(0, selfEvalAt).trim();
  const selfEvaluation = afterSolution.slice(selfEvalAt + SELF_EVAL_HEADER.length).trim();
  const selfScore = extractBoxedScore(selfEvaluation);
  if (selfScore === null) return { reason: "invalid_boxed_score" };
  return { proof, selfEvaluation, selfScore };
}

interface Runtime {
  templates: ProofPromptTemplates;
  groups: IncorrectGroups | undefined;
}
const runtimes = new WeakMap<object, Runtime>();

type Details = Record<string, unknown>;

async function judgeProof(server: ServerContext<Config>, problem: string, fullResponse: string, row: Record<string, unknown>): Promise<[number, Details]> {
  const { config } = server;
  const parsed = parseProofResponse(fullResponse, config.assert_think_end);
  if ("reason" in parsed) return [0.0, { r_format: 0.0, reason: parsed.reason, judge_generated_tokens: 0n }];
  const tooLong = textLengthError(parsed.proof, "proof", MAX_PROOF_CHARS) ?? textLengthError(parsed.selfEvaluation, "self_verification", MAX_VERIFICATION_CHARS);
  if (tooLong) return [0.0, { ...tooLong, judge_generated_tokens: 0n }];

  const { templates } = runtimes.get(server)!;
  const verifierPrompt = fillTemplate(await templates.user(VERIFIER), { problem, proof: parsed.proof });
  if (config.beta === 0) {
    const verifier = await askProofJudge(server, config, verifierPrompt, row);
    const rY = extractBoxedScore(verifier.text) || 0.0;
    const tokens = BigInt(verifier.generatedTokens);
    return [config.alpha * rY, { r_y: rY, s_prime: parsed.selfScore, judge_generated_tokens: tokens, verifier_generated_tokens: tokens, verifier_response: verifier.text }];
  }
  const metaPrompt = fillTemplate(await templates.user(META_VERIFIER), { problem, proof: parsed.proof, proof_analysis: parsed.selfEvaluation });
  const [verifier, meta] = await Promise.all([askProofJudge(server, config, verifierPrompt, row), askProofJudge(server, config, metaPrompt, row)]);
  const rY = extractBoxedScore(verifier.text) || 0.0;
  const rMeta = extractBoxedScore(meta.text) || 0.0;
  const rZ = (1.0 - Math.abs(parsed.selfScore - rY)) * rMeta;
  return [
    config.alpha * rY + config.beta * rZ,
    {
      judge_generated_tokens: BigInt(verifier.generatedTokens + meta.generatedTokens),
      r_y: rY,
      r_meta: rMeta,
      s_prime: parsed.selfScore,
      verifier_generated_tokens: BigInt(verifier.generatedTokens),
      meta_generated_tokens: BigInt(meta.generatedTokens),
      verifier_response: verifier.text,
      meta_response: meta.text,
    },
  ];
}

export default resourcesServer({
  name: "ProofWithJudgeResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ problem: z.string().default("") }),
    async run(_state, body, { server }) {
      const { config } = server;
      const problem = body.problem;
      const row = body as unknown as Record<string, unknown>;
      const fullResponse = assistantText(body.response);
      const groups = runtimes.get(server)!.groups;
      if (groups && !problem) throw new Error("problem must be set when zero_reward_incorrect_groups is enabled");

      let reward: number;
      let details: Details;
      try {
        [reward, details] = fullResponse ? await judgeProof(server, problem, fullResponse, row) : [0.0, { r_format: 0.0, reason: "empty_response", judge_generated_tokens: 0n }];
      } catch (error) {
        // The rest of the group must not wait for this member forever: it arrives as a failure.
        if (groups && error instanceof JudgeError) await groups.arrive(problem, { failure: error });
        throw error;
      }
      if (groups) {
        const zeroOut = await groups.arrive(problem, { verifierReward: typeof details.r_y === "number" ? details.r_y : 0.0 });
        details = zeroOut ? { ...details, original_reward: reward, group_all_r_y_zero: true } : { ...details, group_all_r_y_zero: false };
        if (zeroOut) reward = 0.0;
      }
      appendProofLog(process.env.PROOF_JUDGE_LOG_JSONL_PATH, { problem, generated_sequence: fullResponse, reward, ...details }, server.log);
      return reward;
    },
  },
  routes(_app, server) {
    refuseExternalJudge("proof_judge");
    const templates = new ProofPromptTemplates("resources_servers/proof_judge", import.meta.dirname, server.config.prompt_templates_dir);
    const groups = server.config.zero_reward_incorrect_groups ? new IncorrectGroups(server.config.expected_group_size) : undefined;
    runtimes.set(server, { templates, groups });
    templates.prefetch(server.config.beta === 0 ? [VERIFIER] : [VERIFIER, META_VERIFIER], server.log);
  },
});
