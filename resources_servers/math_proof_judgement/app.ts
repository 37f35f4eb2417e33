// Math proof judgement (NeMo Gym's math_proof_judgement): the policy is the judge of a proof and must answer
// "Judgement: Yes" (correct) or "Judgement: No"; reward 1 when its verdict is the gold `expected_judgement`'s. No LLM
// judge: the verdict is parsed. Metrics: accuracy and the confusion counts with pass@k / majority@k, and Skills'
// precision / recall / F1.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { computePassMajorityMetrics, highestKMetrics, passMajorityMetricsAsDict, type VerifyRecord } from "../../src/metrics/index.ts";
import { classificationMetrics, confusion, parseJudgement, verdictLabel } from "./judgement.ts";

/** The assistant messages' text (a string content, or every part's `text`), one per line, stripped. */
function assistantText(response: { output?: unknown[] }): string {
  const texts: string[] = [];
  for (const item of (response.output ?? []) as Array<Record<string, unknown>>) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    const content = item.content ?? [];
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const part of content) if (typeof part?.text === "string") texts.push(part.text);
  }
  return texts.join("\n").trim();
}

const ROW_FIELDS = ["expected_judgement", "problem_id", "problem", "proof"] as const;
const score = (result: VerifyRecord) => ({
  accuracy: Number(result.reward ?? 0),
  true_positive: Number(result.tp ?? 0),
  false_positive: Number(result.fp ?? 0),
  false_negative: Number(result.fn ?? 0),
  true_negative: Number(result.tn ?? 0),
});

export default resourcesServer({
  name: "MathProofJudgementResourcesServer",
  tools: {},
  verify: {
    input: z.looseObject({ expected_judgement: z.string().nullish(), problem_id: z.string().nullish(), problem: z.string().nullish(), proof: z.string().nullish() }),
    run(_state, body) {
      const { responses_create_params: _params, response, ...rest } = body as Record<string, unknown>;
      const pred = parseJudgement(assistantText(body.response));
      const gold = parseJudgement(body.expected_judgement);
      const [tp, fp, fn, tn] = confusion(pred, gold);
      // NeMo Gym's response model: its fields, then the request's other fields (extra="allow"), None when absent.
      const others = Object.fromEntries(Object.entries(rest).filter(([key]) => key !== "expected_judgement"));
      return {
        reward: pred !== null && gold !== null && pred === gold ? 1.0 : 0.0,
        expected_judgement: body.expected_judgement ?? null,
        extracted_judgement: verdictLabel(pred),
        tp,
        fp,
        fn,
        tn,
        problem_id: body.problem_id ?? null,
        problem: body.problem ?? null,
        proof: body.proof ?? null,
        ...Object.fromEntries(Object.entries(others).filter(([key]) => !(ROW_FIELDS as readonly string[]).includes(key))),
      };
    },
  },
  floatFields: ["tp", "fp", "fn", "tn"],
  computeMetrics(tasks) {
    // NeMo Gym returns compute_pass_majority_metrics' dict as it is: per_sample_aggregate included, at its place.
    const metrics = passMajorityMetricsAsDict(computePassMajorityMetrics(tasks, { scoreFn: score, answerKey: "extracted_judgement" }));
    return Object.assign(metrics, classificationMetrics(tasks as Array<Array<Record<string, unknown>>>));
  },
  keyMetrics(agentMetrics) {
    const key: Record<string, unknown> = {};
    if ("mean/reward" in agentMetrics) key["mean/reward"] = agentMetrics["mean/reward"];
    Object.assign(key, highestKMetrics(agentMetrics, "pass@1[avg-of-{k}]", { scoreNames: ["accuracy", "f1", "precision", "recall", "no_answer"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "pass@{k}", { scoreNames: ["accuracy", "f1", "no_answer"] }));
    Object.assign(key, highestKMetrics(agentMetrics, "majority@{k}", { scoreNames: ["accuracy", "f1"] }));
    return key;
  },
});
