// words:* — letters, vowels and lengths of words, repeats, first and last words, and keywords at given positions.
import { countOrRandom, InstructionError, RandomWordError, str, threshold, truthy } from "../../instructions/instruction.ts";
import { splitIntoSentences } from "../../instructions/text.ts";
import { keywordAtPosition } from "../../instructions/checkers/keywords.ts";
import { wordTokenize } from "../../instructions/word-tokenize.ts";
import { codePoints, pythonLower, pythonLstrip, pythonRstrip, pythonStrip, reversed, splitWhitespace } from "../../../python/str.ts";
import { instruction, noArgs } from "../instruction.ts";
import { firstChar, PUNCTUATION_AND_SPACE, removePunctuation, stripPunctuation } from "../text.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz";

/** Each word starts with the letter after the previous word's, z wrapping to a (AlphabetLoopChecker). */
export const alphabet = noArgs((response) => {
  const words = splitWhitespace(stripPunctuation(removePunctuation(response)));
  if (words.length === 0) return false;
  // `words[0][0].lower() not in alphabet` is a substring test: lower-casing may lengthen the character.
  let letter = pythonLower(firstChar(words[0]!));
  if (!ALPHABET.includes(letter)) return false;
  for (const raw of words.slice(1)) {
    const word = pythonLower(stripPunctuation(raw));
    if (word === "") continue;
    letter = ALPHABET[(ALPHABET.indexOf(letter) + 1) % 26]!;
    if (firstChar(word) !== letter) return false;
  }
  return true;
});

/** One line, using at most three of the vowels a e i o u (SingleVowelParagraphChecker). */
export const vowel = noArgs((response) => {
  const paragraphs = pythonStrip(response).split("\n");
  if (paragraphs.length !== 1) return false;
  return new Set(codePoints(pythonLower(paragraphs[0]!)).filter((ch) => "aeiou".includes(ch))).size <= 3;
});

const CONSONANTS = new Set("bcdfghjklmnpqrstvwxyz");

/** Every whitespace word has two adjacent consonants (ConsonantClusterChecker). */
export const consonants = noArgs((response) =>
  splitWhitespace(pythonStrip(pythonLower(response))).every((word) => {
    const chars = codePoints(word);
    return chars.some((ch, i) => i + 1 < chars.length && CONSONANTS.has(ch) && CONSONANTS.has(chars[i + 1]!));
  }),
);

/** At least 10 words (punctuation removed, lower-cased) that are palindromes of 5+ characters (PalindromeChecker). */
export const palindrome = noArgs(
  (response) => splitWhitespace(pythonLower(removePunctuation(response))).filter((word) => word === reversed(word) && codePoints(word).length >= 5).length >= 10,
);

const PRIMES = new Set([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]);

/** Every word (punctuation removed) has a prime length up to 97 (PrimeLengthsChecker). */
export const primeLengths = noArgs((response) => splitWhitespace(removePunctuation(response)).every((word) => PRIMES.has(codePoints(word).length)));

/** No lower-cased word (punctuation removed) occurs more than small_n times (LimitedWordRepeatChecker). */
export const repeats = instruction(["small_n"], (kwargs) => {
  const most = threshold(kwargs.small_n, "small_n", 1, 5);
  return (response) => {
    const counts = new Map<string, number>();
    for (const word of splitWhitespace(removePunctuation(pythonLower(response)))) counts.set(word, (counts.get(word) ?? 0) + 1);
    return [...counts.values()].every((count) => count <= most);
  };
});

/** Each sentence starts with the word the previous one ended with, case-insensitively (LastWordFirstNextChecker). */
export const lastFirst = noArgs((response) => {
  const sentences = splitIntoSentences(response);
  for (let i = 0; i + 1 < sentences.length; i++) {
    const last = splitWhitespace(pythonRstrip(sentences[i]!, PUNCTUATION_AND_SPACE)).at(-1);
    const first = splitWhitespace(pythonLstrip(sentences[i + 1]!, PUNCTUATION_AND_SPACE))[0];
    if (last === undefined || first === undefined) throw new InstructionError("list index out of range");
    if (pythonLower(last) !== pythonLower(first)) return false;
  }
  return true;
});

/** Each non-empty line starts and ends with the same (lower-cased) word (ParagraphLastFirstWordMatchChecker). */
export const paragraphLastFirst = noArgs((response) =>
  response.split("\n").every((line) => {
    const paragraph = pythonLower(pythonStrip(line));
    if (paragraph === "") return true;
    const words = splitWhitespace(stripPunctuation(paragraph));
    return words.length === 0 || words[0] === words.at(-1);
  }),
);

/** No two consecutive words (lower-cased, punctuation removed) share their first letter (NoConsecutiveFirstLetterChecker). */
export const noConsecutive = noArgs((response) => {
  const words = splitWhitespace(removePunctuation(pythonLower(response)));
  return words.every((word, i) => i + 1 >= words.length || firstChar(word) !== firstChar(words[i + 1]!));
});

/** A keyword argument: stripped, or drawn from the library's (unported) word list when missing. */
function keywordArg(value: unknown, drawWhen: (value: unknown) => boolean): string {
  if (drawWhen(value)) throw new RandomWordError("keyword");
  return pythonStrip(str(value, "keyword"));
}

/**
 * The m-th word_tokenize token of the n-th sentence is the keyword, exactly (KeywordSpecificPositionChecker). A falsy
 * n or m is drawn at random as the library draws it.
 */
export const keywordsSpecificPosition = instruction(["keyword", "n", "m"], (kwargs) => {
  const keyword = keywordArg(kwargs.keyword, (value) => !truthy(value));
  return keywordAtPosition(keyword, countOrRandom(kwargs.n, "n", 20, 30), countOrRandom(kwargs.m, "m", 30, 40));
});

/** The second and the second-to-last word_tokenize tokens are both the keyword (WordsPositionChecker). */
export const wordsPosition = instruction(["keyword"], (kwargs) => {
  const keyword = keywordArg(kwargs.keyword, (value) => value === undefined);
  return (response) => {
    const words = wordTokenize(response);
    return words.length >= 2 && words[1] === words.at(-2) && words[1] === keyword;
  };
});

