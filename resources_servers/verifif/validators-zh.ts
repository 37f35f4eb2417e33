// VerifIF's Chinese rule-based validators (NeMo Gym's vif_validators/zh/validator.py): the sixteen instruction ids
// that module grades itself, with Python's string and regex semantics (src/python/re) and its messages word for
// word. The ids it hands to the generic, strategy-based validator (validate_instruction_generic: json_format and the
// rest) are not ported: `zhDelegatesToGeneric` names them, and verify answers 501 for a row that has one. An
// exception inside is reported as NeMo Gym's app reports it: "Validator error: <str(e)>".
import { PyException, ValueError } from "../../src/python/exception.ts";
import { pythonLen, pythonRstrip, pythonStrip, splitLines } from "../../src/python/str.ts";
import { PyTypeError, arg, cachedPythonRegex as re, fstr, pyCompare, pyTypeName, pythonCount, pythonReEscape } from "./python-text.ts";
import { EXPECTED_ARGUMENTS } from "./instructions.ts";
import type { ValidatorOutcome } from "./validators-en.ts";

type Kwargs = Record<string, unknown>;

/** The ids zh/validator.py grades itself; every other known id goes to the generic validator. */
const OWN = new Set([
  "detectable_content:number_placeholders",
  "detectable_format:multiple_sections",
  "detectable_format:number_bullet_lists",
  "detectable_format:title",
  "keywords:existence",
  "keywords:frequency",
  "keywords:forbidden_words",
  "keywords:letter_frequency",
  "punctuation:no_comma",
  "punctuation:no_period",
  "punctuation:question_exclaim",
  "punctuation:end_rule",
  "startend:wrap_checker",
  "startend:end_checker",
  "length_constraints:sentence_length",
  "startend:quotation",
]);

/** True when zh/validator.py passes this (known) id on to validate_instruction_generic, which is not ported. */
export const zhDelegatesToGeneric = (instType: string): boolean => Object.hasOwn(EXPECTED_ARGUMENTS, instType) && !OWN.has(instType);


/** `value.strip()` on a kwarg: a non-string has no strip. */
function strip(value: unknown): string {
  if (typeof value !== "string") throw new PyException("AttributeError", `'${pyTypeName(value)}' object has no attribute 'strip'`);
  return pythonStrip(value);
}

/** `for x in value`: a list's items, a string's characters; anything else is not iterable. */
function iterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  throw new PyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/**
 * NFKC then Python's str.casefold: lower-casing plus the full case foldings that differ from it (ß and ẞ to "ss",
 * final sigma to sigma; NFKC has already decomposed the ligatures).
 */
const casefold = (text: string): string => text.normalize("NFKC").toLowerCase().replace(/[ßẞ]/g, "ss").replace(/ς/g, "σ");

/** zh's _relation_ok: "==", ">=", "<" or their words; another relation raises ValueError. */
function relationOk(count: number, relation: unknown, target: unknown): boolean {
  if (relation === "equal to" || relation === "==") return (typeof target === "number" || typeof target === "boolean") && count === Number(target);
  if (relation === "at least" || relation === ">=") return pyCompare(count, ">=", target);
  if (relation === "less than" || relation === "<") return pyCompare(count, "<", target);
  throw new ValueError("Invalid relation. Use 'equal to', 'at least', or 'less than'.");
}

/** zh's check_relation (multiple_sections): the value type checked first, an unknown relation a message. */
function checkRelation(count: number, relation: unknown, expected: unknown): [boolean, string | null] {
  if (typeof expected !== "number" && typeof expected !== "boolean") return [false, `Invalid expected value type: expected numeric, got ${pyTypeName(expected)}.`];
  const value = Number(expected);
  if (relation === "at least") return [count >= value, null];
  if (relation === "equal to") return [count === value, null];
  if (relation === "less than") return [count < value, null];
  return [false, `Invalid relation: '${fstr(relation)}'. Must be 'at least', 'equal to', or 'less than'.`];
}

/** `(keyword or "").strip()`, casefolded, counted (non-overlapping) in the casefolded text; an empty keyword is 0. */
function keywordCount(text: string, keyword: unknown): number {
  const falsy = keyword === null || keyword === undefined || keyword === "" || keyword === 0 || keyword === false;
  const kw = strip(falsy ? "" : keyword);
  if (!kw) return 0;
  return pythonCount(casefold(text), casefold(kw));
}

const COMMAS = [",", "，", "、"];
const PERIODS = [".", "。", "．"];
const WRAP_PAIRS: [string, string][] = [["《", "》"], ["〈", "〉"], ["「", "」"], ["『", "』"], ["【", "】"], ["[", "]"], ["(", ")"], ["（", "）"], ["{", "}"], ["<", ">"]];
const QUOTE_PAIRS: [string, string][] = [['"', '"'], ["“", "”"], ["「", "」"], ["『", "』"], ["《", "》"], ["〈", "〉"]];

/** `needle in haystack` for a kwarg: a substring of a string, a member of a list. */
function contains(haystack: unknown, needle: string): boolean {
  if (typeof haystack === "string") return haystack.includes(needle);
  if (Array.isArray(haystack)) return haystack.includes(needle);
  throw new PyTypeError(`argument of type '${pyTypeName(haystack)}' is not iterable`);
}

function validate(text: string, instType: string, kwargs: Kwargs): [boolean, string] {
  const response = pythonStrip(text);
  switch (instType) {
    case "detectable_content:number_placeholders": {
      const count = re(String.raw`\{[^{}]+\}`).findall(response).length + re(String.raw`\[[^\[\]]+\]`).findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_placeholders")];
      const valid = relationOk(count, rel, val);
      return [valid, valid ? "No error" : `Expected ${fstr(rel)} ${fstr(val)} placeholders, found ${count}.`];
    }
    case "detectable_format:multiple_sections": {
      const given = kwargs.section_splitter;
      const splitter = strip(given === null || given === undefined || given === "" || given === 0 || given === false ? "" : given);
      const [rel, val] = [kwargs.relation ?? null, kwargs.num_sections ?? null];
      if (!splitter) return [false, "section_splitter cannot be empty."];
      let count = re(String.raw`^\s*(?:#+\s*)?${pythonReEscape(splitter)}\s+\d+\b`, { multiline: true }).findall(response).length;
      if (count === 0 && splitter === "---") count = re(String.raw`^\s*---+\s*$`, { multiline: true }).findall(response).length;
      if (count === 0 && splitter.startsWith("<<") && splitter.endsWith(">>")) count = re(String.raw`^\s*<<[^>]+>>\s*$`, { multiline: true }).findall(response).length;
      if (count === 0) {
        const parts = (re(String.raw`\n\s*\n`).split(response) as string[]).filter((part) => pythonStrip(part) !== "");
        if (parts.length > 1 && parts.some((part) => part.includes(splitter))) count = parts.length;
      }
      const [valid, error] = checkRelation(count, rel, val);
      if (error !== null) return [false, error];
      return [valid, valid ? "No error" : `Expected ${fstr(rel)} ${fstr(val)} sections, found ${count}.`];
    }
    case "detectable_format:number_bullet_lists": {
      const count = re(String.raw`^[ \t]*[*\-+]\s+`, { multiline: true }).findall(response).length + re(String.raw`^[ \t]*\d+[.)]\s+`, { multiline: true }).findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_bullets")];
      const valid = relationOk(count, rel, val);
      return [valid, valid ? "No error" : `Expected ${fstr(rel)} ${fstr(val)} bullet points, found ${count}.`];
    }
    case "detectable_format:title": {
      const lines = splitLines(response);
      const firstLine = lines.length > 0 ? pythonStrip(lines[0]!) : "";
      const isMarker = firstLine.startsWith("<<") && firstLine.endsWith(">>");
      const isHeading = firstLine.startsWith("#");
      const isStandalone = firstLine !== "" && lines.length <= 2;
      if (isMarker || isHeading || isStandalone) return [true, "No error"];
      return [false, "Title not detected on first line (accepts << >>, Markdown heading, or first-line title)."];
    }
    case "keywords:existence": {
      const missing = iterate(arg(kwargs, "keywords")).filter((kw) => keywordCount(response, kw) === 0);
      return [missing.length === 0, missing.length === 0 ? "No error" : `Missing keyword(s): ${fstr(missing)}`];
    }
    case "keywords:frequency": {
      const count = keywordCount(response, arg(kwargs, "keyword"));
      const [relation, target] = [arg(kwargs, "relation"), arg(kwargs, "frequency")];
      const valid = relationOk(count, relation, target);
      return [valid, valid ? "No error" : `Expected ${fstr(relation)} ${fstr(target)} of '${fstr(kwargs.keyword)}', found ${count}.`];
    }
    case "keywords:forbidden_words": {
      const present = iterate(arg(kwargs, "forbidden_words")).filter((kw) => keywordCount(response, kw) > 0);
      return [present.length === 0, present.length === 0 ? "No error" : `Forbidden words found: ${fstr(present)}`];
    }
    case "keywords:letter_frequency": {
      const letter = arg(kwargs, "letter");
      const count = keywordCount(response, letter);
      const [relation, target] = [arg(kwargs, "let_relation"), arg(kwargs, "let_frequency")];
      const valid = relationOk(count, relation, target);
      return [valid, valid ? "No error" : `Expected ${fstr(relation)} ${fstr(target)} '${fstr(letter)}', found ${count}.`];
    }
    case "punctuation:no_comma": {
      const found = COMMAS.some((p) => response.includes(p));
      return [!found, found ? "Commas found in response." : "No error"];
    }
    case "punctuation:no_period": {
      const found = PERIODS.some((p) => response.includes(p));
      return [!found, found ? "Periods found in response." : "No error"];
    }
    case "punctuation:question_exclaim": {
      const count = re("[?？!！]").findall(response).length;
      const [relation, target] = [arg(kwargs, "relation"), arg(kwargs, "num_marks")];
      const valid = relationOk(count, relation, target);
      return [valid, valid ? "No error" : `Found ${count} marks. Expected ${fstr(relation)} ${fstr(target)}.`];
    }
    case "punctuation:end_rule": {
      const allowed = arg(kwargs, "allowed");
      const stripped = pythonRstrip(response);
      if (!stripped) return [false, "Empty response."];
      const match = re("[。．.!?！？?!；;：:，,]$").search(stripped);
      if (!match) return [false, "Required ending punctuation not found."];
      const last = match.groups[0]!;
      if (!contains(allowed, last)) return [false, `Ending punctuation '${last}' not allowed. Allowed: ${fstr(allowed)}`];
      return [true, "No error."];
    }
    case "startend:wrap_checker": {
      const wrap = arg(kwargs, "wrap_phrase");
      if (typeof wrap !== "string") throw new PyTypeError(`object of type '${pyTypeName(wrap)}' has no len()`);
      const chars = Array.from(wrap);
      if (pythonLen(wrap) === 1) {
        const wrapped = response.startsWith(wrap) && response.endsWith(wrap);
        return [wrapped, wrapped ? "No error" : `Not wrapped with: ${wrap}`];
      }
      if (chars.length === 2 && response.startsWith(chars[0]!) && response.endsWith(chars[1]!)) return [true, "No error"];
      for (const [left, right] of WRAP_PAIRS) if (response.startsWith(left) && response.endsWith(right)) return [true, "No error"];
      return [false, `Not wrapped with: ${wrap}`];
    }
    case "startend:end_checker": {
      const required = strip(arg(kwargs, "end_phrase"));
      if (!required) return [false, "End phrase is empty."];
      const normalized = pythonRstrip(response);
      if (normalized.endsWith(required)) return [true, "No error"];
      if (re(String.raw`[。．.?!！？…\s]+$`).sub("", normalized).endsWith(required)) return [true, "No error"];
      return [false, `End phrase mismatch: expected to end with '${required}'.`];
    }
    case "length_constraints:sentence_length": {
      const maxWords = arg(kwargs, "max_words");
      for (const sentence of re("[。．.!?！？]+").split(response) as string[]) {
        const s = pythonStrip(sentence);
        if (!s) continue;
        const charCount = pythonLen(re(String.raw`\s+`).sub("", s));
        if (pyCompare(charCount, ">", maxWords)) return [false, `Sentence length ${charCount} exceeds max ${fstr(maxWords)}.`];
      }
      return [true, "No error."];
    }
    case "startend:quotation": {
      for (const [start, end] of QUOTE_PAIRS) if (response.startsWith(start) && response.endsWith(end)) return [true, "No error"];
      return [false, "Response not wrapped in accepted quotation marks."];
    }
  }
  throw new Error(`verifif zh: ${instType} is graded by the generic validator (check zhDelegatesToGeneric first)`);
}

/** zh/validator.py's validate_instruction; an exception is the app's "Validator error: <str(e)>". */
export function validateChinese(response: string, instType: string, kwargs: Kwargs): ValidatorOutcome {
  if (!Object.hasOwn(EXPECTED_ARGUMENTS, instType)) return [false, `Instruction '${instType}' is not supported for language 'zh'.`];
  try {
    return validate(response, instType, kwargs);
  } catch (error) {
    if (error instanceof PyException) return [false, `Validator error: ${error.message}`];
    throw error;
  }
}
