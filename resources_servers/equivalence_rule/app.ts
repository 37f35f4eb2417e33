// Rule-based equivalence of the model's text with `expected_answer` (NeMo Gym's EquivalenceRuleResourcesServer):
// no judge, no tools. The instance's `grading_rule` picks the rule; every rule first normalises both texts
// (strip, lower-case, whitespace runs to one space):
// - exact (default): 1.0 iff the normalised texts are equal, else 0.0;
// - seq_match: difflib's SequenceMatcher ratio of the normalised texts (response first, answer second);
// - weighted_seq_match: 0.85 × that ratio + 0.15 × the ratio of the response's first len(prefix) code points with
//   the answer's first 10 (the prefix), clamped to [0, 1].
// The response text is every output_text part of every message item, joined. The row's other fields are echoed
// after `reward` and `equivalence_score` (NeMo Gym's request keeps extra fields).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { RequestValidationError } from "../../src/protocol/errors.ts";
import { sequenceRatio } from "../../src/python/difflib.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonLower, pythonSlice, pythonStrip } from "../../src/python/str.ts";

export const GRADING_RULES = ["seq_match", "weighted_seq_match", "exact"] as const;
export type GradingRule = (typeof GRADING_RULES)[number];

const Config = z.looseObject({ grading_rule: z.enum(GRADING_RULES).default("exact") });

const WHITESPACE_RUN = compilePythonRegex(String.raw`\s+`);

/** NeMo Gym's _normalize: strip, lower(), every run of (Unicode) whitespace one space. */
export const normalize = (text: string): string => WHITESPACE_RUN.sub(" ", pythonLower(pythonStrip(text)));

const PREFIX_CODE_POINTS = 10;

export function grade(response: string, answer: string, rule: GradingRule): number {
  const [responseN, answerN] = [normalize(response), normalize(answer)];
  if (rule === "exact") return responseN === answerN ? 1 : 0;
  const similarity = sequenceRatio(responseN, answerN);
  if (rule === "seq_match") return similarity;
  const prefix = pythonSlice(answerN, 0, PREFIX_CODE_POINTS);
  const prefixSimilarity = sequenceRatio(pythonSlice(responseN, 0, Array.from(prefix).length), prefix);
  return Math.max(0, Math.min(1, 0.85 * similarity + 0.15 * prefixSimilarity));
}

// Python builds the response as VerifyResponse(**body.model_dump(), reward=…, equivalence_score=…): a row field of
// either name is its TypeError (a 500); here a 422 naming the field.
const RESPONSE_FIELDS = ["reward", "equivalence_score"] as const;

export default resourcesServer({
  name: "EquivalenceRuleResourcesServer",
  config: Config,
  tools: {},
  verify: {
    input: z.looseObject({ expected_answer: z.string() }),
    run(_state, body, { config }) {
      const { responses_create_params: _params, response, expected_answer, ...extras } = body;
      for (const field of RESPONSE_FIELDS) {
        if (field in extras) throw new RequestValidationError([{ type: "value_error", loc: ["body", field], msg: `'${field}' is a field of the verify response and cannot be a row field`, input: extras[field] }]);
      }
      const score = grade(responseOutputText(response), expected_answer, config.grading_rule);
      return { reward: score, equivalence_score: score, expected_answer, ...extras };
    },
  },
  floatFields: ["equivalence_score"],
  reverifyMode: "stateless",
});
