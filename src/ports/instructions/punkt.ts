// NLTK's Punkt sentence tokenizer (nltk.tokenize.punkt, 3.8+), as `count_sentences` and `word_tokenize` use it
// with the English model. The algorithm is ported step for step: candidate ends (`.`, `?`, `!` followed by
// punctuation or by whitespace and a token), the context's tokens annotated in two passes (type-based, then
// the abbreviation / initial / number heuristics), and closing quotes and brackets realigned into the
// sentence they close.
//
// The English model's learned parameters are not shipped with this project, so they are approximated:
// ABBREVIATIONS holds common English abbreviations the model knows; the orthographic context knows only that
// the frequent function words in SENTENCE_STARTERS are lower-case inside sentences and capitalised at their
// start; there are no collocations. Text without abbreviations, initials or numbers before a period splits
// exactly as NLTK splits it.
import { compilePythonRegex, pythonFindall, type PythonMatch, pythonSearch } from "../../python/re/index.ts";
import { isLower, isUpper, pythonRstrip } from "../../python/str.ts";

const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "messrs", "rev", "gen", "gov", "sen", "rep", "col", "lt", "capt", "sgt", "cpl", "maj", "adm", "cmdr",
  "inc", "ltd", "co", "corp", "bros", "assn", "dept", "univ", "vs", "etc", "e.g", "i.e", "cf", "al", "approx", "ca", "fig", "figs", "vol", "vols", "pp", "ed", "eds",
  "u.s", "u.k", "u.n", "u.s.a", "a.m", "p.m", "d.c", "n.y", "l.a", "ph.d", "m.d", "b.a", "m.a", "b.s", "m.s",
  "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed", "thu", "thurs", "fri", "sat", "sun",
  "ave", "blvd", "rd", "mt", "ft", "ariz", "calif", "colo", "conn", "fla", "ill", "ind", "kan", "mass", "mich", "minn", "miss", "nev", "okla", "ore", "pa", "tenn", "tex", "va", "wash", "wis",
]);
const SENTENCE_STARTERS = [
  "the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "you", "i", "his", "her", "their", "our", "my",
  "but", "and", "however", "in", "on", "at", "for", "if", "when", "while", "as", "after", "there", "then", "so", "also", "what", "how", "why",
];

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;
const ORTHO_CONTEXT = new Map(SENTENCE_STARTERS.map((word) => [word, ORTHO_BEG_UC | ORTHO_MID_LC]));
const orthoContext = (type: string) => ORTHO_CONTEXT.get(type) ?? 0;

// PunktLanguageVars' expressions (Python syntax, run through src/python/re/).
const NON_WORD = `(?:[)";}\\]\\*:@'\\({\\[!?])`;
const MULTI_CHAR = "(?:\\-{2,}|\\.{2,}|(?:\\.\\s){2,}\\.)";
const WORD_START = "[^\\(\"\\`{\\[:;&\\#\\*@\\)}\\]\\-,]";
const WORD_TOKEN = `${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`;
const PERIOD_CONTEXT = `[.?!](?=(?P<after_tok>${NON_WORD}|\\s+(?P<next_tok>\\S+)))`;
const BOUNDARY_REALIGNMENT = `["')\\]}]+?(?:\\s+|(?=--)|$)`;
const ASCII_WHITESPACE = " \t\n\r\v\f";
// `[^\W\d]\.$`: a letter (word character but not a decimal digit) and a period.
const INITIAL = /^[\p{L}\p{Nl}\p{No}_]\.$/u;

class Token {
  readonly type: string;
  readonly periodFinal: boolean;
  sentbreak = false;
  abbr = false;
  ellipsis = false;

  constructor(readonly tok: string) {
    this.type = pythonSearch("^-?[\\.,]?\\d[\\d,\\.-]*\\.?$", tok.toLowerCase()) !== undefined ? "##number##" : tok.toLowerCase();
    this.periodFinal = tok.endsWith(".");
  }

  get typeNoPeriod(): string {
    return this.type.length > 1 && this.type.endsWith(".") ? this.type.slice(0, -1) : this.type;
  }
  get typeNoSentPeriod(): string {
    return this.sentbreak ? this.typeNoPeriod : this.type;
  }
  get firstUpper(): boolean {
    return isUpper(String.fromCodePoint(this.tok.codePointAt(0)!));
  }
  get firstLower(): boolean {
    return isLower(String.fromCodePoint(this.tok.codePointAt(0)!));
  }
  get isEllipsis(): boolean {
    return pythonSearch("^\\.\\.+$", this.tok) !== undefined;
  }
  get isInitial(): boolean {
    return INITIAL.test(this.tok);
  }
}

/** `_tokenize_words`: the punkt word tokens of each non-blank line. */
function tokenizeWords(text: string): Token[] {
  return text.split("\n").flatMap((line) => (pythonRstrip(line) === "" ? [] : pythonFindall<string>(WORD_TOKEN, line).map((tok) => new Token(tok))));
}

function firstPass(token: Token): void {
  const tok = token.tok;
  if (tok === "." || tok === "?" || tok === "!") token.sentbreak = true;
  else if (token.isEllipsis) token.ellipsis = true;
  else if (token.periodFinal && !tok.endsWith("..")) {
    const word = tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(word) || ABBREVIATIONS.has(word.split("-").at(-1)!)) token.abbr = true;
    else token.sentbreak = true;
  }
}

/** `_ortho_heuristic`: true (starts a sentence), false (does not), or "unknown". */
function orthoHeuristic(token: Token): boolean | "unknown" {
  if (";:,.!?".includes(token.tok)) return false;
  const context = orthoContext(token.typeNoSentPeriod);
  if (token.firstUpper && context & ORTHO_LC && !(context & ORTHO_MID_UC)) return true;
  if (token.firstLower && (context & ORTHO_UC || !(context & ORTHO_BEG_LC))) return false;
  return "unknown";
}

/** `_second_pass_annotation`: reclassifies a period-final token from the token after it. */
function secondPass(token: Token, next: Token): void {
  if (!token.periodFinal) return;
  const type = token.typeNoPeriod;
  const isInitial = token.isInitial;
  if ((token.abbr || token.ellipsis) && !isInitial && orthoHeuristic(next) === true) {
    token.sentbreak = true;
    return;
  }
  if (isInitial || type === "##number##") {
    const startsSentence = orthoHeuristic(next);
    if (startsSentence === false) {
      token.sentbreak = false;
      token.abbr = true;
      return;
    }
    if (startsSentence === "unknown" && isInitial && next.firstUpper && !(orthoContext(next.typeNoSentPeriod) & ORTHO_LC)) {
      token.sentbreak = false;
      token.abbr = true;
    }
  }
}

/** `text_contains_sentbreak`: a token other than the last one ends a sentence. */
function containsSentenceBreak(text: string): boolean {
  const tokens = tokenizeWords(text);
  tokens.forEach(firstPass);
  for (let i = 0; i + 1 < tokens.length; i++) {
    secondPass(tokens[i]!, tokens[i + 1]!);
    if (tokens[i]!.sentbreak) return true;
  }
  return false;
}

function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.includes(text[i]!)) return i;
  return 0;
}

interface Slice {
  start: number;
  stop: number;
}

/** `_match_potential_end_contexts` + `_slices_from_text`. */
function sliceSentences(text: string): Slice[] {
  const slices: Slice[] = [];
  let lastBreak = 0;
  const decide = (match: PythonMatch, previous: Slice) => {
    const context = text.slice(previous.start, previous.stop) + match.groups[0]! + match.named.after_tok!;
    if (!containsSentenceBreak(context)) return;
    const end = match.end;
    slices.push({ start: lastBreak, stop: end });
    const nextToken = match.named.next_tok;
    lastBreak = nextToken ? end + match.named.after_tok!.indexOf(nextToken) : end;
  };
  let previousSlice: Slice = { start: 0, stop: 0 };
  let previousMatch: PythonMatch | undefined;
  for (const match of compilePythonRegex(PERIOD_CONTEXT).finditer(text)) {
    const before = text.slice(previousSlice.stop, match.start);
    let wordStart = lastWhitespaceIndex(before);
    wordStart = wordStart ? wordStart + previousSlice.stop + 1 : previousSlice.start;
    const wordSlice = { start: wordStart, stop: match.start };
    if (previousMatch && previousSlice.stop <= wordSlice.start) decide(previousMatch, previousSlice);
    previousMatch = match;
    previousSlice = wordSlice;
  }
  if (previousMatch) decide(previousMatch, previousSlice);
  slices.push({ start: lastBreak, stop: pythonRstrip(text).length });
  return slices;
}

/** `_realign_boundaries`: closing quotes/brackets after a break belong to the sentence before it. */
function realign(text: string, slices: Slice[]): Slice[] {
  const out: Slice[] = [];
  let shift = 0;
  for (let i = 0; i < slices.length; i++) {
    const sentence = { start: slices[i]!.start + shift, stop: slices[i]!.stop };
    const next = slices[i + 1];
    const nonEmpty = sentence.stop > sentence.start;
    if (!next) {
      if (nonEmpty) out.push(sentence);
      continue;
    }
    // `re_boundary_realignment.match(…)`: anchored at the start of the next sentence.
    const match = compilePythonRegex(BOUNDARY_REALIGNMENT, { multiline: true }).match(text.slice(next.start, next.stop));
    if (match) {
      out.push({ start: sentence.start, stop: next.start + pythonRstrip(match.groups[0]!).length });
      shift = match.groups[0]!.length;
    } else {
      shift = 0;
      if (nonEmpty) out.push(sentence);
    }
  }
  return out;
}

/** `PunktSentenceTokenizer.tokenize(text)` with the approximated English parameters. */
export function punktSentences(text: string): string[] {
  return realign(text, sliceSentences(text)).map(({ start, stop }) => text.slice(start, stop));
}
