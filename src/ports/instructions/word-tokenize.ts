// NLTK's `word_tokenize` (English): punkt sentences (punkt.ts), each split by NLTKWordTokenizer — the improved
// Treebank tokenizer, a fixed sequence of regex substitutions that pad punctuation, quotes, brackets and
// contractions with spaces before splitting on whitespace. The substitutions are NLTK's, in NLTK's order.
import { punktSentences } from "./punkt.ts";
import { pythonSub } from "../../python/re/index.ts";
import { splitWhitespace } from "../../python/str.ts";

type Rule = [pattern: string, template: string];

const STARTING_QUOTES: Rule[] = [
  ["([«“‘„]|[`]+)", " \\1 "],
  ['^\\"', "``"],
  ["(``)", " \\1 "],
  ["([ \\(\\[{<])(\\\"|\\'{2})", "\\1 `` "],
  ["(?i)(\\')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "\\1 \\2"],
];
const PUNCTUATION: Rule[] = [
  ["([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*)\\s*$", "\\1 \\2 \\3 "],
  ["([:,])([^\\d])", " \\1 \\2"],
  ["([:,])$", " \\1 "],
  ["\\.{2,}", " \\g<0> "],
  ["[;@#$%&]", " \\g<0> "],
  ["([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$", "\\1 \\2\\3 "],
  ["[?!]", " \\g<0> "],
  ["([^'])' ", "\\1 ' "],
  ["[*]", " \\g<0> "],
];
const PARENS_BRACKETS: Rule = ["[\\]\\[\\(\\)\\{\\}\\<\\>]", " \\g<0> "];
const DOUBLE_DASHES: Rule = ["--", " -- "];
const ENDING_QUOTES: Rule[] = [
  ["([»”’])", " \\1 "],
  ["''", " '' "],
  ['"', " '' "],
  ["([^' ])('[sS]|'[mM]|'[dD]|') ", "\\1 \\2 "],
  ["([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "\\1 \\2 "],
];
const CONTRACTIONS: Rule[] = [
  "(?i)\\b(can)(?#X)(not)\\b",
  "(?i)\\b(d)(?#X)('ye)\\b",
  "(?i)\\b(gim)(?#X)(me)\\b",
  "(?i)\\b(gon)(?#X)(na)\\b",
  "(?i)\\b(got)(?#X)(ta)\\b",
  "(?i)\\b(lem)(?#X)(me)\\b",
  "(?i)\\b(more)(?#X)('n)\\b",
  "(?i)\\b(wan)(?#X)(na)(?=\\s)",
  "(?i) ('t)(?#X)(is)\\b",
  "(?i) ('t)(?#X)(was)\\b",
].map((pattern) => [pattern, " \\1 \\2 "]);

/** `re.sub(pattern, template, text)`. */
const apply = (text: string, [pattern, template]: Rule) => pythonSub(pattern, template, text);

/** `NLTKWordTokenizer().tokenize(sentence)`. */
export function treebankTokenize(sentence: string): string[] {
  let text = STARTING_QUOTES.reduce(apply, sentence);
  text = PUNCTUATION.reduce(apply, text);
  text = apply(text, PARENS_BRACKETS);
  text = apply(text, DOUBLE_DASHES);
  text = ENDING_QUOTES.reduce(apply, ` ${text} `);
  text = CONTRACTIONS.reduce(apply, text);
  return splitWhitespace(text);
}

/** `nltk.word_tokenize(text)`. */
export const wordTokenize = (text: string): string[] => punktSentences(text).flatMap(treebankTokenize);
