// VerifIF's English rule-based validators (NeMo Gym's vif_validators/en/validator.py), one branch per instruction
// id, with Python's string, regex (src/python/re) and Fraction semantics, and its messages word for word: the
// messages are part of the verify response (`validation_results`). A validator that raises inside is caught as
// "Validation error: <str(e)>", as there.
import { pythonJsonLoads } from "../../src/python/json.ts";
import { IndexError, PyException, ValueError, ZeroDivisionError } from "../../src/python/exception.ts";
import { floatRepr } from "../../src/python/float.ts";
import { pythonStringRepr } from "../../src/python/repr.ts";
import { fromJsonValue, pythonRepr } from "../../src/python/values.ts";
import { isAlpha, isLower, isUpper, pythonLen, pythonLstrip, pythonRstrip, pythonStrip, reversed, splitLines, splitWhitespace } from "../../src/python/str.ts";
import {
  Fraction, PyTypeError, arg, cachedPythonRegex as re, fstr, STRING_PUNCTUATION, compareRatios, fixed2, isAlnum, isDigit, isTitle, parseFraction, pyCompare, pyTypeName, pythonCount, pythonReEscape, ratioStr, type Ratio,
} from "./python-text.ts";

/** A validator's verdict and message; `notATuple` is a branch that returns a bare False (the caller cannot unpack it). */
export type ValidatorOutcome = [boolean, string] | { notATuple: true };

type Kwargs = Record<string, unknown>;

/** Python's `.strip()` and friends on a kwarg: an AttributeError when it is not a str. */
function asStr(value: unknown, method: string): string {
  if (typeof value === "string") return value;
  throw new PyException("AttributeError", `'${pyTypeName(value)}' object has no attribute '${method}'`);
}

/** What `for x in value` walks for a kwarg: a list's items, a str's characters; anything else is not iterable. */
function iterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return Array.from(value);
  if (value !== null && typeof value === "object") return Object.keys(value);
  throw new PyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

function checkRelation(count: unknown, relation: unknown, expected: unknown): [boolean, string | undefined] {
  const numeric = (v: unknown) => typeof v === "number" || typeof v === "boolean";
  if (!numeric(count)) return [false, `Invalid count type: expected numeric, got ${pyTypeName(count)}.`];
  if (!numeric(expected)) return [false, `Invalid expected value type: expected numeric, got ${pyTypeName(expected)}.`];
  const [c, e] = [Number(count), Number(expected)];
  if (relation === "at least") return [c >= e, undefined];
  if (relation === "equal to") return [c === e, undefined];
  if (relation === "less than") return [c < e, undefined];
  return [false, `Invalid relation: '${fstr(relation)}'. Must be 'at least', 'equal to', or 'less than'.`];
}

/** A count against a relation, with the branch's failure message. */
function related(count: number, relation: unknown, expected: unknown, failure: () => string): [boolean, string] {
  const [valid, error] = checkRelation(count, relation, expected);
  if (error !== undefined) return [false, error];
  return [valid, valid ? "No error" : failure()];
}

function relatedNoErrorDot(count: number, relation: unknown, expected: unknown, failure: () => string): [boolean, string] {
  const [valid, error] = checkRelation(count, relation, expected);
  if (error !== undefined) return [false, error];
  return valid ? [true, "No error."] : [false, failure()];
}

// ---- helpers (en/validator.py's module functions) ----

export function isStrictAlternating(word: string): boolean {
  let previousUpper: boolean | undefined;
  for (const ch of word) {
    if (isAlpha(ch)) {
      const upper = isUpper(ch);
      if (previousUpper !== undefined && upper === previousUpper) return false;
      previousUpper = upper;
    } else {
      previousUpper = undefined;
    }
  }
  return true;
}

const countAllCapsWords = (response: string) => splitWhitespace(response).filter(isUpper).length;
const countLowercaseWords = (response: string) => splitWhitespace(response).filter(isLower).length;

const TOKEN_VALID = "[A-Za-z0-9](?:[A-Za-z0-9'-]*[A-Za-z0-9])?$";

/** Whole-word (or whole-phrase) occurrences of a keyword, case ignored; a keyword with other characters is a ValueError. */
export function keywordFrequency(response: string, keyword: string): number {
  keyword = pythonStrip(keyword);
  const tokens = splitWhitespace(keyword);
  for (const token of tokens) {
    if (!re(TOKEN_VALID).fullmatch(token)) {
      throw new ValueError(`Invalid token '${token}'. Keywords may only contain letters or numbers; apostrophes or hyphens are permitted only inside a word.`);
    }
  }
  const phrase = tokens.map(pythonReEscape).join("\\s+");
  return re(`(?<![\\w\\'\\-])${phrase}(?![\\w\\'\\-])`, { ignoreCase: true }).findall(response).length;
}

function boundaryPhrasePattern(phrase: string): string {
  const joined = splitWhitespace(phrase).map(pythonReEscape).join("\\s+");
  return `(?<![A-Za-z0-9])${joined}(?![A-Za-z0-9])`;
}

export function isFirstLetterCap(token: string): boolean {
  const chars = Array.from(token);
  const first = chars[0]!;
  if (isDigit(first)) return chars.slice(1).every((ch) => !isAlpha(ch) || isLower(ch));
  if (chars.length === 1) return isAlpha(token) ? isUpper(first) : true;
  let firstAlphaSeen = false;
  for (const ch of chars) {
    if (!isAlpha(ch)) continue;
    if (!firstAlphaSeen) {
      if (!isUpper(ch)) return false;
      firstAlphaSeen = true;
    } else if (!isLower(ch)) {
      return false;
    }
  }
  return true;
}

function parseFractionOrInf(input: unknown): Ratio {
  if (typeof input === "number") return input;
  if (typeof input === "boolean") return Number(input);
  if (typeof input !== "string") throw new PyTypeError(`Input must be a string, not <class '${pyTypeName(input)}'>`);
  const text = pythonStrip(input).toLowerCase();
  if (text === "inf") return Infinity;
  try {
    return parseFraction(text);
  } catch (error) {
    if (error instanceof ValueError || error instanceof ZeroDivisionError) throw new ValueError(`Invalid input: '${text}'. Not a valid fraction or 'inf'.`);
    throw error;
  }
}

const TABLE_BLOCK = "(?:^\\s*\\|.*\\|.*\\n){2,}";
const HORIZONTAL_RULE = "^\\s*([*_-])\\s*\\1\\s*\\1+\\s*$";
const LIST_MARKER = "^\\s*(?:[\\-\\*\\+]\\s+|\\d+\\.\\s+|#+\\s+)";

export function extractCleanSentences(text: string): string[] {
  const withoutTables = re(TABLE_BLOCK, { multiline: true }).sub("", text);
  const cleaned = re(HORIZONTAL_RULE, { multiline: true }).sub("", withoutTables);
  const sentences: string[] = [];
  for (let line of cleaned.split("\n")) {
    line = pythonLstrip(line);
    const cleanedLine = re(LIST_MARKER).sub("", line);
    if (!cleanedLine) continue;
    for (const part of re("[.!?]+").split(cleanedLine) as string[]) {
      const stripped = pythonStrip(part);
      if (stripped) sentences.push(stripped);
    }
  }
  return sentences;
}

export function extractCleanWords(response: string): string[] {
  const withoutLists = re("^\\s*\\d+\\.\\s", { multiline: true }).sub("", response);
  return re("\\b(?:[a-zA-Z0-9'-]+(?:\\.[a-zA-Z0-9'-]+)?)\\b").findall(withoutLists.toLowerCase()) as string[];
}

interface ListFound {
  level: number;
  indent: number;
  items: number;
}

function analyzeLists(text: string, pattern: string): ListFound[] {
  const found: ListFound[] = [];
  const stack: ListFound[] = [];
  for (const item of re(pattern, { multiline: true }).finditer(text)) {
    const indent = pythonLen(pythonStrip(item.groups[1] ?? "", "\n"));
    while (stack.length > 0 && indent < stack.at(-1)!.indent) found.push(stack.pop()!);
    if (stack.length === 0 || indent === stack.at(-1)!.indent) {
      if (stack.length === 0) stack.push({ level: 1, indent, items: 1 });
      else stack.at(-1)!.items += 1;
    } else if (indent > stack.at(-1)!.indent) {
      stack.push({ level: stack.at(-1)!.level + 1, indent, items: 1 });
    }
  }
  return [...found, ...stack];
}

function findMarkdownTables(text: string): { rows: number; columns: number }[] {
  const tables: { rows: number; columns: number }[] = [];
  const lines = pythonStrip(text).split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = pythonStrip(lines[i]!);
    if (!line.includes("|")) {
      i += 1;
      continue;
    }
    if (i + 1 >= lines.length) break;
    const divider = pythonStrip(lines[i + 1]!);
    if (!divider.includes("|") || !re("^[\\s|: -]+$").match(divider)) {
      i += 1;
      continue;
    }
    const columns = line.split("|").map((c) => pythonStrip(c)).filter(Boolean).length;
    const dividerColumns = divider.split("|").map((c) => pythonStrip(c)).filter(Boolean).length;
    if (dividerColumns !== columns) {
      i += 1;
      continue;
    }
    let rows = 0;
    let j = i + 2;
    while (j < lines.length && lines[j]!.includes("|")) {
      rows += 1;
      j += 1;
    }
    tables.push({ rows, columns });
    i = j;
  }
  return tables;
}

function findPunctuations(text: string): string[] {
  const cleaned = re(LIST_MARKER, { multiline: true }).sub("", text);
  return re("[.!?]+").findall(cleaned) as string[];
}

export function extractCleanParagraphs(text: string): string[] {
  let cleaned = re("^\\s*<<.*>>\\s*$", { multiline: true }).sub("", text);
  cleaned = re(TABLE_BLOCK, { multiline: true }).sub("", cleaned);
  cleaned = re("^\\s*#+\\s+.*$", { multiline: true }).sub("", cleaned);
  cleaned = re(HORIZONTAL_RULE, { multiline: true }).sub("", cleaned);
  if (!pythonStrip(cleaned)) return [];
  return (re("\\n\\s*\\n").split(pythonStrip(cleaned)) as string[]).map((p) => pythonStrip(p)).filter(Boolean);
}

/** A Python set's repr of strings, in first-seen order (Python's own order is its hash order). */
const setRepr = (items: Iterable<string>) => {
  const unique = [...new Set(items)];
  return unique.length === 0 ? "set()" : `{${unique.map(pythonStringRepr).join(", ")}}`;
};

const listRepr = (items: unknown[]) => pythonRepr(fromJsonValue(items));

function fractionBounds(kwargs: Kwargs): [Ratio, Ratio] {
  try {
    return [parseFractionOrInf(arg(kwargs, "min_fraction")), parseFractionOrInf(arg(kwargs, "max_fraction"))];
  } catch (error) {
    if (error instanceof ValueError || error instanceof ZeroDivisionError) throw new ValueError(`Invalid fraction input: ${error.message}`);
    throw error;
  }
}

function ratioRange(count: number, other: number): { ratio: Ratio; text: string } {
  if (other === 0) return { ratio: Infinity, text: "inf" };
  const ratio = new Fraction(BigInt(count), BigInt(other));
  return { ratio, text: `${ratio.numerator}/${ratio.denominator}` };
}

const within = (low: Ratio, value: Ratio, high: Ratio) => compareRatios(low, value) <= 0 && compareRatios(value, high) <= 0;

/** Python's `sequence[index]` for a list index kwarg. */
function at<T>(items: T[], index: unknown): T {
  if (typeof index !== "number" && typeof index !== "boolean") throw new PyTypeError(`list indices must be integers or slices, not ${pyTypeName(index)}`);
  const i = Number(index);
  if (!Number.isInteger(i)) throw new PyTypeError("list indices must be integers or slices, not float");
  const resolved = i < 0 ? items.length + i : i;
  if (resolved < 0 || resolved >= items.length) throw new IndexError("list index out of range");
  return items[resolved]!;
}

function validateOrRaise(responseIn: string, instType: string, kwargs: Kwargs): ValidatorOutcome {
  const response = pythonStrip(responseIn);
  switch (instType) {
    case "change_case:all_caps":
      return [isUpper(response), isUpper(response) ? "No error" : "Response is not all uppercase."];
    case "change_case:lowercase":
      return [isLower(response), isLower(response) ? "No error" : "Response is not all lowercase."];
    case "change_case:alternating": {
      const valid = splitWhitespace(response).filter(isAlpha).every(isStrictAlternating);
      return [valid, valid ? "No error" : "Response is not strictly alternating."];
    }
    case "change_case:first_letter_cap": {
      const valid = splitWhitespace(response).every(isFirstLetterCap);
      return [valid, valid ? "No error" : "Each word must start with one uppercase letter followed only by lowercase letters."];
    }
    case "change_case:capital_word_frequency": {
      const count = countAllCapsWords(response);
      const [rel, val] = [arg(kwargs, "capital_relation"), arg(kwargs, "capital_frequency")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} all-cap words, found ${count}.`);
    }
    case "change_case:lowercase_word_frequency": {
      const count = countLowercaseWords(response);
      const [rel, val] = [arg(kwargs, "lowercase_relation"), arg(kwargs, "lowercase_frequency")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} lowercase words, found ${count}.`);
    }
  }
  if (instType.includes("_target")) {
    const target = pythonStrip(asStr(arg(kwargs, "target_string"), "strip"));
    const matches = re(boundaryPhrasePattern(target), { ignoreCase: true }).findall(response) as string[];
    if (matches.length === 0) return [false, `Target '${target}' not found in response.`];
    for (const match of matches) {
      const raw = pythonStrip(pythonStrip(match, '"'), "'");
      if (instType === "change_case:all_caps_target" && !isUpper(raw)) return [false, `'${raw}' should be ALL CAPS.`];
      if (instType === "change_case:lowercase_target" && !isLower(raw)) return [false, `'${raw}' should be all lowercase.`];
      if (instType === "change_case:alternating_target" && !isStrictAlternating(raw)) return [false, `'${raw}' is not in alternating caps.`];
      if (instType === "change_case:first_letter_cap_target" && !isTitle(raw)) return [false, `'${raw}' is not first-letter capitalized.`];
    }
    return [true, "No error"];
  }
  switch (instType) {
    case "detectable_content:number_placeholders": {
      const count = re("\\[.*?\\]").findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_placeholders")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} placeholders, found ${count}.`);
    }
    case "detectable_content:postscript": {
      const marker = pythonStrip(asStr("postscript_marker" in kwargs ? kwargs.postscript_marker : "PS:", "strip"));
      const lastLine = [...splitLines(response)].reverse().find((line) => pythonStrip(line)) ?? "";
      const last = pythonStrip(lastLine);
      const has = last.startsWith(marker) && pythonLen(last) > pythonLen(marker);
      return [has, has ? "No error" : `Postscript must start with '${marker}' and contain content. Found: '${last}'`];
    }
    case "detectable_format:json_format": {
      try {
        const chars = Array.from(response);
        const start = chars.indexOf("{");
        const end = chars.lastIndexOf("}") + 1;
        const from = start < 0 ? Math.max(chars.length + start, 0) : start;
        pythonJsonLoads(chars.slice(from, Math.max(end, from)).join(""));
        return [true, "No error"];
      } catch {
        return [false, "Response is not valid JSON format."];
      }
    }
    case "detectable_format:multiple_sections": {
      const rawSplitter = kwargs.section_splitter;
      const splitter = pythonStrip(asStr(rawSplitter || "", "strip"));
      const rel = kwargs.relation ?? null;
      const val = kwargs.num_sections ?? null;
      if (!splitter) return [false, "section_splitter cannot be empty."];
      if (re("[#*]").search(splitter)) return [false, "section_splitter must be a plain section name without '#' or '*'. The validator adds Markdown headers automatically."];
      const count = re(`^\\s*#{1,6}\\s+${pythonReEscape(splitter)}\\s+\\d+\\b`, { multiline: true, ignoreCase: true }).findall(response).length;
      if (count === 0 && re(`^\\s*#{1,6}${pythonReEscape(splitter)}\\s+\\d+\\b`, { multiline: true, ignoreCase: true }).search(response)) {
        return [false, `Markdown headers require a space after '#'. Use e.g. '### ${splitter} 1'.`];
      }
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} sections like '### ${splitter} 1', found ${count}.`);
    }
    case "detectable_format:numbered_list": {
      const count = re("^\\s*\\d+\\.", { multiline: true }).findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_numbered_items")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} numbered items, found ${count}.`);
    }
    case "detectable_format:number_bullet_lists": {
      const count = re("^[*-]\\s", { multiline: true }).findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_bullets")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} bullet points, found ${count}.`);
    }
    case "detectable_format:title": {
      const lines = splitLines(response);
      if (lines.length === 0) throw new IndexError("list index out of range");
      const line = pythonStrip(lines[0]!);
      const found = line.startsWith("<<") && line.endsWith(">>");
      return [found, found ? "No error" : "Title not wrapped in << >> on first line."];
    }
    case "keywords:existence": {
      const missing = iterate(arg(kwargs, "keywords")).filter((kw) => keywordFrequency(response, asStr(kw, "strip")) === 0);
      return [missing.length === 0, missing.length === 0 ? "No error" : `Missing keyword(s): ${listRepr(missing)}`];
    }
    case "keywords:frequency": {
      const keyword = pythonStrip(asStr(arg(kwargs, "keyword"), "strip")).toLowerCase();
      const count = keywordFrequency(response, keyword);
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "frequency")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} of '${keyword}', found ${count}.`);
    }
    case "keywords:forbidden_words": {
      const present = iterate(arg(kwargs, "forbidden_words")).filter((w) => keywordFrequency(response, asStr(w, "strip")) > 0);
      return [present.length === 0, present.length === 0 ? "No error" : `Forbidden words found: ${listRepr(present)}`];
    }
    case "keywords:letter_frequency": {
      const letter = asStr(arg(kwargs, "letter"), "lower").toLowerCase();
      const count = pythonCount(response.toLowerCase(), letter);
      const [rel, val] = [arg(kwargs, "let_relation"), arg(kwargs, "let_frequency")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} '${letter}' (case-insensitive), found ${count}.`);
    }
    case "punctuation:no_comma":
      return [!response.includes(","), !response.includes(",") ? "No error" : "Commas found in response."];
    case "length_constraints:number_characters": {
      const count = pythonLen(response);
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_chars")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} characters, found ${count}.`);
    }
    case "length_constraints:number_words": {
      const count = re("\\b(?=\\S*[A-Za-z0-9])\\S+\\b").findall(response).length;
      const [rel, val] = [arg(kwargs, "relation"), arg(kwargs, "num_words")];
      return related(count, rel, val, () => `Expected ${fstr(rel)} ${fstr(val)} words, found ${count}.`);
    }
    case "startend:start_checker": {
      const phrase = asStr("start_phrase" in kwargs ? kwargs.start_phrase : "", "lower").toLowerCase();
      const starts = pythonLstrip(response, STRING_PUNCTUATION + " ").toLowerCase().startsWith(phrase);
      return [starts, starts ? "No error" : "Response does not start with required phrase."];
    }
    case "startend:end_checker": {
      const required = pythonStrip(asStr(arg(kwargs, "end_phrase"), "strip"));
      const requiredChars = Array.from(required);
      const endsWithPunctuation = required ? STRING_PUNCTUATION.includes(requiredChars.at(-1)!) : false;
      const actualWords = splitWhitespace(pythonStrip(pythonLstrip(response, STRING_PUNCTUATION)));
      if (actualWords.length === 0) return [false, "Empty response"];
      let actual: string;
      if (endsWithPunctuation) {
        const n = splitWhitespace(required).length;
        actual = actualWords.slice(n === 0 ? 0 : -n).join(" ");
      } else {
        const chars = Array.from(pythonRstrip(actualWords.join(" "), STRING_PUNCTUATION + " "));
        // `[-len(required):]`, where -0 is the whole string.
        actual = chars.slice(requiredChars.length === 0 ? 0 : -requiredChars.length).join("");
      }
      if (actual.toLowerCase() !== required.toLowerCase()) return [false, `End phrase mismatch: expected '${required}', but found '${actual}'`];
      return [true, "No error"];
    }
    case "startend:wrap_checker": {
      const wrap = asStr(arg(kwargs, "wrap_phrase"), "startswith");
      const wrapped = response.startsWith(wrap) && response.endsWith(wrap);
      return [wrapped, wrapped ? "No error" : `Not wrapped with: ${wrap}`];
    }
    case "startend:quotation": {
      const quoted = response.startsWith('"') && response.endsWith('"');
      return [quoted, quoted ? "No error" : "Response not wrapped in double quotes."];
    }
    case "change_case:case_ratio": {
      const [minR, maxR] = fractionBounds(kwargs);
      if (compareRatios(minR, maxR) > 0) return [false, "Validation failed: Minimum ratio greater than maximum ratio."];
      const chars = Array.from(response);
      const lower = chars.filter((ch) => isLower(ch)).length;
      const upper = chars.filter((ch) => isUpper(ch)).length;
      if (lower === 0 && upper === 0) return { notATuple: true };
      const { ratio, text } = ratioRange(lower, upper);
      const valid = within(minR, ratio, maxR);
      const message = `Lowercase count: ${lower}, Uppercase count: ${upper}. Ratio is ${text}(${fixed2(ratio)}). Required range: [${ratioStr(minR)}(${fixed2(minR)}), ${ratioStr(maxR)}(${fixed2(maxR)})].`;
      return [valid, valid ? "No error" : message];
    }
    case "change_case:first_letter_sentence": {
      const sentences = extractCleanSentences(response);
      if (sentences.length === 0) return [true, "No sentences found to validate."];
      for (const raw of sentences) {
        const sentence = pythonStrip(raw, "()[]{}\"'");
        const first = Array.from(sentence)[0];
        if (first === undefined) throw new IndexError("string index out of range");
        if (!isUpper(first)) return [false, `Fails at: '${sentence}'`];
      }
      return [true, "No error."];
    }
    case "change_case:last_letter": {
      const cleaned = re("[.!?]+$").sub("", pythonStrip(response));
      if (!cleaned) return [false, "Empty response"];
      const lastWord = pythonStrip(splitWhitespace(cleaned).at(-1)!, "()[]{}\"'");
      if (!lastWord) return { notATuple: true };
      const lastChar = Array.from(lastWord).at(-1)!;
      const c = arg(kwargs, "case");
      const valid = c === "uppercase" ? isUpper(lastChar) : c === "lowercase" ? isLower(lastChar) : c === "digit" ? isDigit(lastChar) : c === "special" ? !isAlnum(lastChar) : false;
      return [valid, valid ? "No error." : `Last character of the response: ${lastChar}`];
    }
    case "change_case:vowel_consonant_balance": {
      const [minR, maxR] = fractionBounds(kwargs);
      if (compareRatios(minR, maxR) > 0) return [false, "Validation failed: Minimum ratio greater than maximum ratio."];
      const letters = Array.from(response).filter((ch) => isAlpha(ch));
      const vowels = letters.filter((ch) => "aeiouAEIOU".includes(ch)).length;
      const consonants = letters.length - vowels;
      if (vowels === 0 && consonants === 0) return [false, "Validation failed: No letters found in the response."];
      const { ratio, text } = ratioRange(vowels, consonants);
      const valid = within(minR, ratio, maxR);
      const message = `Vowel count: ${vowels}, Consonant count: ${consonants}. Ratio is ${text}(${fixed2(ratio)}). Required range: [${ratioStr(minR)}(${fixed2(minR)}), ${ratioStr(maxR)}(${fixed2(maxR)})].`;
      return [valid, valid ? "No error" : message];
    }
    case "detectable_format:number_paragraphs": {
      const cleaned = pythonStrip(response).replaceAll("\r\n", "\n");
      let count = extractCleanParagraphs(response).length;
      if (!cleaned) count = 0;
      const [relation, num] = [arg(kwargs, "relation"), arg(kwargs, "num_paragraphs")];
      return relatedNoErrorDot(count, relation, num, () => `Found ${count} paragraphs. Expected ${fstr(relation)} ${fstr(num)}.`);
    }
    case "detectable_format:max_paragraph_length": {
      const maxChars = arg(kwargs, "max_chars");
      for (const paragraph of extractCleanParagraphs(response)) {
        const p = re(LIST_MARKER).sub("", pythonLstrip(paragraph));
        const count = pythonLen(pythonStrip(p));
        if (pyCompare(count, ">", maxChars)) return [false, `Found a paragraph containing ${count} characters.\n '${p}'`];
      }
      return [true, "No error."];
    }
    case "detectable_format:sentences_per_paragraph": {
      const [num, relation] = [arg(kwargs, "num_sentences"), arg(kwargs, "relation")];
      for (const p of extractCleanParagraphs(response)) {
        let count = extractCleanSentences(p).filter((s) => pythonStrip(s)).length;
        if (count === 0 && pythonStrip(p)) count = 1;
        const [valid, error] = checkRelation(count, relation, num);
        if (error !== undefined) return [false, error];
        if (!valid) return [false, `Found ${count} sentences. Expected ${fstr(num)}\n '${p}'`];
      }
      return [true, "No error."];
    }
    case "length_constraints:sentence_length": {
      const sentences = extractCleanSentences(response);
      const maxWords = arg(kwargs, "max_words");
      if (sentences.length === 0) return [true, "No sentences found to validate."];
      for (const s of sentences) {
        const count = splitWhitespace(s).length;
        if (pyCompare(count, ">", maxWords)) return [false, `Expected at most ${fstr(maxWords)} words. Found ${count} words in '${s}'`];
      }
      return [true, "No error."];
    }
    case "length_constraints:word_repetition": {
      const maxRepeats = arg(kwargs, "max_repeats");
      const counts = new Map<string, number>();
      for (const word of extractCleanWords(response)) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const [word, count] of counts) if (pyCompare(count, ">", maxRepeats)) return [false, `Word '${word}' appears ${count} times (limit ${fstr(maxRepeats)})`];
      return [true, "No error."];
    }
    case "length_constraints:unique_words": {
      const [relation, num] = [arg(kwargs, "relation"), arg(kwargs, "num_unique")];
      const count = new Set(extractCleanWords(response)).size;
      return relatedNoErrorDot(count, relation, num, () => `Found ${count} unique words. Expected ${fstr(relation)} ${fstr(num)}.`);
    }
    case "punctuation:question_exclaim": {
      const [relation, num] = [arg(kwargs, "relation"), arg(kwargs, "num_marks")];
      const count = re("[?!]").findall(response).length;
      return relatedNoErrorDot(count, relation, num, () => `Found ${count} marks. Expected ${fstr(relation)} ${fstr(num)}.`);
    }
    case "punctuation:no_period":
      return [!response.includes("."), !response.includes(".") ? "No error" : "Periods found in response."];
    case "punctuation:end_rule": {
      const allowed = arg(kwargs, "allowed");
      for (const p of new Set(findPunctuations(response))) {
        const inAllowed = typeof allowed === "string" ? allowed.includes(p) : iterate(allowed).some((a) => a === p);
        if (!inAllowed) return [false, `'${p}' not in the list of allowed punctuations.`];
      }
      return [true, "No error."];
    }
    case "keywords:alliteration": {
      const [relation, num, target] = [arg(kwargs, "relation"), arg(kwargs, "num_alliteration"), arg(kwargs, "target_letter")];
      const prefix = asStr(target, "startswith");
      const count = extractCleanWords(response).filter((w) => w.startsWith(prefix)).length;
      return relatedNoErrorDot(count, relation, num, () => `Found ${count} alliteration words. Expected ${fstr(relation)} ${fstr(num)}.`);
    }
    case "keywords:palindrome_word": {
      const minLength = arg(kwargs, "min_length");
      for (const word of extractCleanWords(response)) if (word === reversed(word) && pyCompare(pythonLen(word), ">=", minLength)) return [true, `No error. Word: ${word}`];
      return [false, "No valid palindrome words found."];
    }
    case "keywords:positioning": {
      const [keyword, position] = [arg(kwargs, "keyword"), arg(kwargs, "position")];
      const words = extractCleanWords(response);
      const word = at(words, position);
      if (word === keyword) return [true, "No error."];
      return [false, `'${word}' found after ${fstr(position)} words instead of '${fstr(keyword)}'.`];
    }
    case "detectable_format:nested_list": {
      const [minDepth, numSubitems] = [arg(kwargs, "min_depth"), arg(kwargs, "num_subitems")];
      const lists = [...analyzeLists(response, "^(\\s*)([*+-])[ \\t]+(.*)"), ...analyzeLists(response, "^(\\s*)(\\d+\\.)[ \\t]+(.*)")];
      for (const list of lists) if (list.level === Number(minDepth) && typeof minDepth !== "string" && pyCompare(list.items, ">=", numSubitems)) return [true, "No error."];
      return [false, `List at level ${fstr(minDepth)} with at least ${fstr(numSubitems)} items not found.`];
    }
    case "detectable_format:table": {
      const [minRows, minCols] = [arg(kwargs, "min_rows"), arg(kwargs, "min_cols")];
      for (const table of findMarkdownTables(response)) if (pyCompare(table.rows, ">=", minRows) && pyCompare(table.columns, ">=", minCols)) return [true, "No error."];
      return [false, `Could not find a table with at least ${fstr(minRows)} rows and ${fstr(minCols)} columns.`];
    }
    case "detectable_format:heading_depth": {
      const levels = arg(kwargs, "levels");
      if (!levels || (Array.isArray(levels) && levels.length === 0)) return [false, "No levels provided."];
      const depths = new Set(re("^\\s*(#+)[ \\t]+(.*)", { multiline: true }).findall(response).map((item) => (item as string[])[0]!.length));
      for (const level of iterate(levels)) if (!(typeof level === "number" && depths.has(level))) return [false, `Heading of level ${fstr(level)} not found`];
      return [true, "No error."];
    }
    case "length_constraints:word_length": {
      const [maxLength, minLength] = [arg(kwargs, "max_length"), arg(kwargs, "min_length")];
      if (pyCompare(minLength, ">", maxLength)) return [false, "Validation failed: Minimum length greater than maximum length."];
      const words = [...new Set(extractCleanWords(response))];
      if (words.length === 0) return [true, "No words found to validate."];
      // min/max by length keep the first of equals; Python walks the set in hash order, so its pick among equals varies.
      const shortest = words.reduce((a, b) => (pythonLen(b) < pythonLen(a) ? b : a));
      const longest = words.reduce((a, b) => (pythonLen(b) > pythonLen(a) ? b : a));
      if (pyCompare(pythonLen(shortest), "<", minLength)) return [false, `Validation failed: The word '${shortest}' with length ${pythonLen(shortest)} is shorter than the minimum of ${fstr(minLength)}.`];
      if (pyCompare(pythonLen(longest), ">", maxLength)) return [false, `Validation failed: The word '${longest}' with length ${pythonLen(longest)} is longer than the maximum of ${fstr(maxLength)}.`];
      return [true, "No error."];
    }
    case "length_constraints:avg_word_length": {
      const [minRatio, maxRatio] = [arg(kwargs, "min_ratio"), arg(kwargs, "max_ratio")];
      if (pyCompare(minRatio, ">", maxRatio)) return [false, "Validation failed: Minimum length greater than maximum length."];
      const words = extractCleanWords(response);
      if (words.length === 0) throw new ZeroDivisionError("division by zero");
      const average = words.reduce((sum, w) => sum + pythonLen(w), 0) / words.length;
      const valid = pyCompare(minRatio, "<=", average) && pyCompare(average, "<=", maxRatio);
      return [valid, valid ? "No error" : `Found average of ${floatRepr(average)}. Expected between ${fstr(minRatio)} and ${fstr(maxRatio)}`];
    }
    case "detectable_format:sentence_count": {
      const [relation, num] = [arg(kwargs, "relation"), arg(kwargs, "num_sentences")];
      const count = extractCleanSentences(response).length;
      const [valid, error] = checkRelation(count, relation, num);
      if (error !== undefined) return [false, error];
      return valid ? [true, "No error."] : [false, `Found ${count} sentences. Expected ${fstr(relation)} ${fstr(num)}`];
    }
    case "length_constraints:paragraph_length": {
      const [perParagraph, relation] = [arg(kwargs, "words_per_paragraph"), arg(kwargs, "relation")];
      for (const p of extractCleanParagraphs(response)) {
        const count = extractCleanWords(p).filter((w) => pythonStrip(w)).length;
        const [valid, error] = checkRelation(count, relation, perParagraph);
        if (error !== undefined) return [false, error];
        if (!valid) return [false, `Found ${count} words. Expected ${fstr(relation)} ${fstr(perParagraph)}\n '${p}'`];
      }
      return [true, "No error."];
    }
    case "detectable_content:numeric_inclusion": {
      const [num, relation] = [arg(kwargs, "num_numbers"), arg(kwargs, "relation")];
      const count = Array.from(response).filter((ch) => isDigit(ch)).length;
      const [valid, error] = checkRelation(count, relation, num);
      if (error !== undefined) return [false, error];
      return valid ? [true, "No error."] : [false, `Found ${count} digits. Expected ${fstr(relation)} ${fstr(num)}`];
    }
    case "detectable_format:sentence_endings": {
      const minVariants = arg(kwargs, "min_variants");
      const found = findPunctuations(response);
      const variety = new Set(found).size;
      if (pyCompare(variety, "<", minVariants)) return [false, `Found ${variety} types of punctuations. Expected at least ${fstr(minVariants)}.\n ${setRepr(found)}`];
      return [true, "No error."];
    }
    case "keywords:vowel_count": {
      const [num, relation] = [arg(kwargs, "num_vowels"), arg(kwargs, "relation")];
      const count = Array.from(response).filter((ch) => "aeiouAEIOU".includes(ch)).length;
      const [valid, error] = checkRelation(count, relation, num);
      if (error !== undefined) return [false, error];
      return valid ? [true, "No error."] : [false, `Found ${count} vowels. Expected ${fstr(relation)} ${fstr(num)}`];
    }
    case "keywords:consonant_count": {
      const [num, relation] = [arg(kwargs, "num_consonants"), arg(kwargs, "relation")];
      const count = Array.from(response).filter((ch) => /^[A-Za-z]$/.test(ch) && !"aeiouAEIOU".includes(ch)).length;
      const [valid, error] = checkRelation(count, relation, num);
      if (error !== undefined) return [false, error];
      return valid ? [true, "No error."] : [false, `Found ${count} consonants. Expected ${fstr(relation)} ${fstr(num)}`];
    }
  }
  return [false, "Invalid Instruction"];
}

/** The English validator: its verdict and message, an exception inside reported as "Validation error: …". */
export function validateEnglish(response: string, instType: string, kwargs: Kwargs): ValidatorOutcome {
  try {
    return validateOrRaise(response, instType, kwargs);
  } catch (error) {
    return [false, `Validation error: ${(error as Error).message}`];
  }
}
