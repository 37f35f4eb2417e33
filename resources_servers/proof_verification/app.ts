// Proof verification: the policy grades a proof (its evaluation ends in \boxed{0|0.5|1}); the reward is how close its
// score is to the ground-truth score, times a meta-verifier's \boxed{} verdict on whether the policy's evaluation
// agrees with the reference evaluation (asked of judge_model_server with NeMo Gym's meta-verifier.yaml).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
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

const Config = z.looseObject(ProofJudgeConfigFields);

const META_VERIFIER = "meta-verifier.yaml";
const templatesByServer = new WeakMap<object, ProofPromptTemplates>();

/** The policy's evaluation (after its thinking) and its \boxed score, or why it has none. */
export function parseVerificationResponse(text: string, assertThinkEnd: boolean): { evaluation: string; score: number } | { reason: string } {
  const evaluation = afterThinking(text, assertThinkEnd);
  if (evaluation === null) return { reason: "missing_think_end" };
  const score = extractBoxedScore(evaluation);
  if (score === null) return { reason: "invalid_boxed_score" };
  return { evaluation, score };
}

export default resourcesServer({
  name: "ProofVerificationResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.object({ problem: z.string().default(""), proof: z.string().default(""), ground_truth_judgement: z.string(), ground_truth_verify_score: z.number() }),
    async run(_state, body, { config, server }) {
      const { problem, proof, ground_truth_judgement, ground_truth_verify_score } = body;
      const fullResponse = assistantText(body.response);
      if (!fullResponse) return 0.0;

      const judged = async (): Promise<[number, Record<string, unknown>]> => {
        const parsed = parseVerificationResponse(fullResponse, config.assert_think_end);
        if ("reason" in parsed) return [0.0, { r_format: 0.0, reason: parsed.reason, judge_generated_tokens: 0n }];
        const tooLong = textLengthError(proof, "proof", MAX_PROOF_CHARS) ?? textLengthError(parsed.evaluation, "verification", MAX_VERIFICATION_CHARS);
        if (tooLong) return [0.0, { ...tooLong, judge_generated_tokens: 0n }];
        if (![0, 0.5, 1].includes(ground_truth_verify_score)) return [0.0, { r_format: 1.0, reason: "invalid_ground_truth_score", judge_generated_tokens: 0n }];

        const rScore = 1.0 - Math.abs(parsed.score - ground_truth_verify_score);
        const template = await templatesByServer.get(server)!.user(META_VERIFIER);
        const prompt = fillTemplate(template, { problem, proof, ground_truth_judgement, candidate_judgement: parsed.evaluation });
        const meta = await askProofJudge(server, config, prompt, body as unknown as Record<string, unknown>);
        const rMeta = extractBoxedScore(meta.text) || 0.0;
        const tokens = BigInt(meta.generatedTokens);
        return [
          rScore * rMeta,
          { judge_generated_tokens: tokens, meta_generated_tokens: tokens, predicted_score: parsed.score, ground_truth_verify_score, r_score: rScore, r_meta: rMeta, meta_response: meta.text },
        ];
      };
      const [reward, details] = await judged();
      appendProofLog(process.env.PROOF_VERIFICATION_LOG_JSONL_PATH, { problem, generated_sequence: fullResponse, reward, ...details }, server.log);
      return reward;
    },
  },
  routes(_app, server) {
    refuseExternalJudge("proof_verification");
    const templates = new ProofPromptTemplates("resources_servers/proof_verification", import.meta.dirname, server.config.prompt_templates_dir);
    templatesByServer.set(server, templates);
    templates.prefetch([META_VERIFIER], server.log);
  },
});
