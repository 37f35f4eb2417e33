// Multiple-choice answer extraction as NeMo Gym's mcqa and gpqa_diamond servers do it: which option letters a
// row allows, the per-row `template_metadata.output_regex`, mcqa's four grading modes and gpqa's
// `extract_letter`. Every regex is NeMo Gym's own Python pattern, run with Python's semantics (src/python/re/),
// so `\b`, `\s`, `$` and IGNORECASE behave as they do there; string helpers follow Python's `str` methods.
import { isAlpha, isUpper, pythonLen, pythonStrip, splitWhitespace } from "../python/str.ts";
import { jsonIterate } from "../python/json-value.ts";
import { AttributeError, PyRegexError } from "../python/exception.ts";
import { compilePythonRegex, compilePythonRegexValue, type PythonRegexFlags } from "../python/re/index.ts";

/** A dataset option: `{"A": "option text"}` (a null text means the option is absent). */
export type ChoiceOption = Record<string, string | null>;

export type GradingMode = "strict_single_letter_boxed" | "lenient_boxed" | "lenient_answer_colon" | "lenient_answer_colon_md";

// ---- Python str methods ----

/** Lowercase and collapse whitespace (`" ".join(s.lower().split())`), for comparing option texts. */
export const normalizeForMatch = (text: string): string => splitWhitespace(text.toLowerCase()).join(" ");

const findall = (pattern: string, text: string, flags?: PythonRegexFlags) => compilePythonRegex(pattern, flags).findall(text);

// ---- options ----

/** The upper-cased keys of options that are one letter and have a (non-null) text. */
export function allowedLetters(options: ChoiceOption[] | null | undefined): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (pythonLen(key) === 1 && isAlpha(key) && value !== null) letters.add(key.toUpperCase());
    }
  }
  return letters;
}

/** Arabic (أ ب ج د), Bengali (অ ব ড ঢ) and full-width (Ａ–Ｄ) option letters read as " A".." D", then stripped. */
export function normalizeExtractedAnswer(text: string): string {
  const replacements: [string, string][] = [
    ["أ", " A"], ["ب", " B"], ["ج", " C"], ["د", " D"],
    ["অ", " A"], ["ব", " B"], ["ড", " C"], ["ঢ", " D"],
    ["Ａ", " A"], ["Ｂ", " B"], ["Ｃ", " C"], ["Ｄ", " D"],
  ];
  let normalized = text;
  for (const [from, to] of replacements) normalized = normalized.replaceAll(from, to);
  return pythonStrip(normalized);
}

// ---- template_metadata.output_regex ----

/**
 * The letter one template regex gives: the LAST `re.findall` match (IGNORECASE), normalised and upper-cased. A
 * single letter is trusted even when it is not an option; otherwise it must equal an option's text. An invalid
 * pattern (Python's re.error) gives none; a pattern with two or more groups fails as it does in Python (a tuple
 * has no strip()), and a non-string pattern too.
 */
export function letterFromTemplateRegex(text: string, pattern: unknown, allowed: Set<string>, options: ChoiceOption[] | null | undefined): string | undefined {
  let matches;
  try {
    matches = compilePythonRegexValue(pattern, { ignoreCase: true }).findall(text);
  } catch (error) {
    if (error instanceof PyRegexError) return undefined;
    throw error;
  }
  if (matches.length === 0) return undefined;
  const last = matches[matches.length - 1]!;
  if (typeof last !== "string") throw new AttributeError("'tuple' object has no attribute 'strip'");
  const captured = normalizeExtractedAnswer(pythonStrip(last)).toUpperCase();
  if (pythonLen(captured) === 1 && isAlpha(captured)) return captured;
  const normalizedCaptured = normalizeForMatch(captured);
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && allowed.has(key.toUpperCase()) && normalizeForMatch(value) === normalizedCaptured) return key.toUpperCase();
    }
  }
  return undefined;
}

/** mcqa's `output_regex`: one pattern, or a list tried in order until one gives a letter. */
export function letterFromTemplateRegexes(text: string, patterns: unknown, allowed: Set<string>, options: ChoiceOption[] | null | undefined): string | undefined {
  if (typeof patterns === "string") return letterFromTemplateRegex(text, patterns, allowed, options);
  for (const pattern of jsonIterate(patterns)) {
    const letter = letterFromTemplateRegex(text, pattern, allowed, options);
    if (letter !== undefined) return letter;
  }
  return undefined;
}

// ---- \boxed{…} ----

/** Everything inside the LAST `\boxed{`, braces counted so `\boxed{\text{E}}` is whole; undefined if absent or unclosed. */
export function extractBoxedInner(text: string): string | undefined {
  const marker = "\\boxed{";
  const start = text.lastIndexOf(marker);
  if (start === -1) return undefined;
  let depth = 1;
  for (let i = start + marker.length; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start + marker.length, i);
  }
  return undefined;
}

/** Removes successive whole-string `\text{…}` wrappers. */
export function stripLatexTextWrappers(text: string): string {
  const wrapper = compilePythonRegex(String.raw`\\text\{\s*(.*?)\s*\}`, { dotAll: true });
  let stripped = text;
  for (let m = wrapper.fullmatch(stripped); m; m = wrapper.fullmatch(stripped)) stripped = m.groups[1]!;
  return stripped;
}

// A box holding just a letter ("E", "[C]", "(B)"), or a letter then a delimiter and the option text ("E: …").
const BOXED_LETTER_ONLY = "^[^A-Za-z]*([A-Z])[^A-Za-z]*$";
const BOXED_LETTER_LABEL = String.raw`^\s*([A-Z])\s*[:).\-]`;

/** strict_single_letter_boxed: an upper-case allowed letter alone (or leading a label) in the last `\boxed{}`. */
export function strictBoxedLetter(text: string, allowed: Set<string>): string | undefined {
  const inner = extractBoxedInner(text);
  if (inner === undefined) return undefined;
  const content = stripLatexTextWrappers(pythonStrip(inner));
  const found = compilePythonRegex(BOXED_LETTER_ONLY).match(content) ?? compilePythonRegex(BOXED_LETTER_LABEL).match(content);
  const letter = found?.groups[1]?.toUpperCase();
  return letter !== undefined && allowed.has(letter) ? letter : undefined;
}

/** lenient_boxed's fallback: the one option whose text is contained in the last box (raw or `\text`-stripped). */
export function boxedOptionLetter(text: string, options: ChoiceOption[] | null | undefined, allowed: Set<string>): string | undefined {
  const inner = extractBoxedInner(text);
  if (inner === undefined) return undefined;
  const stripped = pythonStrip(inner);
  const candidates = [stripped, stripLatexTextWrappers(stripped)].map(normalizeForMatch);
  const optionTexts: [string, string][] = [];
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (value !== null && pythonLen(key) === 1 && allowed.has(key.toUpperCase())) optionTexts.push([key.toUpperCase(), normalizeForMatch(value)]);
    }
  }
  const matched = new Set<string>();
  for (const candidate of candidates) {
    for (const [letter, optionText] of optionTexts) if (optionText !== "" && candidate.includes(optionText)) matched.add(letter);
  }
  return matched.size === 1 ? [...matched][0] : undefined;
}

// ---- Answer: … ----

/** lenient_answer_colon: the first `answer: …` line; an allowed letter, or the letter of the option with exactly that text. */
export function answerColonLetter(text: string, options: ChoiceOption[] | null | undefined, allowed: Set<string>): string | undefined {
  const found = compilePythonRegex(String.raw`(?i)answer\s*:\s*(.+)`).search(text);
  if (!found) return undefined;
  const candidate = pythonStrip(stripLatexTextWrappers(found.groups[1]!));
  if (pythonLen(candidate) === 1 && isAlpha(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  const normalizedCandidate = normalizeForMatch(candidate);
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (!allowed.has(key.toUpperCase())) continue;
      // NeMo Gym lower()s the text of every option with an allowed key, so a null one fails there.
      if (value === null) throw new AttributeError("'NoneType' object has no attribute 'lower'");
      if (normalizeForMatch(value) === normalizedCandidate) return key.toUpperCase();
    }
  }
  return undefined;
}

const CHOICE_LETTER = "(?<![A-Za-z])([A-Za-z])(?![A-Za-z])";
const CHOICE_LIST_SEPARATOR = String.raw`(?:\s*[/|&,;]\s*|\s+(?:or|and)\s+|\s+)`;

/** Whether two different allowed letters stand next to each other as a list ("A or B", "A/B", "A, C"). */
export function containsAmbiguousChoiceList(text: string, allowed: Set<string>): boolean {
  const letters = [...compilePythonRegex(CHOICE_LETTER).finditer(text)]
    .map((m) => ({ letter: m.groups[1]!.toUpperCase(), span: m.spans[1]! }))
    .filter(({ letter }) => allowed.has(letter));
  const separator = compilePythonRegex(CHOICE_LIST_SEPARATOR, { ignoreCase: true });
  return letters.some((left, i) => {
    const right = letters[i + 1];
    return right !== undefined && left.letter !== right.letter && separator.fullmatch(text.slice(left.span[1], right.span[0])) !== undefined;
  });
}

/** One allowed letter from an `Answer:` payload: the whole payload, a leading letter, or the last standalone capital. */
export function choiceLetterFromPayload(payload: string, allowed: Set<string>): string | undefined {
  const candidate = pythonStrip(pythonStrip(normalizeExtractedAnswer(payload)), "*_` \t\n\r.,;:");
  if (containsAmbiguousChoiceList(candidate, allowed)) return undefined;
  let letter: string | undefined;
  if (pythonLen(candidate) === 1) letter = candidate;
  else {
    letter =
      compilePythonRegex("^([a-zA-Z])(?![a-zA-Z0-9])").match(candidate)?.groups[1] ??
      compilePythonRegex(String.raw`\b[A-Z]\b(?!.*\b[A-Z]\b)`, { dotAll: true }).search(candidate)?.groups[0];
  }
  if (!letter) return undefined;
  const upper = letter.toUpperCase();
  return allowed.has(upper) ? upper : undefined;
}

/** lenient_answer_colon_md: every (markdown-decorated) `Answer:` line, last first, until one gives an allowed letter. */
export function answerColonMarkdownLetter(text: string, allowed: Set<string>): string | undefined {
  const payloads = findall(String.raw`(?im)[*_]{0,2}Answer[*_]{0,2}\s*:[*_\s]{0,2}(.+)`, text) as string[];
  for (const payload of payloads.reverse()) {
    const letter = choiceLetterFromPayload(payload, allowed);
    if (letter !== undefined) return letter;
  }
  return undefined;
}

// ---- the two servers' extraction ----

export interface McqaExtraction {
  text: string;
  options: ChoiceOption[] | null | undefined;
  gradingMode: GradingMode;
  templateMetadata: Record<string, unknown> | null | undefined;
}

/** mcqa: the template regex(es) first, then the grading mode. */
export function extractMcqaAnswer({ text, options, gradingMode, templateMetadata }: McqaExtraction): string | undefined {
  const allowed = allowedLetters(options);
  let letter: string | undefined;
  if (templateMetadata && Object.keys(templateMetadata).length > 0 && "output_regex" in templateMetadata) {
    letter = letterFromTemplateRegexes(text, templateMetadata.output_regex, allowed, options);
  }
  if (letter !== undefined) return letter;
  switch (gradingMode) {
    case "strict_single_letter_boxed":
      return strictBoxedLetter(text, allowed);
    case "lenient_boxed":
      return strictBoxedLetter(text, allowed) ?? boxedOptionLetter(text, options, allowed);
    case "lenient_answer_colon":
      return answerColonLetter(text, options, allowed);
    case "lenient_answer_colon_md":
      return answerColonMarkdownLetter(text, allowed);
  }
}

/** gpqa_diamond's `extract_letter`: the last `\boxed{…}` (a lone capital, else its last standalone capital), else the last `Answer: X`. */
export function gpqaLetter(text: string): string | undefined {
  const boxed = findall(String.raw`\\boxed\{([^}]*)\}`, text, { dotAll: true }) as string[];
  if (boxed.length > 0) {
    const extracted = pythonStrip(boxed[boxed.length - 1]!);
    if (pythonLen(extracted) === 1 && isUpper(extracted)) return extracted;
    const letters = findall(String.raw`\b([A-Z])\b`, extracted, { dotAll: true }) as string[];
    if (letters.length > 0) return pythonStrip(letters[letters.length - 1]!);
  }
  const answers = findall(String.raw`(?i)[\*\_]{0,2}Answer[\*\_]{0,2}\s*:[\s\*\_]{0,2}\s*([A-Z])(?![a-zA-Z0-9])`, text) as string[];
  return answers.length > 0 ? pythonStrip(answers[answers.length - 1]!).toUpperCase() : undefined;
}

export interface GpqaExtraction {
  text: string;
  options: ChoiceOption[] | null | undefined;
  templateMetadata: Record<string, unknown> | null | undefined;
}

/** gpqa_diamond: the template regex (one pattern), else `extract_letter` restricted to the options' letters. */
export function extractGpqaAnswer({ text, options, templateMetadata }: GpqaExtraction): string | undefined {
  const allowed = allowedLetters(options);
  if (templateMetadata && Object.keys(templateMetadata).length > 0 && "output_regex" in templateMetadata) {
    const letter = letterFromTemplateRegex(text, templateMetadata.output_regex, allowed, options);
    if (letter !== undefined) return letter;
  }
  const letter = gpqaLetter(text)?.toUpperCase();
  if (letter === undefined) return undefined;
  return allowed.size > 0 && !allowed.has(letter) ? undefined : letter;
}

/** The verify fields mcqa and gpqa_diamond answer: the gold letter upper-cased, reward 1 iff the extracted letter is it. */
export function choiceVerdict(extracted: string | undefined, expectedAnswer: string | null | undefined) {
  const gold = pythonStrip(expectedAnswer ?? "").toUpperCase();
  return { reward: extracted !== undefined && gold !== "" && extracted === gold ? 1 : 0, expected_answer: gold, extracted_answer: extracted ?? null };
}
