// Candidate answers in a text, in math-verify 0.8.0's order. Patterns carry a priority (0 "final answer is … I
// hope", 50 "final answer … is" and \boxed{}, 100/200 after the word "answer", 300 anywhere); within the best
// priority that matches, matches are tried from the rightmost end, and the first that parses wins. The string
// of the first match tried is kept as a fallback candidate.
import { spend } from "./budget.ts";
import { finiteSet, integer, numberFromString, percentOf, type Expr } from "./expr.ts";
import { parseLatexWithFallback } from "./latex.ts";
import { normalizeLatex } from "./normalize.ts";
import { parsePlainExpression } from "./plain.ts";

export type ExtractionKind = "latex" | "expr";

/** A parsed answer, or the string of one that did not parse. */
export type Candidate = Expr | string;

interface Pattern {
  regex: RegExp;
  priority: number;
  kind: ExtractionKind;
  /** A \\boxed{} pattern, whose priority LatexExtractionConfig.boxed_match_priority sets (default 50). */
  boxed?: boolean;
}

/** Python's `(?i:word)` (JS has no inline flags in Node 20). */
const ci = (word: string) => word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
/** Python's `$` without MULTILINE: the end, or before a final newline. */
const END = "(?=\\n?$)";

function exprPatterns(): Pattern[] {
  const number =
    "(?<!\\d)(?:" +
    "(?<integer1>-?[1-9]\\d{0,2}(?:[ ,]\\d{3})+)(?<decimal1>\\.\\d+)?|" +
    "(?<integer2>-?\\d+)(?<decimal2>[.,]\\d+)|" +
    "(?<decimal3>\\.\\d+)|" +
    "(?<integer3>-?\\d+)" +
    ")(?<percent>\\s*(?:%|[Pp]ercent|\\s*[Pp]ercentage|\\s*[Pp]ct))?";
  const operators = "\\+\\-\\*\\×\\/\\^\\(\\)\\÷";
  const exprChars = `[\\d\\.\\s${operators}]`;
  const expr = `(?<expr>-?\\(?-?\\d${exprChars}*[${operators}]${exprChars}+\\)?)`;
  const currency = "[$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₩₪₫₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿]";
  const prefix = "(?:^|\\s|=)(?:\\*\\*)?";
  const suffix = `(?:\\*\\*)?(?:\\.|,|:|\\s|\\)|\\$|${END})`;
  const exprWithAnchors = `(?:${prefix}${expr}${suffix})`;
  const numberWithAnchors = `(?:${prefix}${currency}?${number})`;
  const exprOrNumber = `(?:${exprWithAnchors}|${numberWithAnchors})`;
  const answer = ci("answer");
  return [
    [`${ci("final answer is")}:?\\s*${exprOrNumber}\\.?\\s?I hope`, 0],
    [`${ci("final answer")}.{0,100}?\\s+is:?${exprOrNumber}`, 50],
    [`${answer}:(?:.{0,100}=\\s*|.{0,50}?)${exprOrNumber}(?!\\s*=)`, 100],
    [`${answer}(?:.{0,100}=\\s*|.{0,50}?)${exprOrNumber}(?!\\s*=)`, 200],
    [exprWithAnchors, 300],
    [numberWithAnchors, 300],
  ].map(([source, priority]) => ({ regex: new RegExp(source as string, "g"), priority: priority as number, kind: "expr" }));
}

function latexEnvironment(prefix: string, context: "boxed" | "plain"): string {
  const percent = `(?<${prefix}percent>(?:\\\\?%|[Pp]ercent|[Pp]ercentage|[Pp]ct))`;
  let displayDollar = "(?:[^$]|\\$(?!\\$))";
  let displayBracket = "(?:[^\\\\]|\\\\(?!\\]))";
  let inlineDollar = "(?:\\\\[$]|[^\\n$])";
  let inlineParenthesis = "(?:[^\\\\\\n]|\\\\(?!\\)))";
  let inlineBracket = "[^\\n\\]\\[]";
  // Upstream's `C*?\\boxed{C+?}C*?` backtracks cubically on an unclosed environment. The span it matches is
  // the whole environment (C cannot contain the closing delimiter) provided the first \\boxed{ is followed by
  // a "}"; the atomic lookahead checks that once, and `C*` takes the span.
  const around = (content: string) => `(?=(?:(?!\\\\boxed\\{)${content})*\\\\boxed\\{${content}+?\\})${content}*`;
  if (context === "boxed") [displayDollar, displayBracket, inlineDollar, inlineParenthesis, inlineBracket] = [displayDollar, displayBracket, inlineDollar, inlineParenthesis, inlineBracket].map(around) as [string, string, string, string, string];
  else [displayDollar, displayBracket, inlineDollar, inlineParenthesis, inlineBracket] = [displayDollar, displayBracket, inlineDollar, inlineParenthesis, inlineBracket].map((c) => `${c}+?`) as [string, string, string, string, string];
  const patterns = [
    `(?<!\\\\)\\$\\$(?<${prefix}latexDisplayDollar>${displayDollar})(?<!\\\\)\\$\\$`,
    `(?<!\\\\)\\\\\\[(?<${prefix}latexDisplayBracket>${displayBracket})(?<!\\\\)\\\\\\]`,
    `(?<!\\\\|\\d)\\$(?<${prefix}latexInlineDollar>${inlineDollar})(?<!\\\\)\\$`,
    `(?<!\\\\)\\\\\\((?<${prefix}latexInlineParenthesis>${inlineParenthesis})(?<!\\\\)\\\\\\)`,
    `\\s\\[(?<${prefix}latexInlineBracket>${inlineBracket})\\]\\s`,
  ];
  if (context === "plain") {
    const simpleNumber = "-?\\d+(?:[.,]\\d+)?";
    patterns.push(`(?<${prefix}latexFraction>-?\\\\frac\\{${simpleNumber}\\}\\{${simpleNumber}\\})`);
  }
  return `(?:(?:${patterns.join("|")})\\s*${percent}?)`;
}

function latexPatterns(): Pattern[] {
  const next = (context: "boxed" | "plain", lead: string) =>
    [1, 2, 3, 4, 5].map((i) => `${lead}(?:\\s*(?:,?and|,?or|,)\\s*${latexEnvironment(`next${i}_`, context)})?`).join("");
  const environments = `(?:${latexEnvironment("first_", "plain")}${next("plain", "")})`;
  const answer = ci("answer");
  const boxedEnvironments = `${latexEnvironment("first_", "boxed")}${next("boxed", "\\s*")}`;
  return [
    [`${ci("final answer is")}:?\\s*${environments}\\.?\\s?I hope`, 0],
    [`${ci("final answer")}.{0,100}?\\s+is:?\\s*${environments}`, 50],
    [`${answer}:.{0,50}?${environments}`, 100],
    [`${answer}.{0,50}?${environments}`, 200],
    [environments, 300],
    [boxedEnvironments, -1],
    ["(?<first_latexBoxed>\\\\boxed\\{.+\\})", -1],
  ].map(([source, priority]) => ({ regex: new RegExp(source as string, "gs"), priority: priority as number, kind: "latex", boxed: priority === -1 }));
}

const PATTERNS: Record<ExtractionKind, Pattern[]> = { expr: exprPatterns(), latex: latexPatterns() };

type Groups = Record<string, string | undefined>;

/** A number or plain expression match → (value or null, its string). */
function extractExpr(groups: Groups): [Expr | null, string] {
  const pick = (prefix: string) => Object.entries(groups).find(([name, value]) => name.startsWith(prefix) && value)?.[1] ?? "";
  let whole = pick("integer");
  let decimal = pick("decimal");
  if (whole || decimal) {
    whole = whole.replace(/[, ]/g, "").replace(/^0+/, "") || "0";
    decimal = decimal.replace(",", ".");
    const text = `${whole}${decimal}`;
    const value = /^-?\d+$/.test(text) ? integer(BigInt(text)) : numberFromString(text);
    return [groups.percent ? percentOf(value) : value, text];
  }
  const expr = groups.expr ?? "";
  if (expr) {
    try {
      return [parsePlainExpression(expr.replaceAll("\n", " ").replaceAll("^", "**")), expr];
    } catch {
      // parse_expr failed: only the string remains.
    }
  }
  return [null, expr];
}

/** A LaTeX match: each environment normalised and parsed; several (joined by "and", ",") make one set. */
function extractLatex(groups: Groups): [Expr | null, string] {
  const found: [string, string][] = [];
  for (const prefix of ["first_", "next1_", "next2_", "next3_", "next4_", "next5_"]) {
    const entry = Object.entries(groups).find(([name, value]) => name.startsWith(`${prefix}latex`) && value);
    if (entry) found.push(entry as [string, string]);
  }
  const values: (Expr | null)[] = [];
  const strings: string[] = [];
  for (const [name, latex] of found) {
    const prefix = name.split("_")[0]!;
    const normalized = normalizeLatex(latex, name.endsWith("latexBoxed") ? "last" : "all");
    strings.push(normalized);
    try {
      const value = parseLatexWithFallback(normalized);
      values.push(groups[`${prefix}_percent`] ? percentOf(value) : value);
    } catch (error) {
      if ((error as Error).name === "MathWorkLimitError") throw error;
      values.push(null);
    }
  }
  if (values.length === 0) return [null, ""];
  if (values.length > 1 && values.every((v) => v !== null)) {
    const items = (values as Expr[]).flatMap((v) => (v.kind === "set" ? v.items : [v]));
    return [finiteSet(items), strings.join(" and ")];
  }
  return [values[0]!, strings[0]!];
}

/**
 * math-verify's `parse(text, configs)` with fallback_mode "first_match": the first parsed candidate of the best
 * priority, then the string of the first match tried. Empty when nothing matches.
 */
export function extractCandidates(text: string, kinds: ExtractionKind[], { boxedPriority = 50 } = {}): Candidate[] {
  const patterns = kinds
    .flatMap((kind) => PATTERNS[kind])
    .map((p) => (p.boxed ? { ...p, priority: boxedPriority } : p))
    .sort((a, b) => a.priority - b.priority);
  const priorities = [...new Set(patterns.map((p) => p.priority))];
  const parsed: Expr[] = [];
  const fallbacks: string[] = [];
  for (const priority of priorities) {
    const matches: { groups: Groups; start: number; end: number; kind: ExtractionKind }[] = [];
    for (const pattern of patterns.filter((p) => p.priority === priority)) {
      for (const match of text.matchAll(pattern.regex)) {
        spend(16);
        matches.push({ groups: match.groups ?? {}, start: match.index, end: match.index + match[0].length, kind: pattern.kind });
      }
    }
    matches.sort((a, b) => b.end - a.end || a.start - b.start);
    for (const match of matches) {
      const [value, string] = match.kind === "latex" ? extractLatex(match.groups) : extractExpr(match.groups);
      if (string) fallbacks.push(string);
      if (value !== null) {
        parsed.push(value);
        break;
      }
    }
    if (parsed.length > 0) break;
  }
  return fallbacks.length > 0 ? [...parsed, fallbacks[0]!] : parsed;
}
