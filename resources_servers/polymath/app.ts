// PolyMath, the multilingual math benchmark (NeMo Gym's PolyMathResourcesServer, a subclass of math_with_judge):
// verify is math_with_judge's (the math-verify port, then the optional LLM judge; src/ports/math/library-judge.ts)
// with the row's `weight` and `language` passed through; /aggregate_metrics adds per-language and
// difficulty-weighted pass@k. Where the math-verify port cannot stand by its answer (a gap: a LaTeX command
// latex2sympy parses and the port does not, a union of intervals it cannot compare), verify answers 501 naming it.
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { computeSubsetMetrics, passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { LibraryJudgeMathConfig, LibraryJudgeMathFields, libraryJudgeMathMetrics, mathScores, verifyLibraryJudgeMath } from "../../src/ports/math/library-judge.ts";
import { weightedPassMajorityMetrics } from "./weighted-metrics.ts";

export default resourcesServer({
  name: "PolyMathResourcesServer",
  config: LibraryJudgeMathConfig,
  tools: {},
  verify: {
    input: z.object({ ...LibraryJudgeMathFields, weight: z.number().nullable().default(null), language: z.string().nullable().default(null) }),
    async run(_state, body, { config, server }) {
      const base = await verifyLibraryJudgeMath(body, config, server);
      return { ...base, weight: body.weight, language: body.language };
    },
  },
  floatFields: ["library_reward", "weight"],
  computeMetrics: (tasks) => {
    if (tasks.length === 0) return {};
    return {
      ...libraryJudgeMathMetrics(tasks),
      ...computeSubsetMetrics(tasks, "language", { scoreFn: mathScores, answerKey: "extracted_answer" }),
      ...weightedPassMajorityMetrics(tasks, mathScores, "extracted_answer"),
    };
  },
  keyMetrics: passMajorityKeyMetrics,
  reverifyMode: "stateless",
});
