// keywords:* — keywords are Python regular expressions searched case-insensitively (as the library does).
import { choice, compare, countOrRandom, instruction, InstructionError, iterate, pyIndex, RandomWordError, relation, str, threshold, truthy } from "../instruction.ts";
import { pythonFindall, pythonSearch } from "../../../python/re/index.ts";
import { codePoints, reversed, splitWhitespace, pythonStrip } from "../../../python/str.ts";
import { splitIntoSentences } from "../text.ts";
import { wordTokenize } from "../word-tokenize.ts";

const occurrences = (keyword: string, response: string) => pythonFindall(keyword, response, { ignoreCase: true }).length;

/** A keyword argument the library strips, or draws at random from its word list when falsy. */
function keywordArg(value: unknown, name = "keyword"): string {
  if (!truthy(value)) throw new RandomWordError(name);
  return pythonStrip(str(value, name));
}

/** Every keyword appears (KeywordChecker). */
export const existence = instruction(["keywords"], ({ keywords }) => {
  if (!truthy(keywords)) throw new RandomWordError("keywords");
  const patterns = iterate(keywords, "keywords").map((keyword) => str(keyword, "keyword"));
  return (response) => patterns.every((keyword) => pythonSearch(keyword, response, { ignoreCase: true }) !== undefined);
});

/** The keyword appears "less than" / "at least" `frequency` times (KeywordFrequencyChecker). */
export const frequency = instruction(["keyword", "frequency", "relation"], (kwargs) => {
  const keyword = keywordArg(kwargs.keyword);
  const times = threshold(kwargs.frequency, "frequency", 1, 3);
  const rel = relation(kwargs.relation);
  return (response) => compare(occurrences(keyword, response), rel, times);
});

/** None of the words appears as a whole word (ForbiddenWords). */
export const forbiddenWords = instruction(["forbidden_words"], ({ forbidden_words }) => {
  if (!truthy(forbidden_words)) throw new RandomWordError("forbidden_words");
  const words = iterate(forbidden_words, "forbidden_words").map((word) => str(word, "forbidden word"));
  return (response) => !words.some((word) => pythonSearch(`\\b${word}\\b`, response, { ignoreCase: true }) !== undefined);
});

/** The (case-folded) letter appears "less than" / "at least" `let_frequency` times (LetterFrequencyChecker). */
export const letterFrequency = instruction(["letter", "let_frequency", "let_relation"], (kwargs) => {
  const letter = letterArg(kwargs.letter);
  const times = threshold(kwargs.let_frequency, "let_frequency", 1, 10);
  const rel = relation(kwargs.let_relation);
  return (response) => compare(codePoints(response.toLowerCase()).filter((ch) => ch === letter).length, rel, times);
});

// One ASCII letter, else a random one; the library computes ord() of the lower-cased value, which raises when
// lower-casing makes it longer than one character.
function letterArg(value: unknown): string {
  if (!truthy(value)) return choice([..."abcdefghijklmnopqrstuvwxyz"]);
  if (typeof value !== "string") throw new InstructionError(`letter must be a string, got ${JSON.stringify(value)}`);
  if (codePoints(value).length > 1) return choice([..."abcdefghijklmnopqrstuvwxyz"]);
  const lower = value.toLowerCase();
  if (codePoints(lower).length !== 1) throw new InstructionError("ord() expected a character");
  const code = lower.codePointAt(0)!;
  return code < 97 || code > 122 ? choice([..."abcdefghijklmnopqrstuvwxyz"]) : pythonStrip(value).toLowerCase();
}

/** No two adjacent words start with consecutive letters (AdjacentLetterChecker). */
export const noAdjacentConsecutive = instruction([], () => (response) => {
  const words = splitWhitespace(response);
  for (let i = 0; i + 1 < words.length; i++) {
    const first = String.fromCodePoint(words[i]!.codePointAt(0)!).toLowerCase();
    const second = String.fromCodePoint(words[i + 1]!.codePointAt(0)!).toLowerCase();
    if (codePoints(first).length !== 1 || codePoints(second).length !== 1) return false;
    if (second.codePointAt(0)! - first.codePointAt(0)! === 1) return false;
  }
  return true;
});

/** The keyword appears exactly once (KeywordFrequencyOnceChecker). */
export const wordOnce = instruction(["keyword"], (kwargs) => {
  const keyword = keywordArg(kwargs.keyword);
  return (response) => occurrences(keyword, response) === 1;
});

/** Same rule as keywords:frequency (KeywordFrequencyCheckerDifferent). */
export const wordCountDifferentNumbers = frequency;

/** The keyword does not appear between two spaces (ExcludeWordHarderChecker). */
export const excludeWordHarder = instruction(["keyword", "instruction"], (kwargs) => {
  const keyword = truthy(kwargs.keyword) ? pythonStrip(str(kwargs.keyword, "keyword")) : choice(splitWhitespace(str(kwargs.instruction, "instruction")));
  return (response) => !response.includes(` ${keyword} `);
});

/** Some whitespace-separated word reads the same reversed (PalindromeBasicChecker). */
export const palindrome = instruction([], () => (response) => splitWhitespace(response).some((word) => word === reversed(word)));

/** Whether the n-th sentence's m-th NLTK word token is `keyword` (both 1-based): IFEval's and IFBench's check. */
export const keywordAtPosition =
  (keyword: string, n: number, m: number) =>
  (response: string): boolean => {
    const sentences = splitIntoSentences(response);
    if (sentences.length < n) return false;
    const words = wordTokenize(pyIndex(sentences, n - 1));
    if (words.length < m) return false;
    return pyIndex(words, m - 1) === keyword;
  };

/** The n-th sentence's m-th NLTK word token is the keyword (KeywordSpecificPositionChecker). */
export const keywordSpecificPosition = instruction(["keyword", "n", "m"], (kwargs) => {
  if (!truthy(kwargs.keyword)) throw new RandomWordError("keyword");
  const keyword = typeof kwargs.keyword === "string" ? pythonStrip(kwargs.keyword) : pythonStrip(str(iterate(kwargs.keyword, "keyword")[0], "keyword"));
  return keywordAtPosition(keyword, countOrRandom(kwargs.n, "n", 1, 20), countOrRandom(kwargs.m, "m", 1, 30));
});

/** The first and last NLTK word tokens are the same word, ignoring case (StartEndChecker). */
export const startEnd = instruction([], () => (response) => {
  const words = wordTokenize(response);
  return words.length >= 2 && words[0]!.toLowerCase() === words.at(-1)!.toLowerCase();
});

/** keyword1 appears once and keyword2 twice (CountIncrementWordChecker). */
export const countIncrementWord = instruction(["keyword1", "keyword2"], (kwargs) => {
  // Without a keyword the library stores a one-word *list* and re.findall then raises: never followed.
  const keyword1 = keywordArg(kwargs.keyword1, "keyword1");
  const keyword2 = keywordArg(kwargs.keyword2, "keyword2");
  return (response) => occurrences(keyword1, response) === 1 && occurrences(keyword2, response) === 2;
});
