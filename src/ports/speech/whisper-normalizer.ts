// Whisper's text normalizers as the `whisper_normalizer` package ships them (OpenAI Whisper's, Appendix C of its
// paper): the basic one (symbols and marks to spaces) and the English one — bracketed and parenthesised spans and
// fillers removed, contractions and titles expanded, commas between digits and periods not before a digit removed,
// symbols and diacritics dropped (numeric symbols kept), spelled-out numbers and currencies as Arabic numbers
// (EnglishNumberNormalizer, ported branch for branch with exact integers), British spellings as American, then the
// leftover numeric symbols removed. The British-to-American table is the package's data file, not shipped here: the
// caller passes it in (`spellings`), and without one no word is respelled. Every regex is the package's, run with
// Python's semantics.
import { compilePythonRegex, type PythonPattern } from "../../python/re/index.ts";
import { asciiDigits } from "../../python/numbers.ts";
import { pythonStrip, splitWhitespace } from "../../python/str.ts";

const re = (pattern: string) => compilePythonRegex(pattern);
const BRACKETED = re(String.raw`[<\[][^>\]]*[>\]]`);
const PARENTHESISED = re(String.raw`\(([^)]+?)\)`);
const WHITESPACE_RUN = re(String.raw`\s+`);

// ---- the basic normalizer ----

// Letters NFKD does not split into a base and a mark.
const ADDITIONAL_DIACRITICS: Record<string, string> = {
  "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ẞ": "SS",
  "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "th", "ł": "l", "Ł": "L",
};
const NONSPACING_MARK = /^\p{Mn}$/u;
const MARK_SYMBOL_PUNCTUATION = /^[\p{M}\p{S}\p{P}]$/u;
const SYMBOL_PUNCTUATION = /^[\p{S}\p{P}]$/u;

/** NFKD, then kept characters as they are, the extra diacritics spelled out, nonspacing marks dropped, other marks, symbols and punctuation as spaces. */
export function removeSymbolsAndDiacritics(text: string, keep = ""): string {
  let out = "";
  for (const ch of text.normalize("NFKD")) {
    if (keep.includes(ch)) out += ch;
    else if (Object.hasOwn(ADDITIONAL_DIACRITICS, ch)) out += ADDITIONAL_DIACRITICS[ch];
    else if (NONSPACING_MARK.test(ch)) continue;
    else out += MARK_SYMBOL_PUNCTUATION.test(ch) ? " " : ch;
  }
  return out;
}

/** NFKC, then symbols and punctuation (and marks, unless preserved) as spaces. */
export function removeSymbols(text: string, preserveMarks = false): string {
  const replaced = preserveMarks ? SYMBOL_PUNCTUATION : MARK_SYMBOL_PUNCTUATION;
  let out = "";
  for (const ch of text.normalize("NFKC")) out += replaced.test(ch) ? " " : ch;
  return out;
}

/** `BasicTextNormalizer(remove_diacritics)`: lower-case, bracketed and parenthesised spans removed, symbols as spaces, whitespace collapsed. */
export function basicNormalize(text: string, options: { removeDiacritics?: boolean; preserveMarks?: boolean } = {}): string {
  let s = text.toLowerCase();
  s = BRACKETED.sub("", s);
  s = PARENTHESISED.sub("", s);
  s = (options.removeDiacritics ? removeSymbolsAndDiacritics(s) : removeSymbols(s, options.preserveMarks)).toLowerCase();
  return WHITESPACE_RUN.sub(" ", s);
}

// ---- spelled-out numbers ----

const ONES = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const MULTIPLIER_NAMES = ["hundred", "thousand", "million", "billion", "trillion", "quadrillion", "quintillion", "sextillion", "septillion", "octillion", "nonillion", "decillion"];

const zeros = new Set(["o", "oh", "zero"]);
const ones = new Map<string, bigint>(ONES.map((name, i) => [name, BigInt(i + 1)]));
const onesSuffixed = new Map<string, [bigint, string]>([
  ...ONES.map((name, i): [string, [bigint, string]] => [name === "six" ? "sixes" : `${name}s`, [BigInt(i + 1), "s"]]),
  ["zeroth", [0n, "th"]], ["first", [1n, "st"]], ["second", [2n, "nd"]], ["third", [3n, "rd"]], ["fifth", [5n, "th"]], ["twelfth", [12n, "th"]],
  ...ONES.flatMap((name, i): [string, [bigint, string]][] => (i + 1 > 3 && i + 1 !== 5 && i + 1 !== 12 ? [[name + (name.endsWith("t") ? "h" : "th"), [BigInt(i + 1), "th"]]] : [])),
]);
const tens = new Map<string, bigint>(Object.entries(TENS).map(([name, value]) => [name, BigInt(value)]));
const tensSuffixed = new Map<string, [bigint, string]>([
  ...[...tens].map(([name, value]): [string, [bigint, string]] => [name.replace("y", "ies"), [value, "s"]]),
  ...[...tens].map(([name, value]): [string, [bigint, string]] => [name.replace("y", "ieth"), [value, "th"]]),
]);
const multipliers = new Map<string, bigint>(MULTIPLIER_NAMES.map((name, i) => [name, i === 0 ? 100n : 1000n ** BigInt(i)]));
const multipliersSuffixed = new Map<string, [bigint, string]>([
  ...[...multipliers].map(([name, value]): [string, [bigint, string]] => [`${name}s`, [value, "s"]]),
  ...[...multipliers].map(([name, value]): [string, [bigint, string]] => [`${name}th`, [value, "th"]]),
]);
const decimals = new Set([...ones.keys(), ...tens.keys(), ...zeros]);
const precedingPrefixers: Record<string, string> = { minus: "-", negative: "-", plus: "+", positive: "+" };
const followingPrefixers: Record<string, string> = { pound: "£", pounds: "£", euro: "€", euros: "€", dollar: "$", dollars: "$", cent: "¢", cents: "¢" };
const prefixes = new Set([...Object.values(precedingPrefixers), ...Object.values(followingPrefixers)]);
const suffixers: Record<string, string | Record<string, string>> = { per: { cent: "%" }, percent: "%" };
const specials = new Set(["and", "double", "triple", "point"]);
const words = new Set([
  ...zeros, ...ones.keys(), ...onesSuffixed.keys(), ...tens.keys(), ...tensSuffixed.keys(), ...multipliers.keys(), ...multipliersSuffixed.keys(),
  ...Object.keys(precedingPrefixers), ...Object.keys(followingPrefixers), ...Object.keys(suffixers), ...specials,
]);

/** A number being read: an exact integer, or text (digits with a point, several digit groups, …) as Python keeps it. */
type Value = bigint | string;
const isWord = (token: string | undefined, set: Set<string> | Map<string, unknown>) => token !== undefined && set.has(token);
const truthy = (value: Value | undefined): value is Value => value !== undefined && value !== 0n && value !== "";
const ARABIC_NUMBER = /^\p{Nd}+(\.\p{Nd}+)?$/u;

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

/** Python's `Fraction(text)` in lowest terms, or undefined where it raises ValueError (digits may be any script's). */
function toFraction(value: Value): { numerator: bigint; denominator: bigint } | undefined {
  if (typeof value === "bigint") return { numerator: value, denominator: 1n };
  const m = /^\s*([-+]?)(?=\p{Nd}|\.\p{Nd})(\p{Nd}*)(?:(?:\/(\p{Nd}+))?|(?:\.(\p{Nd}*))?(?:[eE]([-+]?\p{Nd}+))?)\s*$/u.exec(value);
  if (!m) return undefined;
  const [, sign, whole, denominatorText, decimal, exponent] = m;
  let numerator = BigInt(asciiDigits(whole || "0"));
  let denominator = 1n;
  if (denominatorText !== undefined) {
    denominator = BigInt(asciiDigits(denominatorText));
    if (denominator === 0n) return undefined;
  } else {
    if (decimal) {
      numerator = numerator * 10n ** BigInt(decimal.length) + BigInt(asciiDigits(decimal));
      denominator = 10n ** BigInt(decimal.length);
    }
    if (exponent !== undefined) {
      const power = BigInt(asciiDigits(exponent));
      if (power >= 0n) numerator *= 10n ** power;
      else denominator *= 10n ** -power;
    }
  }
  if (sign === "-") numerator = -numerator;
  const divisor = gcd(numerator, denominator);
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

/** Python's floor division and modulo on integers (BigInt's truncate toward zero). */
const floorDiv = (a: bigint, b: bigint) => (a % b !== 0n && a < 0n !== b < 0n ? a / b - 1n : a / b);
const pyMod = (a: bigint, b: bigint) => a - floorDiv(a, b) * b;

/** EnglishNumberNormalizer.process_words: the words with spelled-out numbers, currencies and percentages as numbers. */
function processWords(tokens: readonly string[]): string[] {
  const out: string[] = [];
  let prefix: string | undefined;
  let value: Value | undefined;
  let skip = false;
  const output = (result: Value): string => {
    let text = String(result);
    if (prefix !== undefined) text = prefix + text;
    value = undefined;
    prefix = undefined;
    return text;
  };
  const yieldOut = (result: Value) => out.push(output(result));

  for (let i = 0; i < tokens.length; i++) {
    const prev = tokens[i - 1];
    const current = tokens[i]!;
    const next = tokens[i + 1];
    if (skip) {
      skip = false;
      continue;
    }
    const nextIsNumeric = next !== undefined && ARABIC_NUMBER.test(next);
    const hasPrefix = prefixes.has(current[0]!);
    const currentWithoutPrefix = hasPrefix ? current.slice(1) : current;
    if (ARABIC_NUMBER.test(currentWithoutPrefix)) {
      const f = toFraction(currentWithoutPrefix)!;
      if (value !== undefined) {
        if (typeof value === "string" && value.endsWith(".")) {
          value = value + current;
          continue;
        }
        yieldOut(value);
      }
      prefix = hasPrefix ? current[0] : prefix;
      value = f.denominator === 1n ? f.numerator : currentWithoutPrefix;
    } else if (!words.has(current)) {
      if (value !== undefined) yieldOut(value);
      yieldOut(current);
    } else if (zeros.has(current)) {
      value = (truthy(value) ? String(value) : "") + "0";
    } else if (ones.has(current)) {
      const one = ones.get(current)!;
      if (value === undefined) value = one;
      else if (typeof value === "string" || isWord(prev, ones)) {
        if (isWord(prev, tens) && one < 10n) {
          const text = String(value);
          if (!text.endsWith("0")) throw new Error("AssertionError: EnglishNumberNormalizer expected a trailing 0");
          value = text.slice(0, -1) + String(one);
        } else value = String(value) + String(one);
      } else if (one < 10n) value = pyMod(value, 10n) === 0n ? value + one : String(value) + String(one);
      else value = pyMod(value, 100n) === 0n ? value + one : String(value) + String(one);
    } else if (onesSuffixed.has(current)) {
      const [one, suffix] = onesSuffixed.get(current)!;
      if (value === undefined) yieldOut(String(one) + suffix);
      else if (typeof value === "string" || isWord(prev, ones)) {
        if (isWord(prev, tens) && one < 10n) {
          const text = String(value);
          if (!text.endsWith("0")) throw new Error("AssertionError: EnglishNumberNormalizer expected a trailing 0");
          yieldOut(text.slice(0, -1) + String(one) + suffix);
        } else yieldOut(String(value) + String(one) + suffix);
      } else if (one < 10n) yieldOut(pyMod(value, 10n) === 0n ? String(value + one) + suffix : String(value) + String(one) + suffix);
      else yieldOut(pyMod(value, 100n) === 0n ? String(value + one) + suffix : String(value) + String(one) + suffix);
      value = undefined;
    } else if (tens.has(current)) {
      const ten = tens.get(current)!;
      if (value === undefined) value = ten;
      else if (typeof value === "string") value = value + String(ten);
      else value = pyMod(value, 100n) === 0n ? value + ten : String(value) + String(ten);
    } else if (tensSuffixed.has(current)) {
      const [ten, suffix] = tensSuffixed.get(current)!;
      if (value === undefined) yieldOut(String(ten) + suffix);
      else if (typeof value === "string") yieldOut(value + String(ten) + suffix);
      else yieldOut(pyMod(value, 100n) === 0n ? String(value + ten) + suffix : String(value) + String(ten) + suffix);
    } else if (multipliers.has(current)) {
      const multiplier = multipliers.get(current)!;
      if (value === undefined) value = multiplier;
      else if (typeof value === "string" || value === 0n) {
        const f = toFraction(value);
        if (f !== undefined && pyMod(f.numerator * multiplier, f.denominator) === 0n) value = (f.numerator * multiplier) / f.denominator;
        else {
          yieldOut(value);
          value = multiplier;
        }
      } else value = floorDiv(value, 1000n) * 1000n + pyMod(value, 1000n) * multiplier;
    } else if (multipliersSuffixed.has(current)) {
      const [multiplier, suffix] = multipliersSuffixed.get(current)!;
      if (value === undefined) yieldOut(String(multiplier) + suffix);
      else if (typeof value === "string") {
        const f = toFraction(value);
        if (f !== undefined && pyMod(f.numerator * multiplier, f.denominator) === 0n) yieldOut(String((f.numerator * multiplier) / f.denominator) + suffix);
        else {
          yieldOut(value);
          yieldOut(String(multiplier) + suffix);
        }
      } else {
        value = floorDiv(value, 1000n) * 1000n + pyMod(value, 1000n) * multiplier;
        yieldOut(String(value) + suffix);
      }
      value = undefined;
    } else if (Object.hasOwn(precedingPrefixers, current)) {
      if (value !== undefined) yieldOut(value);
      if (isWord(next, words) || nextIsNumeric) prefix = precedingPrefixers[current];
      else yieldOut(current);
    } else if (Object.hasOwn(followingPrefixers, current)) {
      if (value !== undefined) {
        prefix = followingPrefixers[current];
        yieldOut(value);
      } else yieldOut(current);
    } else if (Object.hasOwn(suffixers, current)) {
      if (value !== undefined) {
        const suffix = suffixers[current]!;
        if (typeof suffix === "object") {
          if (next !== undefined && Object.hasOwn(suffix, next)) {
            yieldOut(String(value) + suffix[next]);
            skip = true;
          } else {
            yieldOut(value);
            yieldOut(current);
          }
        } else yieldOut(String(value) + suffix);
      } else yieldOut(current);
    } else if (specials.has(current)) {
      if (!isWord(next, words) && !nextIsNumeric) {
        if (value !== undefined) yieldOut(value);
        yieldOut(current);
      } else if (current === "and") {
        if (!isWord(prev, multipliers)) {
          if (value !== undefined) yieldOut(value);
          yieldOut(current);
        }
      } else if (current === "double" || current === "triple") {
        if (isWord(next, ones) || isWord(next, zeros)) {
          const repeats = current === "double" ? 2 : 3;
          const digit = ones.get(next!) ?? 0n;
          value = (truthy(value) ? String(value) : "") + String(digit).repeat(repeats);
          skip = true;
        } else {
          if (value !== undefined) yieldOut(value);
          yieldOut(current);
        }
      } else if (current === "point") {
        if (isWord(next, decimals) || nextIsNumeric) value = (truthy(value) ? String(value) : "") + ".";
      }
    }
  }
  if (value !== undefined) yieldOut(value);
  return out;
}

const AND_A_HALF = re(String.raw`\band\s+a\s+half\b`);
const LETTER_DIGIT = re("([a-z])([0-9])");
const DIGIT_LETTER = re("([0-9])([a-z])");
const NUMBER_SUFFIX = re(String.raw`([0-9])\s+(st|nd|rd|th|s)\b`);
const DOLLARS_AND_CENTS = re(String.raw`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b`);
const ZERO_POINT_CENTS = re(String.raw`[€£$]0.([0-9]{1,2})\b`);
const ONE = re(String.raw`\b1(s?)\b`);

/** EnglishNumberNormalizer's preprocess: "<number> and a half" as "point five", spaces at digit/letter boundaries but before a suffix. */
function preprocessNumbers(text: string): string {
  const segments = AND_A_HALF.split<string>(text);
  const results: string[] = [];
  segments.forEach((segment, i) => {
    if (pythonStrip(segment).length === 0) return;
    results.push(segment);
    if (i === segments.length - 1) return;
    const lastWord = splitWhitespace(segment).at(-1)!;
    results.push(decimals.has(lastWord) || multipliers.has(lastWord) ? "point five" : "and a half");
  });
  let s = results.join(" ");
  s = LETTER_DIGIT.sub(String.raw`\1 \2`, s);
  s = DIGIT_LETTER.sub(String.raw`\1 \2`, s);
  return NUMBER_SUFFIX.sub(String.raw`\1\2`, s);
}

/** EnglishNumberNormalizer's postprocess: "$2 and ¢7" as "$2.07", "$0.07" as "¢7", a lone "1(s)" as "one(s)". */
function postprocessNumbers(text: string): string {
  let s = DOLLARS_AND_CENTS.sub((m) => `${m.groups[1]}${m.groups[2]}.${String(Number(m.groups[3])).padStart(2, "0")}`, text);
  s = ZERO_POINT_CENTS.sub((m) => `¢${BigInt(m.groups[1]!)}`, s);
  return ONE.sub(String.raw`one\1`, s);
}

/** `EnglishNumberNormalizer()(text)`. */
export const normalizeEnglishNumbers = (text: string): string => postprocessNumbers(processWords(splitWhitespace(preprocessNumbers(text))).join(" "));

// ---- the English normalizer ----

const FILLERS = re(String.raw`\b(hmm|mm|mhm|mmm|uh|um)\b`);
const SPACE_BEFORE_APOSTROPHE = re(String.raw`\s+'`);
const REPLACERS: [PythonPattern, string][] = (
  [
    [String.raw`\bwon't\b`, "will not"], [String.raw`\bcan't\b`, "can not"], [String.raw`\blet's\b`, "let us"], [String.raw`\bain't\b`, "aint"],
    [String.raw`\by'all\b`, "you all"], [String.raw`\bwanna\b`, "want to"], [String.raw`\bkinda\b`, "kind of"], [String.raw`\bsorta\b`, "sort of"],
    [String.raw`\bdunno\b`, "do not know"], [String.raw`\bgotta\b`, "got to"], [String.raw`\bgonna\b`, "going to"], [String.raw`\bi'ma\b`, "i am going to"],
    [String.raw`\bimma\b`, "i am going to"], [String.raw`\bwoulda\b`, "would have"], [String.raw`\bcoulda\b`, "could have"], [String.raw`\bshoulda\b`, "should have"],
    [String.raw`\bcause\b`, "because"], [String.raw`\bma'am\b`, "madam"],
    [String.raw`\bmr\b`, "mister "], [String.raw`\bmrs\b`, "missus "], [String.raw`\bst\b`, "saint "], [String.raw`\bdr\b`, "doctor "],
    [String.raw`\bprof\b`, "professor "], [String.raw`\bcapt\b`, "captain "], [String.raw`\bgov\b`, "governor "], [String.raw`\bald\b`, "alderman "],
    [String.raw`\bgen\b`, "general "], [String.raw`\bsen\b`, "senator "], [String.raw`\brep\b`, "representative "], [String.raw`\bpres\b`, "president "],
    [String.raw`\brev\b`, "reverend "], [String.raw`\bhon\b`, "honorable "], [String.raw`\basst\b`, "assistant "], [String.raw`\bassoc\b`, "associate "],
    [String.raw`\blt\b`, "lieutenant "], [String.raw`\bcol\b`, "colonel "], [String.raw`\bjr\b`, "junior "], [String.raw`\bsr\b`, "senior "],
    [String.raw`\besq\b`, "esquire "],
    [String.raw`'d been\b`, " had been"], [String.raw`'s been\b`, " has been"], [String.raw`'d gone\b`, " had gone"], [String.raw`'s gone\b`, " has gone"],
    [String.raw`'d done\b`, " had done"], [String.raw`'s got\b`, " has got"],
    [String.raw`n't\b`, " not"], [String.raw`'re\b`, " are"], [String.raw`'s\b`, " is"], [String.raw`'d\b`, " would"],
    [String.raw`'ll\b`, " will"], [String.raw`'t\b`, " not"], [String.raw`'ve\b`, " have"], [String.raw`'m\b`, " am"],
  ] as const
).map(([pattern, replacement]) => [re(pattern), replacement]);
const DIGIT_COMMA_DIGIT = re(String.raw`(\d),(\d)`);
const PERIOD_NOT_BEFORE_DIGIT = re(String.raw`\.([^0-9]|$)`);
const SYMBOL_NOT_BEFORE_DIGIT = re("[.$¢€£]([^0-9])");
const PERCENT_NOT_AFTER_DIGIT = re("([^0-9])%");

/** A British-to-American spelling table (whisper_normalizer's normalizers/english.json): word → word. */
export type SpellingTable = ReadonlyMap<string, string>;

/** `EnglishSpellingNormalizer()(text)`: each whitespace-separated word looked up in the table, joined with spaces. */
export const normalizeEnglishSpellings = (text: string, spellings: SpellingTable | undefined): string =>
  splitWhitespace(text).map((word) => spellings?.get(word) ?? word).join(" ");

/** `EnglishTextNormalizer()(text)`, with the spelling table given (none: no word respelled). */
export function englishNormalize(text: string, spellings?: SpellingTable): string {
  let s = text.toLowerCase();
  s = BRACKETED.sub("", s);
  s = PARENTHESISED.sub("", s);
  s = FILLERS.sub("", s);
  s = SPACE_BEFORE_APOSTROPHE.sub("'", s);
  for (const [pattern, replacement] of REPLACERS) s = pattern.sub(replacement, s);
  s = DIGIT_COMMA_DIGIT.sub(String.raw`\1\2`, s);
  s = PERIOD_NOT_BEFORE_DIGIT.sub(String.raw` \1`, s);
  s = removeSymbolsAndDiacritics(s, ".%$¢€£");
  s = normalizeEnglishNumbers(s);
  s = normalizeEnglishSpellings(s, spellings);
  s = SYMBOL_NOT_BEFORE_DIGIT.sub(String.raw` \1`, s);
  s = PERCENT_NOT_AFTER_DIGIT.sub(String.raw`\1 `, s);
  return WHITESPACE_RUN.sub(" ", s);
}
