// NeMo Gym's string_match answer extraction and NeMo RL's string-match grader (no format reward), with Python's
// semantics: `str.strip` / `splitlines` / `lower`, Python's `re`, `float()` and `str(float)`, NFKC, and `max`
// (which keeps its first argument when the second is NaN).
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { floatRepr } from "../../src/python/float.ts";
import { pythonFloat } from "../../src/python/numbers.ts";
import { ValueError } from "../../src/python/exception.ts";
import { pythonLower, pythonRstrip, pythonStrip, splitLines, splitWhitespace } from "../../src/python/str.ts";

export const EXTRACTION_MODES = ["boxed", "final_answer", "last_line", "full_response"] as const;
export type ExtractionMode = (typeof EXTRACTION_MODES)[number];

// ---- extraction ----

const BOXED_START = compilePythonRegex(String.raw`\\boxed\{`);
const LATEX_TEXT_WRAP = compilePythonRegex(String.raw`\\text\{\s*(.*?)\s*\}`, { dotAll: true });
const FINAL_ANSWER = compilePythonRegex(String.raw`(?i)(?:final\s+answer|answer)\s*[:：]\s*(.+)`);
const TRAILING_FULL_STOP = compilePythonRegex(String.raw`\.\s*$`);

/** A value that is wholly `\text{…}` loses the wrapper, repeatedly. */
function stripLatexWrappers(value: string): string {
  for (;;) {
    const match = LATEX_TEXT_WRAP.fullmatch(value);
    if (!match) return value;
    value = match.groups[1]!;
  }
}

/** The content of the last `\boxed{…}` whose braces close (an unclosed later one gives way to an earlier one). */
export function extractBoxed(text: string): string | null {
  const starts = [...BOXED_START.finditer(text)];
  for (const start of starts.reverse()) {
    let depth = 1;
    for (let index = start.end; index < text.length; index++) {
      const char = text[index];
      if (char === "{") depth++;
      else if (char === "}") depth--;
      if (depth === 0) return pythonStrip(stripLatexWrappers(pythonStrip(text.slice(start.end, index))));
    }
  }
  return null;
}

/** The value after the last `Final answer:` / `Answer:` (to the end of its line), a final full stop dropped. */
export function extractFinalAnswer(text: string): string | null {
  const matches = FINAL_ANSWER.findall<string>(text);
  if (matches.length === 0) return null;
  const raw = pythonStrip(pythonStrip(TRAILING_FULL_STOP.split(pythonStrip(matches.at(-1)!))[0]!));
  return pythonRstrip(raw, ".");
}

export function extractLastLine(text: string): string | null {
  for (const line of splitLines(text).reverse()) {
    const stripped = pythonStrip(line);
    if (stripped) return stripped;
  }
  return null;
}

export function extractAnswer(text: string, mode: ExtractionMode): string | null {
  switch (mode) {
    case "boxed":
      return extractBoxed(text);
    case "final_answer":
      return extractFinalAnswer(text) ?? extractBoxed(text);
    case "last_line":
      return extractLastLine(text);
    case "full_response":
      return pythonStrip(text) || null;
  }
}

// ---- the grader ----

/** Python's `max(a, b)`: `b` only if it compares greater (so a NaN second argument loses). */
const pythonMax = (a: number, b: number) => (b > a ? b : a);

/** Python's `float(text)`, or null where it raises ValueError. */
function floatOrNull(text: string): number | null {
  try {
    return pythonFloat(text);
  } catch (error) {
    if (error instanceof ValueError) return null;
    throw error;
  }
}

function stripOuterQuotes(text: string): string {
  const points = Array.from(text);
  if (points.length >= 2 && points[0] === points.at(-1) && (points[0] === '"' || points[0] === "'")) return points.slice(1, -1).join("");
  return text;
}

const stripTrailingPunctuation = (text: string) => pythonRstrip(text, ".!?") || text;

function normalizeFloat(text: string): string {
  const cleaned = pythonStrip(text.replaceAll("\\%", "").replaceAll("\\$", "").replaceAll("$", ""));
  const value = floatOrNull(cleaned);
  return value === null ? text : floatRepr(value);
}

const THOUSANDS = compilePythonRegex(String.raw`(\d+),(\d+)`);
const normalizeNumbers = (text: string) => THOUSANDS.sub(String.raw`\1\2`, text).replaceAll("\\%", "%");

/** Separators and "and"/"or" (anywhere, as substrings) become spaces, unless that shortens the text by 10% or more. */
function normalizeLists(text: string): string {
  const originalLength = Array.from(text).length;
  const replaced = text.replaceAll(",", " ").replaceAll(";", " ").replaceAll("and", " ").replaceAll("or", " ");
  if (Array.from(replaced).length < 0.9 * originalLength) return text;
  return splitWhitespace(replaced).join(" ");
}

const LATEX_COMMANDS = ["\\boxed", "\\text", "\\textbf", "\\textit", "\\texttt", "\\mathrm", "\\mathbf", "\\mathit", "\\mathsf", "\\mathbb", "\\mathcal", "\\emph", "\\url"];

/** Every `cmd{…}` becomes its content; an unclosed `cmd{` just loses `cmd{`. */
function removeLatexCommand(command: string, text: string): string {
  const opening = `${command}{`;
  while (text.includes(opening)) {
    const at = text.indexOf(opening);
    const prefix = text.slice(0, at);
    const suffix = text.slice(at + opening.length);
    let depth = 1;
    for (let i = 0; i < suffix.length; i++) {
      if (suffix[i] === "{") depth++;
      else if (suffix[i] === "}") depth--;
      if (depth === 0) {
        text = prefix + suffix.slice(0, i) + suffix.slice(i + 1);
        break;
      }
    }
    if (depth !== 0) text = prefix + suffix;
  }
  return text;
}

function normalizeLatex(text: string): string {
  for (const command of LATEX_COMMANDS) text = removeLatexCommand(command, text);
  for (const token of ["\\(", "\\)", "\\[", "\\]"]) text = text.replaceAll(token, "");
  return splitWhitespace(text.replaceAll("$", "")).join(" ");
}

// In NeMo RL's order: two-word names before the one-word names they contain ("west virginia" before "virginia").
const STATES: readonly [string, string][] = [
  ["district of columbia", "DC"], ["new hampshire", "NH"], ["new jersey", "NJ"], ["new mexico", "NM"], ["new york", "NY"],
  ["north carolina", "NC"], ["north dakota", "ND"], ["rhode island", "RI"], ["south carolina", "SC"], ["south dakota", "SD"],
  ["west virginia", "WV"], ["alabama", "AL"], ["alaska", "AK"], ["arizona", "AZ"], ["arkansas", "AR"], ["california", "CA"],
  ["colorado", "CO"], ["connecticut", "CT"], ["delaware", "DE"], ["florida", "FL"], ["georgia", "GA"], ["hawaii", "HI"],
  ["idaho", "ID"], ["illinois", "IL"], ["indiana", "IN"], ["iowa", "IA"], ["kansas", "KS"], ["kentucky", "KY"],
  ["louisiana", "LA"], ["maine", "ME"], ["maryland", "MD"], ["massachusetts", "MA"], ["michigan", "MI"], ["minnesota", "MN"],
  ["mississippi", "MS"], ["missouri", "MO"], ["montana", "MT"], ["nebraska", "NE"], ["nevada", "NV"], ["ohio", "OH"],
  ["oklahoma", "OK"], ["oregon", "OR"], ["pennsylvania", "PA"], ["tennessee", "TN"], ["texas", "TX"], ["utah", "UT"],
  ["vermont", "VT"], ["virginia", "VA"], ["washington", "WA"], ["wisconsin", "WI"], ["wyoming", "WY"],
];

function normalizeStates(text: string): string {
  for (const [name, abbreviation] of STATES) text = text.replaceAll(name, abbreviation);
  return pythonLower(normalizeLists(text));
}

const UNICODE_MATH: readonly [string, string][] = [
  ["°", "^\\circ"], ["²", "^2"], ["³", "^3"], ["⁴", "^4"], ["⁵", "^5"], ["⁶", "^6"], ["⁷", "^7"], ["⁸", "^8"], ["⁹", "^9"],
  ["√", "\\sqrt"], ["﹣", "-"], ["﹢", "+"], ["﹦", "="], ["﹤", "<"], ["﹥", ">"], ["：", ":"], ["π", "\\pi"],
];

function normalizeUnicodeMath(text: string): string {
  for (const [from, to] of UNICODE_MATH) text = text.replaceAll(from, to);
  return text;
}

// Units (and degree marks) removed anywhere: `m` is one of them, so every "m" of a word goes too, as in NeMo RL.
const MATH_UNITS = compilePythonRegex(String.raw`\^\{?\\circ\}?|\\circ|°|cm[²³]?|mm|km|m[²³]?|kg`);

function stripNumeric(text: string): string {
  for (const char of "$£€%,") text = text.replaceAll(char, "");
  text = MATH_UNITS.sub("", normalizeUnicodeMath(text));
  return pythonStrip(text.replaceAll("\\%", "").replaceAll("\\$", ""));
}

/** (1 − relative error)², floored at 0; 0 when either side is no number. */
export function softNumericGrade(expected: string, predicted: string): number {
  const [predictedValue, expectedValue] = [floatOrNull(stripNumeric(predicted)), floatOrNull(stripNumeric(expected))];
  if (predictedValue === null || expectedValue === null) return 0;
  const relativeError = Math.abs(predictedValue - expectedValue) / pythonMax(Math.abs(expectedValue), 1e-9);
  return pythonMax(0, 1 - relativeError) ** 2;
}

/** NeMo RL's string-match grade of a prediction against the expected answer: 1.0, 0.98 (numerically close) or 0.0. */
export function gradeStringMatch(expected: string, predicted: string): number {
  const prepare = (text: string) => stripTrailingPunctuation(pythonLower(stripOuterQuotes(text.normalize("NFKC"))));
  const [gt, pred] = [prepare(expected), prepare(predicted)];
  if (pred === gt) return 1;
  for (const normalization of [normalizeFloat, normalizeNumbers, normalizeLatex, normalizeLists, normalizeStates]) {
    if (normalization(pred) === normalization(gt)) return 1;
  }
  if (softNumericGrade(gt, pred) > 0.98) return 0.98;
  const stripped = (text: string) => pythonStrip(MATH_UNITS.sub("", normalizeUnicodeMath(normalizeLatex(text))));
  const [predStripped, gtStripped] = [stripped(pred), stripped(gt)];
  if (predStripped === gtStripped) return 1;
  if (softNumericGrade(gtStripped, predStripped) > 0.98) return 0.98;
  return 0;
}

/** Case-sensitive: equal after strip(); otherwise the grader. */
export function answersMatch(extracted: string, expected: string, caseSensitive: boolean): number {
  if (caseSensitive) return pythonStrip(extracted) === pythonStrip(expected) ? 1 : 0;
  return gradeStringMatch(expected, extracted);
}
