// BunsenBench's answer reading, as NeMo Gym's BunsenChemResourcesServer does it: every answer-looking span of the
// response (XML tags, \boxed{}, "Answer:" lines and inline, "the answer is …") is a candidate, the latest-starting
// first; a candidate is an option letter or an option's exact text (chemistry Unicode normalised); the last then
// the first non-empty line are the fallback. And the error mode of a rollout: correct, wrong_answer, refusal,
// early_termination, malformed_choice or format_violation. Every regex is NeMo Gym's, run with Python's semantics.
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { compareStrings, isAlpha, pythonLen, pythonStrip, splitLines, splitWhitespace } from "../../src/python/str.ts";
import { htmlUnescape } from "../../src/python/html.ts";
import { allowedLetters, type ChoiceOption } from "../../src/ports/choice-answer.ts";

/** An option letter and its text (null texts already dropped). */
export type Option = Record<string, string>;

const ANSWER_LINE = compilePythonRegex(String.raw`(?im)^\s*(?:(?:[-*•]|\d+[.)])\s*)?(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)\s*$`);
const INLINE_ANSWER = compilePythonRegex(String.raw`(?is)(?:\*\*)?answer(?:\*\*)?\s*:\s*(.+?)(?=$|[\r\n])`);
const BOXED = compilePythonRegex(String.raw`\\boxed\{\s*(.*?)\s*\}`, { dotAll: true });
const BOXED_OPEN = compilePythonRegex(String.raw`\\boxed\s*\{`);
const ANSWER_PHRASE = compilePythonRegex(String.raw`(?is)(?:the\s+(?:correct\s+)?answer\s+is|my\s+answer\s+is|i\s+(?:choose|select))\s+(.+?)(?:\n|$)`);
const XML_ANSWER = compilePythonRegex(String.raw`<\s*(answer|choice|response|final_answer|final-answer)\b[^>]*>\s*(.*?)\s*<\s*/\s*\1\s*>`, { ignoreCase: true, dotAll: true });
const CHOICES_BLOCK = compilePythonRegex(String.raw`<\s*choices\b[^>]*>.*?<\s*/\s*choices\s*>`, { ignoreCase: true, dotAll: true });
const CHOICE_TAG = compilePythonRegex(String.raw`<\s*choice\b[^>]*>\s*(.*?)\s*<\s*/\s*choice\s*>`, { ignoreCase: true, dotAll: true });
const THINK_OPEN = compilePythonRegex(String.raw`<\s*think\b[^>]*>`, { ignoreCase: true });
const THINK_CLOSE = compilePythonRegex(String.raw`<\s*/\s*think\s*>`, { ignoreCase: true });
const REFUSAL = compilePythonRegex(
  "(?i)(?:" +
    String.raw`i\s*(?:'|’)?\s*m\s+sorry[, ]+(?:but\s+)?i\s+(?:can(?:'|’)?t|cannot|am\s+unable|won(?:'|’)?t)` +
    String.raw`|i\s+(?:can(?:'|’)?t|cannot)\s+(?:help|assist|comply|provide|answer|do\s+that|continue)` +
    String.raw`|i\s+am\s+(?:not\s+able|unable)\s+to\s+(?:help|assist|comply|provide|answer)` +
    String.raw`|i\s+won(?:'|’)?t\s+be\s+able\s+to\s+(?:help|assist|provide|answer)` +
    String.raw`|as\s+an\s+ai(?:\s+language)?\s+model[, ]+i` +
    String.raw`|i\s+(?:must|have\s+to|will\s+have\s+to)\s+(?:decline|refuse)` +
    String.raw`|i\s+do\s+not\s+feel\s+comfortable` +
    ")",
);
const OPTION_WORD_LETTER = compilePythonRegex(String.raw`(?i)(?:option|choice)\s+([A-Z])\s*[\)\].:]?`);
const LEADING_LETTER = compilePythonRegex(String.raw`(?i)^([A-Z])[\)\].:](?:\s|$)`);
const LONE_LETTER = compilePythonRegex("[^A-Za-z]*([A-Za-z])[^A-Za-z]*");
const TEXT_WRAPPER = compilePythonRegex(String.raw`\\(?:text|mathrm|operatorname)\{\s*(.*?)\s*\}`, { dotAll: true });

/** The rollout's bucket; exactly one per rollout, in this order of precedence. */
export const ERROR_MODES = ["correct", "wrong_answer", "refusal", "early_termination", "malformed_choice", "format_violation"] as const;
export type ErrorMode = (typeof ERROR_MODES)[number];

// Subscripts, superscripts, dashes, multiplication signs, dots, micro signs and fraction slashes, read as ASCII.
const CHEMISTRY_CHARACTERS: Record<string, string> = {
  "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9",
  "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
  "⁺": "+", "⁻": "-", "₊": "+", "₋": "-", "＋": "+", "−": "-", "–": "-", "—": "-", "‒": "-", "‑": "-",
  "×": "x", "✕": "x", "·": ".", "∙": ".", "⋅": ".", "•": ".", "µ": "u", "μ": "u", "⁄": "/", "∕": "/",
};

/** HTML entities decoded, NFKC, the chemistry characters as ASCII, format characters dropped, whitespace collapsed. */
export function normalizeChemistryText(value: string): string {
  const decoded = htmlUnescape(value).normalize("NFKC");
  let translated = "";
  for (const ch of decoded) translated += CHEMISTRY_CHARACTERS[ch] ?? ch;
  return splitWhitespace(translated.replace(/\p{Cf}/gu, "")).join(" ");
}

const WRAPPER_QUOTES = " \t\r\n`*_\"'";

/** A candidate without quotes, emphasis, a whole \boxed{}, \text{}-like wrappers, brackets and trailing punctuation. */
export function stripWrappers(candidate: string): string {
  let stripped = pythonStrip(candidate, WRAPPER_QUOTES);
  const boxed = BOXED.fullmatch(stripped);
  if (boxed) stripped = pythonStrip(boxed.groups[1]!);
  for (let wrapper = TEXT_WRAPPER.fullmatch(stripped); wrapper; wrapper = TEXT_WRAPPER.fullmatch(stripped)) stripped = pythonStrip(wrapper.groups[1]!);
  while (pythonLen(stripped) >= 2 && "([{\"'<".includes(stripped[0]!) && ")]}\"'>".includes(stripped.at(-1)!)) {
    stripped = pythonStrip(stripped.slice(1, -1), WRAPPER_QUOTES);
  }
  return pythonStrip(stripped, " \t\r\n`*_\"'.;,");
}

const isOneLetter = (text: string) => pythonLen(text) === 1 && isAlpha(text);

/** A letter answer: one letter, "option B", "B) …" / "B. …", or a letter amid non-letters ("(B)"); allowed ones only. */
function answerLetter(candidate: string, allowed: Set<string>): string | undefined {
  if (isOneLetter(candidate)) {
    const letter = candidate.toUpperCase();
    return allowed.has(letter) ? letter : undefined;
  }
  for (const found of [OPTION_WORD_LETTER.fullmatch(candidate), LEADING_LETTER.match(candidate), LONE_LETTER.fullmatch(candidate)]) {
    const letter = found?.groups[1]?.toUpperCase();
    if (letter !== undefined && allowed.has(letter)) return letter;
  }
  return undefined;
}

/** The allowed option whose normalised text equals the candidate's, the first in option order. */
function optionTextLetter(candidate: string, options: Option[], allowed: Set<string>): string | undefined {
  const normalized = normalizeChemistryText(candidate);
  for (const entry of options) {
    for (const [letter, text] of Object.entries(entry)) {
      if (allowed.has(letter.toUpperCase()) && normalizeChemistryText(text) === normalized) return letter.toUpperCase();
    }
  }
  return undefined;
}

/** One candidate read as a letter or an option text, first as written (stripped), then without its wrappers. */
export function parseCandidate(candidate: string, options: Option[], allowed: Set<string>): string | undefined {
  const stripped = pythonStrip(candidate);
  if (stripped === "") return undefined;
  const direct = answerLetter(stripped, allowed) ?? optionTextLetter(stripped, options, allowed);
  if (direct !== undefined) return direct;
  const unwrapped = stripWrappers(stripped);
  if (unwrapped === "") return undefined;
  return answerLetter(unwrapped, allowed) ?? optionTextLetter(unwrapped, options, allowed);
}

type Span = [number, number];
const within = (position: number, spans: Span[]) => spans.some(([start, end]) => start <= position && position < end);

/** Every `\boxed{…}` (whitespace allowed before the brace), braces balanced and backslash escapes skipped; an unclosed one ends the search. */
function boxedCandidates(text: string): [number, string][] {
  const found: [number, string][] = [];
  let searchFrom = 0;
  for (;;) {
    const open = BOXED_OPEN.search(text.slice(searchFrom));
    if (!open) return found;
    const braceAt = searchFrom + open.end - 1;
    let depth = 1;
    let pos = braceAt + 1;
    while (pos < text.length && depth > 0) {
      if (text[pos] === "\\") {
        pos += 2;
        continue;
      }
      if (text[pos] === "{") depth++;
      else if (text[pos] === "}") depth--;
      pos++;
    }
    if (depth !== 0) return found;
    found.push([searchFrom + open.start, text.slice(braceAt + 1, pos - 1)]);
    searchFrom = pos;
  }
}

/** The candidates with where each starts: XML answer tags (not a <choice> inside <choices>), boxes, Answer: lines and phrases. */
function answerCandidates(text: string): [number, string][] {
  const candidates: [number, string][] = [];
  const choicesSpans: Span[] = [...CHOICES_BLOCK.finditer(text)].map((m) => [m.start, m.end]);
  for (const m of XML_ANSWER.finditer(text)) {
    if (m.groups[1]!.toLowerCase() === "choice" && within(m.start, choicesSpans)) continue;
    candidates.push([m.start, m.groups[2]!]);
  }
  candidates.push(...boxedCandidates(text));
  for (const pattern of [ANSWER_LINE, INLINE_ANSWER, ANSWER_PHRASE]) {
    for (const m of pattern.finditer(text)) candidates.push([m.start, m.groups[1]!]);
  }
  return candidates;
}

/** The answer letter: the latest-starting candidate that parses, else the last then the first non-empty line. */
export function extractBunsenAnswer(text: string, options: Option[], allowed: Set<string>): string | undefined {
  // Python's sorted(reverse=True) of (start, text) tuples: later starts first, then the greater text.
  const candidates = answerCandidates(text).sort(([startA, textA], [startB, textB]) => startB - startA || compareStrings(textB, textA));
  for (const [, candidate] of candidates) {
    const letter = parseCandidate(candidate, options, allowed);
    if (letter !== undefined) return letter;
  }
  const lines = splitLines(text).map((line) => pythonStrip(line)).filter((line) => line !== "");
  if (lines.length === 0) return undefined;
  return parseCandidate(lines.at(-1)!, options, allowed) ?? parseCandidate(lines[0]!, options, allowed);
}

/** The gold letter: `expected_answer` unwrapped when that is one letter, else the option it names, else it upper-cased. */
export function expectedAnswerLetter(expectedAnswer: string, options: Option[]): string {
  const expected = stripWrappers(expectedAnswer).toUpperCase();
  if (isOneLetter(expected)) return expected;
  return parseCandidate(expectedAnswer, options, allowedLetters(options as ChoiceOption[])) || expected;
}

type Item = Record<string, unknown>;
const items = (response: Item): Item[] => (Array.isArray(response.output) ? (response.output as Item[]) : []);

/** A `refusal` content part anywhere in the output. */
function hasRefusalContent(response: Item): boolean {
  return items(response).some((item) => Array.isArray(item.content) && (item.content as Item[]).some((part) => part?.type === "refusal"));
}

/** The response, or one of its items, is incomplete, or it stopped at max_output_tokens. */
function isTruncated(response: Item): boolean {
  if (response.status === "incomplete") return true;
  const details = response.incomplete_details as Item | null | undefined;
  if (details?.reason === "max_output_tokens") return true;
  return items(response).some((item) => item.status === "incomplete");
}

const hasUnclosedThink = (text: string) => THINK_OPEN.findall(text).length > THINK_CLOSE.findall(text).length;

/** A <choice>…</choice> tag outside any <choices> block. */
function choiceTagPresent(text: string): boolean {
  const choicesSpans: Span[] = [...CHOICES_BLOCK.finditer(text)].map((m) => [m.start, m.end]);
  return [...CHOICE_TAG.finditer(text)].some((m) => !within(m.start, choicesSpans));
}

/** Why a rollout scored as it did, one bucket each (`text` is the unstripped output text). */
export function classifyErrorMode(response: Item, text: string, predicted: string | undefined, gold: string): ErrorMode {
  if (predicted !== undefined) return predicted === gold ? "correct" : "wrong_answer";
  if (hasRefusalContent(response)) return "refusal";
  if (isTruncated(response) || hasUnclosedThink(text)) return "early_termination";
  if (REFUSAL.search(text)) return "refusal";
  if (choiceTagPresent(text)) return "malformed_choice";
  return "format_violation";
}

/** A metric key segment: whitespace runs as `_`, `/` as `__`, other odd characters as `_`, edge underscores trimmed. */
export function metricSegment(value: string): string {
  let segment = pythonStrip(value);
  segment = compilePythonRegex(String.raw`\s+`).sub("_", segment);
  segment = segment.replaceAll("/", "__");
  segment = compilePythonRegex("[^A-Za-z0-9_.:+-]+").sub("_", segment);
  return pythonStrip(segment, "_") || "unknown";
}
