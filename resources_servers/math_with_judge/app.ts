// Math final-answer QA (OpenMathReasoning, DAPO-17k, AIME). The model's text is checked against
// `expected_answer` by the math-verify port (src/ports/math); when that says no and the instance has
// `should_use_judge: true`, an LLM judge decides, asked in both orders. The shipped configs keep the judge off.
// The verify and metrics are src/ports/math/library-judge.ts (polymath shares them).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { passMajorityKeyMetrics } from "../../src/metrics/index.ts";
import { LibraryJudgeMathConfig, LibraryJudgeMathFields, libraryJudgeMathMetrics, verifyLibraryJudgeMath } from "../../src/ports/math/library-judge.ts";

export default resourcesServer({
  name: "LibraryJudgeMathResourcesServer",
  config: LibraryJudgeMathConfig,
  tools: {},
  verify: {
    input: z.object(LibraryJudgeMathFields),
    run: (_state, body, { config, server }) => verifyLibraryJudgeMath(body, config, server),
  },
  floatFields: ["library_reward"],
  computeMetrics: libraryJudgeMathMetrics,
  keyMetrics: passMajorityKeyMetrics,
});
