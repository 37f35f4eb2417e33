// length_constraints:* — sentences (NLTK punkt), paragraphs (`***` or blank lines), words (`\w+` runs).
import { compare, instruction, InstructionError, num, randint, RandomWordError, relation, str, threshold } from "../instruction.ts";
import { codePoints, pythonLstrip, splitWhitespace, pythonStrip } from "../../../python/str.ts";
import { countSentences, countWords } from "../text.ts";
import { countParagraphs, splitOnBlankLines, splitOnDividers } from "./paragraphs.ts";

/** "less than" / "at least" `num_sentences` sentences (NumberOfSentences). */
export const numberSentences = instruction(["num_sentences", "relation"], (kwargs) => {
  const limit = threshold(kwargs.num_sentences, "num_sentences", 1, 20);
  const rel = relation(kwargs.relation);
  return (response) => compare(countSentences(response), rel, limit);
});

/** Exactly `num_paragraphs` paragraphs separated by `***` (ParagraphChecker). */
export const numberParagraphs = instruction(["num_paragraphs"], (kwargs) => {
  const expected = threshold(kwargs.num_paragraphs, "num_paragraphs", 1, 5);
  return (response) => countParagraphs(splitOnDividers(response)) === expected;
});

/** "less than" / "at least" `num_words` words (NumberOfWords). */
export const numberWords = instruction(["num_words", "relation"], (kwargs) => {
  const limit = threshold(kwargs.num_words, "num_words", 100, 500);
  const rel = relation(kwargs.relation);
  return (response) => compare(countWords(response), rel, limit);
});

const FIRST_WORD_PUNCTUATION = new Set([".", ",", "?", "!", "'", '"']);

/**
 * Exactly `num_paragraphs` blank-line-separated paragraphs, the `nth_paragraph`-th starting with `first_word`
 * (ParagraphFirstWordCheck): the first word is read up to its first `.,?!'"`, after leading quotes.
 */
export const nthParagraphFirstWord = instruction(["num_paragraphs", "nth_paragraph", "first_word"], (kwargs) => {
  const expected = threshold(kwargs.num_paragraphs, "num_paragraphs", 1, 5);
  let nth = kwargs.nth_paragraph === undefined ? undefined : num(kwargs.nth_paragraph, "nth_paragraph");
  if (nth === undefined || nth <= 0 || nth > expected) nth = randint(1, expected + 1);
  if (kwargs.first_word === undefined) throw new RandomWordError("first_word");
  const firstWord = str(kwargs.first_word, "first_word").toLowerCase();
  const index = nth;
  return (response) => {
    const paragraphs = splitOnBlankLines(response);
    const count = paragraphs.length - paragraphs.filter((paragraph) => pythonStrip(paragraph) === "").length;
    if (index > count) return false;
    if (!Number.isInteger(index)) throw new InstructionError("list indices must be integers");
    const paragraph = pythonStrip(paragraphs[index - 1]!);
    if (paragraph === "") return false;
    const word = pythonLstrip(pythonLstrip(pythonStrip(splitWhitespace(paragraph)[0]!), "'"), '"');
    let first = "";
    for (const letter of codePoints(word)) {
      if (FIRST_WORD_PUNCTUATION.has(letter)) break;
      first += letter.toLowerCase();
    }
    return count === expected && first === firstWord;
  };
});
