// NeMo Gym's hotpotqa_qa scoring (its port of NeMo Skills' hotpotqa_metrics.py and hotpotqa_filtering.py): the
// JSON answer extraction, SQuAD-style EM / F1, ground-truth alternatives with the lenient and strict substring
// checks, and the unreliable-ground-truth filter. Python's semantics: strings are code points, `lower`, `split`,
// `isupper`, `isdigit`, `re` (Unicode `\b`, `\w`, `\s`), `json.loads` and `str()` of what it returns.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { pythonJsonLoads } from "../../src/python/json.ts";
import { PyException } from "../../src/python/exception.ts";
import { isPyDict, pythonStr } from "../../src/python/values.ts";
import { codePoints, compareStrings, isUpper, pythonLen, pythonLower, pythonRstrip, pythonStrip, splitWhitespace } from "../../src/python/str.ts";

// ---- SQuAD-style normalisation and answer scores ----

const ARTICLES = compilePythonRegex(String.raw`\b(a|an|the)\b`);
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** The official HotpotQA / SQuAD normalisation: lower-case, no ASCII punctuation, no articles, single spaces. */
export function normalizeAnswer(text: string): string {
  const noPunctuation = codePoints(pythonLower(text)).filter((ch) => !PUNCTUATION.has(ch)).join("");
  return splitWhitespace(ARTICLES.sub(" ", noPunctuation)).join(" ");
}

const SPECIAL = ["yes", "no", "noanswer"];

/** Token-overlap F1 (with precision and recall); yes / no / noanswer must match exactly. */
export function answerF1Score(prediction: string, groundTruth: string): [number, number, number] {
  const [pred, gold] = [normalizeAnswer(prediction), normalizeAnswer(groundTruth)];
  const zero: [number, number, number] = [0, 0, 0];
  if (SPECIAL.includes(pred) && pred !== gold) return zero;
  if (SPECIAL.includes(gold) && pred !== gold) return zero;
  const predTokens = splitWhitespace(pred);
  const goldTokens = splitWhitespace(gold);
  const goldCounts = new Map<string, number>();
  for (const token of goldTokens) goldCounts.set(token, (goldCounts.get(token) ?? 0) + 1);
  let same = 0;
  for (const token of predTokens) {
    const left = goldCounts.get(token) ?? 0;
    if (left > 0) {
      same++;
      goldCounts.set(token, left - 1);
    }
  }
  if (same === 0) return zero;
  const precision = (1.0 * same) / predTokens.length;
  const recall = (1.0 * same) / goldTokens.length;
  return [(2 * precision * recall) / (precision + recall), precision, recall];
}

export const answerExactMatch = (prediction: string, groundTruth: string): number => (normalizeAnswer(prediction) === normalizeAnswer(groundTruth) ? 1 : 0);

// ---- the model's answer ----

/** The `answer` of a JSON object text, as `str()`; null when it is no such object. */
function answerOfJson(text: string): string | null {
  let parsed;
  try {
    parsed = pythonJsonLoads(text);
  } catch (error) {
    // JSONDecodeError, and the ValueError of an integer over 4300 digits, are caught in NeMo Gym.
    if (error instanceof PyException && (error.type === "JSONDecodeError" || error.type === "ValueError")) return null;
    throw error;
  }
  if (!isPyDict(parsed) || !parsed.has("answer")) return null;
  const supportingFacts = parsed.get("supporting_facts");
  // NeMo Gym reads each [title, int(index)] pair too; only int(inf) escapes its except clauses (an OverflowError).
  if (Array.isArray(supportingFacts)) {
    for (const item of supportingFacts) {
      if (Array.isArray(item) && item.length === 2 && typeof item[1] === "number" && !Number.isFinite(item[1]) && !Number.isNaN(item[1])) {
        throw new PyException("OverflowError", "cannot convert float infinity to integer");
      }
    }
  }
  return pythonStr(parsed.get("answer")!);
}

/** Every brace-balanced `{…}` from left to right (no nesting inside one); an unclosed `{` ends the scan. */
function jsonCandidates(text: string): string[] {
  const candidates: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "{") {
      i++;
      continue;
    }
    let depth = 0;
    let closed = false;
    for (let j = i; j < text.length; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
      if (depth === 0) {
        candidates.push(text.slice(i, j + 1));
        i = j + 1;
        closed = true;
        break;
      }
    }
    if (!closed) break;
  }
  return candidates;
}

const MARKDOWN_JSON = compilePythonRegex("```(?:json)?\\s*(\\{.*?\\})\\s*```", { dotAll: true });

/**
 * The predicted answer: the `answer` of the last ```json fenced object that has one, else of the last
 * brace-balanced object that has one, else the whole (stripped) generation; "" for an empty generation.
 */
export function parseGeneration(generation: string): string {
  if (!generation) return "";
  const text = pythonStrip(generation);
  for (const match of [...MARKDOWN_JSON.finditer(text)].reverse()) {
    const answer = answerOfJson(match.groups[1]!);
    if (answer !== null) return answer;
  }
  for (const candidate of jsonCandidates(text).reverse()) {
    const answer = answerOfJson(candidate);
    if (answer !== null) return answer;
  }
  return text;
}

// ---- ground-truth alternatives and filtering ----

const NUM_WORDS: Readonly<Record<string, string>> = {
  one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9", ten: "10",
  eleven: "11", twelve: "12", thirteen: "13", fourteen: "14", fifteen: "15", sixteen: "16", seventeen: "17",
  eighteen: "18", nineteen: "19", twenty: "20", first: "1st", second: "2nd", third: "3rd", fourth: "4th", fifth: "5th",
  nineteenth: "19th", twentieth: "20th", "twenty-first": "21st",
};
const NUM_DIGITS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(NUM_WORDS).map(([word, digits]) => [digits, word]));

const MAX_GT_LENGTH = 40;
const MIN_ALT_LENGTH = 3;

const STOPWORDS = new Set([
  "the", "a", "an", "of", "in", "on", "at", "for", "and", "or", "to", "by", "is", "was", "are", "were", "be", "been", "with",
  "from", "that", "this", "it", "its", "his", "her", "my", "our", "their", "no", "not", "but", "if", "as", "into", "about",
  "than", "then",
]);

const ARTICLE_PREFIXES = ["the ", "a ", "an "];

// str.isdigit(): decimal digits and the other characters of Numeric_Type=Digit (superscripts, circled digits, …).
const DIGITS = /^[\p{Nd}\u{b2}-\u{b3}\u{b9}\u{1369}-\u{1371}\u{19da}\u{2070}\u{2074}-\u{2079}\u{2080}-\u{2089}\u{2460}-\u{2468}\u{2474}-\u{247c}\u{2488}-\u{2490}\u{24ea}\u{24f5}-\u{24fd}\u{24ff}\u{2776}-\u{277e}\u{2780}-\u{2788}\u{278a}-\u{2792}\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]+$/u;
const isDigit = (text: string) => DIGITS.test(text);

const WHITESPACE_RUN = compilePythonRegex(String.raw`\s+`);
const PARENTHESISED = compilePythonRegex(String.raw`\s*\([^)]*\)\s*`);
const PARENTHESIS_CONTENT = compilePythonRegex(String.raw`\(([^)]+)\)`);
const THOUSANDS = compilePythonRegex(String.raw`(\d),(\d{3})`);
const ABBREVIATION_DOT = compilePythonRegex(String.raw`(?<!\d)\.(?!\d)`);

/** `text[n:]` over code points. */
const dropFirst = (text: string, n: number) => codePoints(text).slice(n).join("");

/** The surface forms a ground truth may take (always itself), sorted, and the rules that produced some. */
export function gtAlternatives(gt: string): [string[], string[]] {
  const alternatives = new Set([gt]);
  const rules: string[] = [];
  const gtLower = pythonLower(gt);

  const article = ARTICLE_PREFIXES.find((prefix) => gtLower.startsWith(prefix));
  if (article) {
    alternatives.add(dropFirst(gt, article.length));
    rules.push("strip_article");
  }
  const unquoted = pythonStrip(gt.replaceAll('"', "").replaceAll("\u201c", "").replaceAll("\u201d", ""));
  if (unquoted && unquoted !== gt) {
    alternatives.add(unquoted);
    rules.push("strip_quotes");
  }
  if (gt.includes("(")) {
    const noParens = WHITESPACE_RUN.sub(" ", pythonStrip(PARENTHESISED.sub(" ", gt)));
    if (noParens && noParens !== gt) alternatives.add(noParens);
    for (const inner of PARENTHESIS_CONTENT.findall<string>(gt)) {
      const stripped = pythonStrip(inner);
      if (pythonLen(stripped) > 1) alternatives.add(stripped);
    }
    rules.push("normalize_parens");
  }
  const key = pythonStrip(gtLower);
  if (Object.hasOwn(NUM_WORDS, key)) {
    alternatives.add(NUM_WORDS[key]!);
    rules.push("number_word_to_digit");
  }
  if (Object.hasOwn(NUM_DIGITS, key)) {
    alternatives.add(NUM_DIGITS[key]!);
    rules.push("number_digit_to_word");
  }
  let noCommas = THOUSANDS.sub(String.raw`\1\2`, gt);
  while (noCommas !== gt && THOUSANDS.search(noCommas)) noCommas = THOUSANDS.sub(String.raw`\1\2`, noCommas);
  if (noCommas !== gt) {
    alternatives.add(noCommas);
    rules.push("strip_number_commas");
  }
  const points = codePoints(gt);
  if (points.length > 0 && ".,;:!?".includes(points.at(-1)!)) {
    alternatives.add(pythonRstrip(points.slice(0, -1).join("")));
    rules.push("strip_trailing_punct");
  }
  if (gt.includes(".")) {
    const noDots = ABBREVIATION_DOT.sub("", gt);
    if (noDots && pythonLen(noDots) > 1 && noDots !== gt) {
      alternatives.add(noDots);
      rules.push("strip_abbrev_dots");
    }
  }
  if (gt.includes("-") && !gt.startsWith("-")) {
    const noHyphen = pythonStrip(WHITESPACE_RUN.sub(" ", gt.replaceAll("-", " ")));
    if (noHyphen !== gt) {
      alternatives.add(noHyphen);
      rules.push("hyphen_to_space");
    }
  }
  if (gt.includes(" & ")) {
    alternatives.add(gt.replaceAll(" & ", " and "));
    rules.push("ampersand_to_and");
  }
  if (gtLower.includes(" and ")) {
    // The index is found in the lower-cased text and applied to the original one, as NeMo Gym does.
    const index = pythonLen(gtLower.slice(0, gtLower.indexOf(" and ")));
    alternatives.add(points.slice(0, index).join("") + " & " + points.slice(index + 5).join(""));
    rules.push("and_to_ampersand");
  }
  const extra = new Set<string>();
  for (const alternative of alternatives) {
    for (const prefix of ARTICLE_PREFIXES) if (pythonLower(alternative).startsWith(prefix)) extra.add(dropFirst(alternative, prefix.length));
  }
  for (const alternative of extra) alternatives.add(alternative);

  const normalized = new Set<string>();
  const gtStripped = pythonStrip(gt);
  for (const alternative of alternatives) {
    const a = WHITESPACE_RUN.sub(" ", pythonStrip(alternative));
    if (a && (pythonLen(a) >= MIN_ALT_LENGTH || a === gtStripped || isDigit(a))) normalized.add(a);
  }
  return [[...normalized].sort(compareStrings), rules];
}

/** `p[0].isupper()`. */
const startsUpper = (word: string) => isUpper(codePoints(word)[0]!);

/** A 3-6 word, mostly capitalised, mostly non-stopword name: unreliable for substring matching. */
function isMultiWordName(gt: string): boolean {
  const parts = splitWhitespace(pythonRstrip(pythonStrip(gt), "."));
  if (parts.length === 3 || parts.length === 4) return parts.every(startsUpper) && parts.every((p) => !STOPWORDS.has(pythonLower(p)));
  if (parts.length === 5 || parts.length === 6) return parts.filter((p) => startsUpper(p) && !STOPWORDS.has(pythonLower(p))).length >= 3;
  return false;
}

export interface GroundTruth {
  alternatives: string[];
  should_remove: boolean;
  remove_reason: "" | "gt_too_long" | "multi_word_name";
  edited: boolean;
  edit_reasons: string[];
}

export function normalizeGt(gt: string): GroundTruth {
  const [alternatives, rules] = gtAlternatives(gt);
  const reason = pythonLen(gt) > MAX_GT_LENGTH ? "gt_too_long" : isMultiWordName(gt) ? "multi_word_name" : "";
  const editReasons = reason ? [...rules, reason] : [...rules];
  return { alternatives, should_remove: reason !== "", remove_reason: reason, edited: editReasons.length > 0, edit_reasons: editReasons };
}

// ---- substring matching ----

const NORMALIZED_SPACES = ["\u202f", "\u00a0", "\u2009", "\u200a", "\u2002", "\u2003"];
const DASHES = ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015"];

/** Unicode spaces, dashes and curly quotes as ASCII, double spaces collapsed, stripped. */
export function normalizeUnicode(text: string): string {
  for (const space of NORMALIZED_SPACES) text = text.replaceAll(space, " ");
  for (const dash of DASHES) text = text.replaceAll(dash, "-");
  text = text.replaceAll("\u2019", "'").replaceAll("\u2018", "'").replaceAll("\u201c", '"').replaceAll("\u201d", '"');
  while (text.includes("  ")) text = text.replaceAll("  ", " ");
  return pythonStrip(text);
}

/** Lenient: some alternative is a substring of the answer (both lower-cased and normalised). */
export function isCorrect(alternatives: readonly string[], modelAnswer: string): boolean {
  const answer = normalizeUnicode(pythonLower(modelAnswer));
  return alternatives.some((alternative) => answer.includes(normalizeUnicode(pythonLower(alternative))));
}

// re.escape: Python escapes exactly these ASCII characters.
const RE_SPECIAL = new Set("()[]{}?*+-|^$\\.&~# \t\n\r\v\f");
const reEscape = (text: string) => codePoints(text).map((ch) => (RE_SPECIAL.has(ch) ? `\\${ch}` : ch)).join("");

/** Strict: a short alternative (≤ 4 code points) must stand as a word; in a long answer (> 80) it must start by 40. */
export function isCorrectStrict(alternatives: readonly string[], modelAnswer: string): boolean {
  const answer = normalizeUnicode(pythonLower(modelAnswer));
  const answerLength = pythonLen(answer);
  for (const alternative of alternatives) {
    const needle = normalizeUnicode(pythonLower(alternative));
    if (!needle || !answer.includes(needle)) continue;
    if (pythonLen(needle) <= 4 && !compilePythonRegex(String.raw`(?<!\w)` + reEscape(needle) + String.raw`(?!\w)`).search(answer)) continue;
    if (answerLength > 80 && pythonLen(answer.slice(0, answer.indexOf(needle))) > 40) continue;
    return true;
  }
  return false;
}
