// RULER v2: NeMo-Skills' eval_ruler2 soft string match, and its multichoice route. Rules, as NeMo Gym's
// Ruler2ResourcesServer, dispatched by the row's eval_type:
// - `multichoice`: the letter of the output text — the last "The final answer is …" line, else the last
//   `\boxed{…}` (braces balanced), its Arabic / Bengali / full-width letters read as A–D; one character is the letter,
//   a longer text gives its last standalone capital; without one, the last `Answer: X` (any case, markdown allowed).
//   Reward 1.0 iff it equals expected_answer (str()'d, stripped, upper-cased);
// - anything else (`ruler2`, the default): max(substring, 1 − WER) against each reference, lower-cased, aggregated
//   by match_type (all: mean; part: max, `Document N:` header blocks deleted first; 2steps: mean over the last
//   paragraph) — src/ports/long-context/string-match.ts. A reference list that is not a list is one reference;
// - predicted_answer is the output text stripped with control characters [\x00-\x1f] made newlines (both routes).
// NeMo Gym raises a ValueError (its 500) for a match_type it does not know; here that is a 422 naming match_type.
import { z } from "zod";
import { resourcesServer, RequestValidationError } from "../../src/server/index.ts";
import { responseOutputText } from "../../src/protocol/index.ts";
import { compilePythonRegex, jsonStr, pythonLen, pythonStrip, pythonSum } from "../../src/python/index.ts";
import { nullDefault } from "../../src/python/pydantic/index.ts";
import { normalizeExtractedAnswer } from "../../src/ports/choice-answer.ts";
import { longContextKeyMetrics, RULER2_MATCH_TYPES, ruler2Match, rewardMetrics, rewardSubsetMetrics, type Ruler2MatchType } from "../../src/ports/long-context/index.ts";

/** The 12 sub-tasks whose mean is reported (ruler2_suite_avg/…) only when a run has all of them. */
const RULER2_SUBTASKS = [
  "mk_niah_basic",
  "mk_niah_easy",
  "mk_niah_medium",
  "mk_niah_hard",
  "mv_niah_basic",
  "mv_niah_easy",
  "mv_niah_medium",
  "mv_niah_hard",
  "qa_basic",
  "qa_easy",
  "qa_medium",
  "qa_hard",
];

const CONTROL_CHARACTER = compilePythonRegex(String.raw`[\x00-\x1f]`);
const FINAL_ANSWER = compilePythonRegex(String.raw`The final answer is (.+)$`, { multiline: true });
const LETTER_TAIL = compilePythonRegex(String.raw`\b[A-Z]\b(?!.*\b[A-Z]\b)`, { dotAll: true });
const ANSWER_COLON = compilePythonRegex(String.raw`(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Z])(?![a-zA-Z0-9])`);

/** eval_ruler2.default_parse: stripped, each control character a newline, stripped again. */
const defaultParse = (prediction: string) => pythonStrip(CONTROL_CHARACTER.sub("\n", pythonStrip(prediction)));

/**
 * Skills' search_boxed: from the last `\boxed`, the text up to the `}` that brings the brace count back to zero,
 * which must read `\boxed{…}`; the inside, or undefined.
 */
function searchBoxed(text: string): string | undefined {
  const start = text.lastIndexOf("\\boxed");
  if (start < 0) return undefined;
  let openBraces = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "{") openBraces++;
    else if (text[i] === "}" && --openBraces === 0) {
      const boxed = text.slice(start, i + 1);
      return boxed.startsWith("\\boxed{") ? boxed.slice("\\boxed{".length, -1) : undefined;
    }
  }
  return undefined;
}

/** eval_mcq.extract_letter, relaxed: the answer letter of the text, or undefined. */
export function extractMcqLetter(text: string): string | undefined {
  const finalAnswers = FINAL_ANSWER.findall<string>(text);
  let extracted = finalAnswers.length > 0 ? finalAnswers[finalAnswers.length - 1] : searchBoxed(text);
  if (extracted !== undefined) extracted = normalizeExtractedAnswer(extracted);
  let letter: string | undefined;
  if (extracted !== undefined) {
    if (pythonLen(extracted) === 1) letter = extracted.toUpperCase();
    else if (pythonLen(extracted) > 1) {
      const tail = LETTER_TAIL.findall<string>(extracted);
      if (tail.length > 0) letter = pythonStrip(tail[tail.length - 1]!).toUpperCase();
    }
  }
  if (letter === undefined) {
    const answers = ANSWER_COLON.findall<string>(text);
    if (answers.length > 0) letter = pythonStrip(answers[answers.length - 1]!).toUpperCase();
  }
  return letter;
}

const isMatchType = (value: string): value is Ruler2MatchType => (RULER2_MATCH_TYPES as readonly string[]).includes(value);

export default resourcesServer({
  name: "Ruler2ResourcesServer",
  tools: {},
  verify: {
    input: z.object({
      // The references (a list of str; anything else is one reference, str()'d), or the multichoice letter.
      expected_answer: z.unknown(),
      eval_type: z.string().default("ruler2"),
      match_type: z.string().default("all"),
      // Only for the per-task metrics.
      task: nullDefault(z.string()),
      length: nullDefault(z.number().int()),
    }),
    run(_state, { response, expected_answer, eval_type, match_type, task, length }) {
      const prediction = responseOutputText(response);
      const echoed = { eval_type, match_type, task, length, predicted_answer: defaultParse(prediction) };
      if (eval_type === "multichoice") {
        const extracted = extractMcqLetter(prediction);
        const gold = expected_answer === null ? "" : pythonStrip(jsonStr(expected_answer)).toUpperCase();
        return { reward: extracted !== undefined && extracted === gold ? 1 : 0, ...echoed, extracted_answer: extracted ?? null };
      }
      if (!isMatchType(match_type)) {
        throw new RequestValidationError([
          { type: "value_error", loc: ["body", "match_type"], msg: `Value error, Unsupported match_type=${JSON.stringify(match_type)}; expected one of ${JSON.stringify([...RULER2_MATCH_TYPES].sort())}`, input: match_type },
        ]);
      }
      const references = (Array.isArray(expected_answer) ? expected_answer : [expected_answer]).map(jsonStr);
      return { reward: ruler2Match(match_type, prediction, references), ...echoed, extracted_answer: null };
    },
  },
  computeMetrics(tasks) {
    const subsetMetrics = rewardSubsetMetrics(tasks, "task");
    const metrics = { ...rewardMetrics(tasks), ...subsetMetrics };
    // Per metric (the part after "<task>/"), the mean over the 12 sub-tasks when every one of them has it.
    const byMetric = new Map<string, Map<string, number>>();
    for (const [key, value] of Object.entries(subsetMetrics)) {
      const slash = key.indexOf("/");
      if (slash < 0) continue;
      const [taskName, rest] = [key.slice(0, slash), key.slice(slash + 1)];
      if (!byMetric.has(rest)) byMetric.set(rest, new Map());
      byMetric.get(rest)!.set(taskName, value);
    }
    for (const [rest, byTask] of byMetric) {
      if (RULER2_SUBTASKS.every((name) => byTask.has(name))) metrics[`ruler2_suite_avg/${rest}`] = pythonSum(RULER2_SUBTASKS.map((name) => byTask.get(name)!)) / RULER2_SUBTASKS.length;
    }
    return metrics;
  },
  keyMetrics(agentMetrics) {
    const key = longContextKeyMetrics(agentMetrics);
    for (const [name, value] of Object.entries(agentMetrics)) if (name.startsWith("ruler2_suite_avg/")) key[name] = value;
    return key;
  },
});
