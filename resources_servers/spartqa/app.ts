// SpartQA, choose-object questions (NeMo Gym's SpartqaResourcesServer): a story, "… X or Y?", and four candidate
// answers — X, Y, "both of them", "none of them". The model's final answer is resolved to one candidate; reward 1.0
// iff that candidate is the gold label (`target`). Rules, as NeMo Gym's verify:
// - the text is the response's output_text (else every message's text); <think>…</think> and
//   <|channel>thought…<channel|> blocks are dropped;
// - the answer is the last "Final answer:" / "Selected answer:" / "Answer:" line capture (first pattern that has
//   one; the prompt's "<candidate answer>" echo skipped), else the whole text; its first non-empty cleaned line (the
//   last one when the text opens with a "thinking process"/"analysis"-style line and no pattern matched);
// - candidates: `options` (else verifier_metadata.options, else just the gold) plus "both of them"/"none of them",
//   compared lower-cased, without punctuation, a leading article or extra spaces; aliases ("neither", "dk", …) name
//   one fixed label; otherwise the answer must contain exactly one candidate (the most specific of nested ones).
import { z } from "zod";
import { resourcesServer } from "../../src/server/index.ts";
import { bestEffortResponseText } from "../../src/ports/response-text.ts";
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { codePoints, jsonIterate, jsonStr, jsonTruthy, pythonLower, pythonStrip, splitLines, splitWhitespace } from "../../src/python/index.ts";

const BOTH_LABEL = "both of them";
const NONE_LABEL = "none of them";
const BOTH_ALIASES = new Set(["both", "both of them", "both objects", "both of the objects", "both of these"]);
// The paper treats DK / None / [] alike: none of the candidate objects hold.
const NONE_ALIASES = new Set(["none", "none of them", "none of the objects", "neither", "neither of them", "neither object", "no object", "dk", "do not know", "dont know"]);

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

function normalize(text: string): string {
  const lowered = pythonLower(pythonStrip(text));
  return splitWhitespace([...lowered].filter((ch) => !PUNCTUATION.has(ch)).join("")).join(" ");
}

const THINK_BLOCK = compilePythonRegex("<think>.*?</think>", { ignoreCase: true, dotAll: true });
const CHANNEL_THOUGHT = compilePythonRegex(String.raw`<\|channel\>thought\s*.*?<channel\|>`, { ignoreCase: true, dotAll: true });
const stripReasoning = (text: string): string => pythonStrip(CHANNEL_THOUGHT.sub("", THINK_BLOCK.sub("", text)));

const LEADING_BULLETS = compilePythonRegex(String.raw`^[-*•\s]+`);
const EDGE_STARS = compilePythonRegex(String.raw`^\*+|\*+$`);
const THINK_TAG = compilePythonRegex("</?think>", { ignoreCase: true });

function cleanCandidate(text: string): string {
  let cleaned = LEADING_BULLETS.sub("", pythonStrip(text));
  cleaned = pythonStrip(EDGE_STARS.sub("", cleaned));
  cleaned = pythonStrip(THINK_TAG.sub("", cleaned));
  return pythonStrip(pythonStrip(cleaned), "\"'` ");
}

// \x60 is a backtick.
const ANSWER_PATTERNS = [
  String.raw`(?:^|\n)\s*(?:[*_\x60#>\-\s]*)final\s+answer(?:\s+is)?\s*(?:[*_\x60\s])*[:\-]\s*(.+)`,
  String.raw`(?:^|\n)\s*(?:[*_\x60#>\-\s]*)selected\s+answer(?:\s+is)?\s*(?:[*_\x60\s])*[:\-]\s*(.+)`,
  String.raw`(?:^|\n)\s*(?:[*_\x60#>\-\s]*)answer(?:\s+is)?\s*(?:[*_\x60\s])*[:\-]\s*(.+)`,
  String.raw`\b(?:the\s+)?(?:final\s+)?answer\s+(?:is|would\s+be|should\s+be)\s*[:\-]?\s*(.+)`,
  String.raw`\bselected\s+(?:option|answer)\s+(?:is|would\s+be)\s*[:\-]?\s*(.+)`,
].map((pattern) => compilePythonRegex(pattern, { ignoreCase: true, multiline: true }));

const THINKING_OPENERS = ["thinking process", "analysis", "the user wants", "we need"];

/** `_extract_answer`: the answer phrase of the model's text ("" when there is none). */
export function extractAnswer(raw: string): string {
  let text = stripReasoning(raw);
  let extracted: string | undefined;
  for (const pattern of ANSWER_PATTERNS) {
    // The instruction-template echo ("Final answer: <candidate answer>") and empty captures are not answers.
    const captures = [...pattern.finditer(text)].map((m) => pythonStrip(m.groups[1]!)).filter((captured) => captured !== "" && normalize(captured) !== "candidate answer");
    if (captures.length > 0) {
      extracted = captures.at(-1)!;
      break;
    }
  }
  if (extracted !== undefined) text = extracted;

  const lines = splitLines(text)
    .filter((line) => pythonStrip(line) !== "")
    .map(cleanCandidate)
    .filter((line) => line !== "" && !["final answer", "answer"].includes(normalize(line)));
  if (lines.length === 0) return "";
  if (extracted === undefined && lines.length > 1) {
    const first = normalize(lines[0]!);
    if (THINKING_OPENERS.some((opener) => first.startsWith(opener))) return lines.at(-1)!;
  }
  return lines[0]!;
}

const LEADING_ARTICLE = compilePythonRegex(String.raw`^(?:a|an|the)\s+`);
/** Article-insensitive: the qrels phrases and the story's wording disagree on leading articles. */
const labelKey = (text: string): string => pythonStrip(LEADING_ARTICLE.sub("", normalize(text)));

/** The candidate labels: the story objects, then "both of them" / "none of them", one per key. */
function candidateLabels(options: readonly unknown[]): string[] {
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const option of [...options, BOTH_LABEL, NONE_LABEL]) {
    const label = jsonStr(option);
    const key = labelKey(label);
    if (key !== "" && !seen.has(key)) {
      seen.add(key);
      labels.push(pythonStrip(label));
    }
  }
  return labels;
}

/** `match_label`: the one candidate the answer names, or undefined (none, or ambiguous). */
function matchLabel(prediction: string, labels: readonly string[]): string | undefined {
  const key = labelKey(prediction);
  if (key === "") return undefined;
  const byKey = new Map<string, string>();
  for (const label of labels) byKey.set(labelKey(label), label);
  const values = [...byKey.values()];
  if (byKey.has(key)) return byKey.get(key);
  if (BOTH_ALIASES.has(key) && values.includes(BOTH_LABEL)) return byKey.get(labelKey(BOTH_LABEL));
  if (NONE_ALIASES.has(key) && values.includes(NONE_LABEL)) return byKey.get(labelKey(NONE_LABEL));
  let hits = [...byKey.keys()].filter((labelKeyText) => labelKeyText !== "" && key.includes(labelKeyText));
  // One option can nest inside the other; the most specific match is the intended one.
  hits = hits.filter((hit) => !hits.some((other) => other !== hit && other.includes(hit)));
  return hits.length === 1 ? byKey.get(hits[0]!) : undefined;
}

const VerifyInput = z.looseObject({
  target: z.string().default(""),
  options: z.array(z.string()).default(() => []),
  verifier_metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** The verify fields the response sets itself; the request's other fields are echoed after them. */
const OWN_FIELDS = new Set(["responses_create_params", "response", "reward", "exact", "parsed", "extracted", "predicted_label", "target", "options", "verifier_metadata"]);

type Row = Record<string, unknown>;
const isNumber = (value: unknown): boolean => typeof value === "number" || typeof value === "boolean";
const asNumber = (value: unknown): number => (typeof value === "boolean" ? Number(value) : (value as number));

export default resourcesServer({
  name: "SpartqaResourcesServer",
  tools: {},
  verify: {
    input: VerifyInput,
    run(_state, body) {
      const prediction = extractAnswer(bestEffortResponseText(body.response));
      // The explicit fields win; verifier_metadata is the path that survives nemo-evaluator's native driver.
      const meta = body.verifier_metadata ?? {};
      const gold = body.target || ("target" in meta ? jsonStr(meta.target) : "");
      const options = body.options.length > 0 ? body.options : jsonTruthy(meta.options) ? jsonIterate(meta.options) : [];

      const labels = candidateLabels(options.length > 0 ? options : [gold]);
      const predicted = matchLabel(prediction, labels);
      const goldKey = labelKey(gold);
      const correct = goldKey !== "" && predicted !== undefined && labelKey(predicted) === goldKey;
      const echoed = Object.fromEntries(Object.entries(body).filter(([key]) => !OWN_FIELDS.has(key)));
      return {
        reward: correct ? 1 : 0,
        // The gold label copied verbatim, as instructed, rather than recovered from a longer sentence.
        exact: correct && labelKey(prediction) === goldKey,
        parsed: normalize(prediction) !== "",
        extracted: codePoints(prediction).slice(0, 200).join(""),
        predicted_label: predicted ?? "",
        target: body.target,
        options: body.options,
        verifier_metadata: body.verifier_metadata ?? null,
        ...echoed,
      };
    },
  },
  computeMetrics(tasks) {
    const rows: Row[] = tasks.flat();
    if (rows.length === 0) return {};
    const metrics: Record<string, unknown> = {};
    const rewards = rows.map((row) => row.reward).filter(isNumber).map(asNumber);
    if (rewards.length > 0) {
      metrics.mean_reward = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
      metrics.count = rewards.length;
    }
    const share = (test: (row: Row) => boolean) => rows.filter(test).length / rows.length;
    metrics.exact_match_rate = share((row) => jsonTruthy(row.exact));
    metrics.parse_rate = share((row) => jsonTruthy(row.parsed));
    // Answers that resolved to some candidate at all: low when the model ignores the copy-a-candidate format.
    metrics.label_resolve_rate = share((row) => jsonTruthy(row.predicted_label));
    // Accuracy on the "both" / "none" golds: a model that never answers "both of them" shows a near-zero slice.
    for (const label of [BOTH_LABEL, NONE_LABEL]) {
      const slice = rows.filter((row) => labelKey(jsonStr(row.target ?? "")) === labelKey(label));
      if (slice.length > 0) metrics[`accuracy_${label.replaceAll(" ", "_")}`] = slice.filter((row) => row.reward === 1 || row.reward === true).length / slice.length;
    }
    return metrics;
  },
  keyMetrics(agentMetrics) {
    return Object.fromEntries(["mean_reward", "exact_match_rate"].filter((key) => key in agentMetrics).map((key) => [key, agentMetrics[key]]));
  },
});
