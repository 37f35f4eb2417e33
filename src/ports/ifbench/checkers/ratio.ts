// ratio:* — stop-word share, sentence-type ratios, character-trigram overlap with a reference text, and three
// sentences of equal length.
import { InstructionError, iterate, threshold } from "../../instructions/instruction.ts";
import { countWords, splitIntoSentences } from "../../instructions/text.ts";
import { compilePythonRegex } from "../../../python/re/index.ts";
import { codePoints, pythonLen, pythonStrip } from "../../../python/str.ts";
import { instruction, noArgs } from "../instruction.ts";
import { isStopword } from "../text.ts";

const WORD_TOKEN = compilePythonRegex("\\w+");

/** Stop words (NLTK's English list) are at most `percentage`% of the \w+ tokens; no token at all raises (StopWordPercentageChecker). */
export const stopWords = instruction(["percentage"], (kwargs) => {
  const percentage = threshold(kwargs.percentage, "percentage", 1, 100);
  return (response) => {
    const words = countWords(response);
    if (words === 0) throw new InstructionError("division by zero");
    const stopwords = WORD_TOKEN.findall<string>(response).filter(isStopword).length;
    return (stopwords / words) * 100 <= percentage;
  };
});

/** How many sentences (instructions_util's splitter) end with each mark. */
function sentenceEnds(response: string) {
  const sentences = splitIntoSentences(response);
  const ending = (mark: string) => sentences.filter((sentence) => sentence.endsWith(mark)).length;
  return { declarative: ending("."), interrogative: ending("?"), exclamatory: ending("!") };
}

/** Twice as many sentences end with "." as with "?" (SentTypeRatioChecker). */
export const sentenceType = noArgs((response) => {
  const { declarative, interrogative } = sentenceEnds(response);
  return declarative === 2 * interrogative;
});

/** As many sentences end with "." as with "?" and with "!" (SentBalanceChecker). */
export const sentenceBalance = noArgs((response) => {
  const { declarative, interrogative, exclamatory } = sentenceEnds(response);
  return declarative === interrogative && interrogative === exclamatory;
});

/** A hashable item's identity in a set of tuples (`1 == 1.0 == True` in Python); lists and dicts are unhashable. */
function itemKey(item: unknown): string {
  if (typeof item === "string") return `s${item}`;
  if (typeof item === "number") return `n${item}`;
  if (typeof item === "boolean") return `n${item ? 1 : 0}`;
  if (item === null) return "None";
  throw new InstructionError("unhashable type");
}

/** `set(nltk.ngrams(sequence, 3))` as keys. */
const trigrams = (items: readonly unknown[]): Set<string> => {
  const keys = items.map(itemKey);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= keys.length; i++) grams.add(JSON.stringify(keys.slice(i, i + 3)));
  return grams;
};

/**
 * The share of the response's character trigrams that occur in reference_text is within ±2 points of `percentage`
 * (NGramOverlapChecker). No reference text, or a response shorter than three characters, raises.
 */
export const overlap = instruction(["reference_text", "percentage"], (kwargs) => {
  const percentage = threshold(kwargs.percentage, "percentage", 1, 100);
  const reference = kwargs.reference_text;
  return (response) => {
    if (reference === undefined) throw new InstructionError("'NoneType' object is not iterable");
    const ours = trigrams(codePoints(response));
    const theirs = trigrams(iterate(reference, "reference_text"));
    if (ours.size === 0) throw new InstructionError("division by zero");
    const shared = [...ours].filter((gram) => theirs.has(gram)).length;
    const percent = (shared / ours.size) * 100;
    return percentage - 2 <= percent && percent <= percentage + 2;
  };
});

/** Exactly three sentences, all of the same length (CharacterCountUniqueWordsChecker: the words are not compared). */
export const sentenceWords = noArgs((response) => {
  const sentences = splitIntoSentences(response);
  if (sentences.length !== 3) return false;
  const length = pythonLen(pythonStrip(sentences[0]!));
  return sentences.every((sentence) => pythonLen(pythonStrip(sentence)) === length);
});
