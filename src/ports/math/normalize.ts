// latex2sympy2_extended's normalize_latex (1.10.2) with math-verify's LatexExtractionConfig defaults
// (basic_latex, units, malformed_operators, nits on; equations off): what the extracted LaTeX looks like before
// parsing, and the string math-verify reports when parsing fails.
import { pythonLstrip, pythonStrip } from "../../python/str.ts";
import { pythonIntBig } from "../../python/numbers.ts";

const LEFT = /\\m?left(\\\{|\{|\\\||\||\[|\(|\\rbracl|\\lgroup|\\lbrace|\\lbrack|\\vert|\\lvert|\\lceil|\\lfloor|\\vert|\\lvert|\\langle|\\llcorner|\\ulcorner)/g;
const RIGHT = /\\m?right(\\\}|\}|\\\||\||\]|\)|\\rbrack|\\rgroup|\\rbrace|\\rbrack|\\vert|\\rvert|\\rceil|\\rfloor|\\vert|\\rvert|\\rangle|\\lrcorner|\\urcorner)/g;

// The unit words latex2sympy strips from the end of an answer ("5 cm" → "5"); order as upstream (the first
// entry is upstream's accidental concatenation "integerpoint").
const UNITS = [
  "integerpoint", "feet", "sue", "digit", "pound", "meal", "edge", "student", "children ticket", "multiple", "east", "degree", "mph", "kmph",
  "ft", "m square", " m east", "sq m", "deg", "mile", "q .", "monkey", "prime", "ratio", "profit of rs", "rd", "o", "gm", "p . m", "lb", "tile",
  "per", "dm", "lt", "gain", "ab", "way", "west", "a .", "b .", "c .", "d .", "e .", "f .", "g .", "h .", "t", "h", "no change", "men", "soldier",
  "pie", "bc", "excess", "st", "inches", "noon", "cent", "by", "gal", "kmh", "c", "acre", "rise", "a . m", "th", "π r 2", "sq", "mark", "l", "toy",
  "coin", "sq . m", "gallon", "° f", "profit", "minw", "yr", "women", "am", "pm", "hr", "cu cm", "square", "v â € ™", "are", "rupee", "rounds",
  "cubic", "cc", "mtr", "s", "ohm", "number", "kmph", "day", "hour", "minute", "min", "second", "man", "woman", "sec", "cube", "mt", "sq inch",
  "mp", "∏ cm ³", "hectare", "more", "sec", "unit", "cu . m", "cm 2", "rs .", "rs", "kg", "g", "month", "km", "m", "cm", "mm", "apple", "liter",
  "loss", "yard", "pure", "year", "increase", "decrease", "d", "less", "Surface", "litre", "pi sq m", "s .", "metre", "meter", "inch",
];
// Upstream joins the words unescaped, so "q ." and friends are regex patterns ('.' any character); kept so.
const UNITS_AT_END = new RegExp(`(\\d|\\}|\\s)\\s*(?:(?:${UNITS.join("|")})(?:s|es)?)\\s*$`);

const TO_REMOVE = /\\mathrm\{th\}|\\!\s*|\\text\s*\{\s*\}|\\\$|\$|(?<!\\)["']|\\displaystyle/g;

const REPLACEMENTS: [RegExp, string][] = [
  [/\\math(?:rm|it|bf)/, "\\text"],
  [/\\text(?:normal|bf|it|rm)/, "\\text"],
  [/\\(?:d|t|c)frac/, "\\frac"],
  [/\s\./, " 0."],
  [/\{\./, "{0."],
  [/~=/, "\\approx"],
  [/\s*\{\s*,\s*\}/, ","],
  [/(?<![a-zA-Z])(,?\s*(?:and|or))(?![a-zA-Z])/, ","],
  [/(,?\s*\\text\{\s*(?:and|or)\s*\})/, ","],
  [/(?<!\\)\\\s/, " "],
  [/infinity/, "\\infty"],
  [/,?(\\ldots)/, " "],
  [/\s*percentage/, "\\%"],
  [/\\text\{percentage\}/, "\\%"],
  [/\s*percent/, "\\%"],
  [/\\text\{percent\}/, "\\%"],
  [/\s*pct/, "\\%"],
  [/\\text\{pct\}/, "\\%"],
  [/((?<!\\)inf(?!inity))/, "\\infty"],
  [/ sqrt/, "\\sqrt"],
];
// One alternation scanned left to right, the first alternative that matches at a position wins (as Python's).
const REPLACE_ALL = new RegExp(REPLACEMENTS.map(([pattern], i) => `(?<r${i}>${pattern.source})`).join("|"), "g");

const PERMUTATION = /\(([a-zA-Z0-9+\-*/\\ ]+?)\)_\{([a-zA-Z0-9+\-*/\\ ]+?)\}/g;
const COMMAND_SLASH = /\\\\(?=[a-zA-Z])/g;
const UNIT_TEXT_AT_END = /(\\(?:text|mbox)\{.*?\})(\^\d|\{\^\d\})?$/;

const MALFORMED_OPERATORS: [RegExp, string][] = [
  [/\^\s?\((.*?)\)/g, "^{$1}"],
  [/sqrt\s?\((.*?)\)/g, "\\sqrt{$1}"],
  [/\\frac\s?(\d)\s?(\d+)/g, "\\frac{$1}{$2}"],
  [/\\log_\s?(\d)\s?(\d+)/g, "\\log_{$1}{$2}"],
  [/\\frac\s?\{(.*?)\}\s?(\d)/g, "\\frac{$1}{$2}"],
  [/\\frac\s?(\d)\s?\{(.*?)\}/g, "\\frac{$1}{$2}"],
  [/\\sqrt\s?(\d)/g, "\\sqrt{$1}"],
];

export type BoxedMode = "all" | "last" | "none";

/**
 * The contents of the trailing `\boxed{…}`/`\fbox{…}` (balanced braces), searching right to left. "all" joins
 * every box with commas; "last" keeps earlier boxes only when they sit close by or behind a separator.
 */
export function extractBoxedContent(text: string, mode: "last" | "all" = "last"): string {
  const results: string[] = [];
  let currentPos = text.length;
  let lastBoxedStart: number | null = null;
  let maxPos = text.length;
  let boxed = 0;
  let fbox = 0;
  for (;;) {
    // Once a command is absent before some position it stays absent: skip the rescan (linear, not quadratic).
    if (boxed >= 0) boxed = lastBefore(text, "\\boxed", currentPos);
    if (fbox >= 0) fbox = lastBefore(text, "\\fbox", currentPos);
    if (boxed < 0 && fbox < 0) break;
    const start = Math.max(boxed, fbox);
    let next = start + (boxed > fbox ? 6 : 5);
    while (next < maxPos && /\s/.test(text[next]!)) next++;
    if (next >= maxPos) break;
    if (text[next] !== "{") {
      if (results.length === 0) results.push(text.slice(next));
      break;
    }
    const close = matchingBrace(text, next, maxPos);
    if (close < 0) {
      if (results.length === 0) results.push(text.slice(next));
      break;
    }
    const content = pythonStrip(text.slice(next + 1, close));
    if (mode === "last" && lastBoxedStart !== null) {
      const between = text.slice(close + 1, lastBoxedStart);
      const previous = results.at(-1) ?? "";
      const nearby = between.length < 10 || (previous !== content && between.length < 70 && /and|or|,|;/.test(between));
      if (!nearby) break;
    }
    results.push(content);
    lastBoxedStart = start;
    maxPos = start;
    currentPos = start;
  }
  return results.length === 0 ? text : results.reverse().join(",");
}

/** Python's `text.rfind(needle, 0, end)`: the match must end by `end`. */
function lastBefore(text: string, needle: string, end: number): number {
  const from = end - needle.length;
  return from < 0 ? -1 : text.lastIndexOf(needle, from);
}

function matchingBrace(text: string, open: number, maxPos: number): number {
  let depth = 1;
  for (let i = open + 1; i < maxPos; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

function fixFracs(text: string): string {
  const parts = text.split("\\frac");
  let out = parts[0]!;
  for (let substr of parts.slice(1)) {
    substr = pythonLstrip(substr);
    out += "\\frac";
    if (substr.startsWith("{")) out += substr;
    else if (substr.length < 2) return text;
    else {
      const [a, b] = [substr[0]!, substr[1]!];
      const rest = substr.slice(2);
      out += b !== "{" ? `{${a}}{${b}}${rest}` : `{${a}}${b}${rest}`;
    }
  }
  return out;
}

function fixSlash(text: string): string {
  const parts = text.split("/");
  if (parts.length !== 2) return text;
  const [a, b] = parts as [string, string];
  try {
    const [x, y] = [pythonIntBig(a), pythonIntBig(b)];
    return text === `${x}/${y}` ? `\\frac{${x}}{${y}}` : text;
  } catch {
    return text; // upstream's `except Exception`
  }
}

function fixSqrt(text: string): string {
  if (!text.includes("\\sqrt")) return text;
  const parts = text.split("\\sqrt");
  let out = parts[0]!;
  for (let split of parts.slice(1)) {
    split = pythonLstrip(split);
    out += split.length > 0 && split[0] !== "{" && split[0] !== "[" ? `\\sqrt{${split[0]}}${split.slice(1)}` : `\\sqrt${split}`;
  }
  return out;
}

export function normalizeLatex(input: string, boxed: BoxedMode = "all"): string {
  let text = input;
  if (boxed !== "none") text = extractBoxedContent(text, boxed);

  text = text.replaceAll("\\mathrm{T}", "T").replaceAll("\\mathrm{d}", "d").replaceAll("{\\rm d}", "d");
  text = text.replaceAll("\\left[\\begin{matrix}", "\\begin{bmatrix}").replaceAll("\\end{matrix}\\right]", "\\end{bmatrix}");
  text = text.replace(LEFT, "$1").replace(RIGHT, "$1");
  text = text.replace(PERMUTATION, "\\frac{($1)!}{(($1)-($2))!}");
  text = text.replace(TO_REMOVE, "");
  text = text.replace(REPLACE_ALL, (...args) => {
    const groups = args.at(-1) as Record<string, string | undefined>;
    const index = Object.keys(groups).findIndex((name) => groups[name] !== undefined);
    return REPLACEMENTS[index]![1];
  });
  text = text.replaceAll("\n", " ").replaceAll("\t", " ");
  if (!text.includes("matrix")) text = text.replace(COMMAND_SLASH, "\\");

  // Units: a trailing \text{…} (with a ^2), then up to two trailing unit words.
  const withoutUnitText = pythonStrip(text.replace(UNIT_TEXT_AT_END, ""));
  if (withoutUnitText !== "" && withoutUnitText !== text) text = withoutUnitText;
  for (let i = 0; i < 2; i++) {
    const withoutUnit = text.replace(UNITS_AT_END, "$1");
    if (withoutUnit !== "" && withoutUnit !== text) text = withoutUnit;
  }

  if (text.startsWith(".")) text = "0" + text;
  if (text === "0.5") text = "\\frac{1}{2}";

  for (const [pattern, replacement] of MALFORMED_OPERATORS) text = text.replace(pattern, replacement);
  text = text.replaceAll(" sqrt", "\\sqrt");
  text = fixFracs(fixSqrt(text));
  text = fixSlash(text);
  return pythonStrip(text);
}
