// count:* — word, name, number, pronoun, conjunction and keyword counts, the punctuation cover, and every Nth word
// in Japanese.
import { InstructionError, num, randint, RandomWordError, str, threshold } from "../../instructions/instruction.ts";
import { countWords } from "../../instructions/text.ts";
import { compilePythonRegex } from "../../../python/re/index.ts";
import { isDigit, pythonCount, pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { instruction } from "../instruction.ts";
import { hasJapanese, removePunctuation, stripPunctuation } from "../text.ts";

/** Between min_words and max_words words, both included (WordCountRangeChecker). */
export const wordCountRange = instruction(["min_words", "max_words"], (kwargs) => {
  const minWords = threshold(kwargs.min_words, "min_words", 100, 500);
  const maxWords =
    kwargs.max_words === undefined || num(kwargs.max_words, "max_words") < 0
      ? minWords + randint(Math.trunc(minWords * 0.05), Math.trunc(minWords * 0.1))
      : num(kwargs.max_words, "max_words");
  return (response) => {
    const words = countWords(response);
    return minWords <= words && words <= maxWords;
  };
});

/** At least N distinct lower-cased whitespace words, punctuation stripped (UniqueWordCountChecker). */
export const uniqueWordCount = instruction(["N"], (kwargs) => {
  const n = threshold(kwargs.N, "N", 100, 500);
  return (response) => new Set(splitWhitespace(pythonLower(response)).map(stripPunctuation)).size >= n;
});

const CONJUNCTIONS = new Set(["and", "but", "for", "nor", "or", "so", "yet"]);

/**
 * At least small_n different coordinating conjunctions (ConjunctionCountChecker). The library counts the distinct
 * words as written ("And", "and," and "and" are three), not the conjunctions they stand for.
 */
export const conjunctions = instruction(["small_n"], (kwargs) => {
  const n = threshold(kwargs.small_n, "small_n", 2, 6);
  return (response) => new Set(splitWhitespace(response).filter((word) => CONJUNCTIONS.has(pythonLower(stripPunctuation(word))))).size >= n;
});

const PERSON_NAMES = [
  "Emma", "Liam", "Sophia", "Jackson", "Olivia", "Noah", "Ava", "Lucas", "Isabella", "Mason", "Mia", "Ethan", "Charlotte", "Alexander", "Amelia",
  "Benjamin", "Harper", "Leo", "Zoe", "Daniel", "Chloe", "Samuel", "Lily", "Matthew", "Grace", "Owen", "Abigail", "Gabriel", "Ella", "Jacob",
  "Scarlett", "Nathan", "Victoria", "Elijah", "Layla", "Nicholas", "Audrey", "David", "Hannah", "Christopher", "Penelope", "Thomas", "Nora",
  "Andrew", "Aria", "Joseph", "Claire", "Ryan", "Stella", "Jonathan",
];

/** At least N of the 50 listed names appear, as substrings (PersonNameCountChecker). */
export const personNames = instruction(["N"], (kwargs) => {
  const n = threshold(kwargs.N, "N", 1, 50);
  return (response) => PERSON_NAMES.filter((name) => response.includes(name)).length >= n;
});

const DIGIT_RUN = compilePythonRegex("\\d+");

/** Exactly N runs of digits once punctuation is removed ("3.14" is one number) (NumbersCountChecker). */
export const numbers = instruction(["N"], (kwargs) => {
  const n = threshold(kwargs.N, "N", 1, 6);
  return (response) => DIGIT_RUN.findall(removePunctuation(response)).length === n;
});

const COVERED = [".", ",", "!", "?", ";", ":"];

/** An interrobang (?!, !? or ‽), and each of . , ! ? ; : outside the first ?! / !? (PunctuationCoverChecker). */
export const punctuation = instruction([], () => (response) => {
  if (!(response.includes("!?") || response.includes("?!") || response.includes("‽"))) return false;
  let rest = response.replace("?!", "");
  if (rest.length === response.length) rest = response.replace("!?", "");
  return COVERED.every((mark) => rest.includes(mark));
});

/**
 * Every Nth whitespace word (punctuation stripped; empty and all-digit words pass) has Japanese characters
 * (NthWordJapaneseChecker). The library's description reads N itself, so a missing N is a TypeError.
 */
export const wordsJapanese = instruction(["N"], (kwargs) => {
  if (kwargs.N === undefined) throw new InstructionError("unsupported operand type(s) for %: 'NoneType' and 'int'");
  const position = threshold(kwargs.N, "N", 1, 30);
  return (response) =>
    splitWhitespace(response).every((raw, i) => {
      const word = stripPunctuation(raw);
      if (position === 0) throw new InstructionError("integer division or modulo by zero");
      return (i + 1) % position !== 0 || word === "" || isDigit(word) || hasJapanese(word);
    });
});

const PRONOUNS = new Set([
  "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours", "yourself", "yourselves", "he", "him", "his",
  "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
]);

/** At least N pronouns, "/" read as a space ("she/her") and punctuation removed (PronounCountChecker). */
export const pronouns = instruction(["N"], (kwargs) => {
  const n = threshold(kwargs.N, "N", 1, 25);
  return (response) => splitWhitespace(removePunctuation(pythonLower(response.replaceAll("/", " ")))).filter((word) => PRONOUNS.has(word)).length >= n;
});

const KEYWORD_TIMES = [1, 2, 3, 5, 7];

/**
 * keyword1..keyword5 occur exactly 1, 2, 3, 5 and 7 times, as case-insensitive substrings (KeywordsMultipleChecker).
 * A missing keyword would be drawn from the library's word list, which is not ported.
 */
export const keywordsMultiple = instruction(["keyword1", "keyword2", "keyword3", "keyword4", "keyword5"], (kwargs) => {
  const keywords = KEYWORD_TIMES.map((_, i) => {
    const name = `keyword${i + 1}`;
    if (kwargs[name] === undefined) throw new RandomWordError(name);
    return pythonStrip(str(kwargs[name], name));
  });
  return (response) => {
    const lower = pythonLower(response);
    return keywords.every((keyword, i) => pythonCount(lower, pythonLower(keyword)) === KEYWORD_TIMES[i]);
  };
});
