// Long-context needle-in-a-haystack over GraphWalks prompts: the answer's node list scored by F1, gated by how much
// of the prompt the model's reasoning copies. Rules, as NeMo Gym's LCNIAHResourcesServer:
// - answer_score: F1 of the node list on the last non-empty line's `Final Answer: [...]` of the output text (items
//   stripped of surrounding quotes) against the set of `json.loads(expected_answer)` (src/ports/long-context);
// - the reasoning is every reasoning item's summary texts, joined; the input is the prompt's text (below);
// - three overlap signals, each 0.0 without reasoning, on both texts normalised (stripped, lower-cased, whitespace
//   runs made one space): overlap_seq_match = SequenceMatcher ratio (autojunk on), overlap_ngram16 = share of the
//   reasoning's distinct 16-word n-grams found in the input, overlap_lcs = longest common substring (autojunk off)
//   over the reasoning's length;
// - overlap_metric_rule picks reasoning_overlap among them; overlap_grading_rule combines: base = answer_score,
//   multiply = answer_score × (1 − overlap), minus = answer_score − overlap.
import { z } from "zod";
import { resourcesServer, RequestValidationError } from "../../src/server/index.ts";
import { responseOutputText, type NeMoGymResponse, type ResponseCreateParams } from "../../src/protocol/index.ts";
import { compilePythonRegex, pythonLen, pythonLower, pythonStrip, splitWhitespace } from "../../src/python/index.ts";
import { longestCommonSubstringSize, SequenceMatcher } from "../../src/python/difflib.ts";
import { expectedNodeSet, nodeSetF1, parseFinalAnswerNodes } from "../../src/ports/long-context/index.ts";

const OVERLAP_METRIC_RULES = ["seq_match", "ngram16", "lcs"] as const;
const OVERLAP_GRADING_RULES = ["base", "multiply", "minus"] as const;

const Config = z.looseObject({
  overlap_metric_rule: z.enum(OVERLAP_METRIC_RULES).default("lcs"),
  overlap_grading_rule: z.enum(OVERLAP_GRADING_RULES).default("multiply"),
});
type Config = z.output<typeof Config>;

/** The verify response's own fields, in NeMo Gym's order (the row's fields follow them). */
const SCORE_FIELDS = ["reward", "answer_score", "overlap_seq_match", "overlap_ngram16", "overlap_lcs", "reasoning_overlap"] as const;

const WHITESPACE_RUN = compilePythonRegex(String.raw`\s+`);
const normalize = (text: string) => WHITESPACE_RUN.sub(" ", pythonLower(pythonStrip(text)));

/** Every reasoning item's summary texts, joined without separator. */
function reasoningText(response: NeMoGymResponse): string {
  let text = "";
  for (const item of response.output) if (item.type === "reasoning") for (const summary of item.summary) text += summary.text;
  return text;
}

/**
 * The prompt's text: `input` itself when it is a string; else, of each item that has content (messages and
 * reasoning items), a string content as it is and each content part's non-empty `text`, joined with "\n".
 */
function inputText(params: ResponseCreateParams): string {
  if (typeof params.input === "string") return params.input;
  const parts: string[] = [];
  for (const item of params.input) {
    const content = (item as { content?: unknown }).content;
    if (typeof content === "string") parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = (part as { text?: unknown }).text;
        if (typeof text === "string" && text !== "") parts.push(text);
      }
    }
  }
  return parts.join("\n");
}

function overlapSeqMatch(reasoning: string, input: string): number {
  const reasoningNormalized = normalize(reasoning);
  return reasoningNormalized === "" ? 0 : new SequenceMatcher(reasoningNormalized, normalize(input)).ratio();
}

/** The share of the reasoning's distinct word n-grams that occur in the input; 0.0 below n words. */
function overlapNgram(reasoning: string, input: string, n: number): number {
  const reasoningWords = splitWhitespace(normalize(reasoning));
  if (reasoningWords.length < n) return 0;
  // Words hold no whitespace, so a space-joined n-gram is unambiguous.
  const ngrams = (words: string[]) => Array.from({ length: Math.max(0, words.length - n + 1) }, (_, i) => words.slice(i, i + n).join(" "));
  const reasoningNgrams = new Set(ngrams(reasoningWords));
  const shared = new Set<string>();
  for (const ngram of ngrams(splitWhitespace(normalize(input)))) if (reasoningNgrams.has(ngram)) shared.add(ngram);
  return shared.size / reasoningNgrams.size;
}

function overlapLcs(reasoning: string, input: string): number {
  const reasoningNormalized = normalize(reasoning);
  if (reasoningNormalized === "") return 0;
  // find_longest_match(autojunk=False)'s size, computed in linear time (a long-context prompt makes difflib's loop slow).
  return longestCommonSubstringSize(reasoningNormalized, normalize(input)) / pythonLen(reasoningNormalized);
}

function combine(config: Config, answerScore: number, overlap: number): number {
  switch (config.overlap_grading_rule) {
    case "base":
      return answerScore;
    case "multiply":
      return answerScore * (1 - overlap);
    case "minus":
      return answerScore - overlap;
  }
}

export default resourcesServer({
  name: "LCNIAHResourcesServer",
  config: Config,
  tools: {},
  verify: {
    // LCNIAHRunRequest: `extra="allow"`, so every row field is echoed after the scores.
    input: z.looseObject({ expected_answer: z.string() }),
    run(_state, body, { config }) {
      const { responses_create_params, response, expected_answer, ...rowFields } = body;
      // NeMo Gym builds its response from the row's fields and the scores as keywords: a row field of the same name
      // is a TypeError there (its 500); here a 422 naming it.
      for (const field of SCORE_FIELDS) {
        if (Object.hasOwn(rowFields, field)) {
          throw new RequestValidationError([{ type: "value_error", loc: ["body", field], msg: `Value error, the row field '${field}' collides with the verify response's own field`, input: rowFields[field] }]);
        }
      }
      const answer = parseFinalAnswerNodes(responseOutputText(response), { stripQuotes: true });
      const answer_score = nodeSetF1(answer.nodes, expectedNodeSet(expected_answer), answer.parseFailed);
      const reasoning = reasoningText(response);
      const input = inputText(responses_create_params);
      const overlaps = { seq_match: overlapSeqMatch(reasoning, input), ngram16: overlapNgram(reasoning, input, 16), lcs: overlapLcs(reasoning, input) };
      const reasoning_overlap = overlaps[config.overlap_metric_rule];
      return {
        reward: combine(config, answer_score, reasoning_overlap),
        answer_score,
        overlap_seq_match: overlaps.seq_match,
        overlap_ngram16: overlaps.ngram16,
        overlap_lcs: overlaps.lcs,
        reasoning_overlap,
        expected_answer,
        ...rowFields,
      };
    },
  },
  floatFields: ["answer_score", "overlap_seq_match", "overlap_ngram16", "overlap_lcs", "reasoning_overlap"],
});
