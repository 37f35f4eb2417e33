// sentence:* — alliteration that grows from sentence to sentence, a keyword in the N-th sentence, and sentence
// lengths that grow by a fixed step. Sentences are instructions_util.split_into_sentences'.
import { InstructionError, num, pyIndex, RandomWordError, str, threshold, truthy } from "../../instructions/instruction.ts";
import { splitIntoSentences } from "../../instructions/text.ts";
import { pythonLower, pythonLstrip, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { instruction, noArgs } from "../instruction.ts";
import { firstChar, PUNCTUATION_AND_SPACE, removePunctuation } from "../text.ts";

/** A sentence's alliteration score: 2 for each run of words sharing a first letter, plus 1 per further word in it. */
function alliteration(sentence: string): number {
  const words = splitWhitespace(pythonLower(sentence))
    .map((word) => pythonLstrip(word, PUNCTUATION_AND_SPACE))
    .filter((word) => word !== "");
  let score = 0;
  let inRun = false;
  for (let i = 0; i + 1 < words.length; i++) {
    if (firstChar(words[i]!) === firstChar(words[i + 1]!)) {
      score += inRun ? 1 : 2;
      inRun = true;
    } else inRun = false;
  }
  return score;
}

/** Each sentence alliterates strictly more than the one before (IncrementingAlliterationChecker). */
export const alliterationIncrement = noArgs((response) => {
  let previous = -1;
  for (const sentence of splitIntoSentences(response)) {
    const score = alliteration(sentence);
    if (score <= previous) return false;
    previous = score;
  }
  return true;
});

/** The N-th sentence contains the word, case-insensitively (IncludeKeywordChecker). */
export const keyword = instruction(["word", "N"], (kwargs) => {
  if (!truthy(kwargs.word)) throw new RandomWordError("word");
  const word = str(kwargs.word, "word");
  const position = threshold(kwargs.N, "N", 1, 20);
  return (response) => {
    const sentences = splitIntoSentences(response);
    if (sentences.length < position) return false;
    return pythonLower(pyIndex(sentences, Math.trunc(num(position, "N") - 1))).includes(pythonLower(word));
  };
});

/** Words of a sentence once punctuation is removed. */
const sentenceWords = (sentence: string) => splitWhitespace(pythonStrip(removePunctuation(sentence)));

/** Each sentence has exactly small_n more words than the one before; no sentence at all raises (IncrementingWordCountChecker). */
export const increment = instruction(["small_n"], (kwargs) => {
  const step = threshold(kwargs.small_n, "small_n", 1, 5);
  return (response) => {
    const sentences = splitIntoSentences(response);
    if (sentences.length === 0) throw new InstructionError("list index out of range");
    let previous = sentenceWords(sentences[0]!).length;
    for (const sentence of sentences.slice(1)) {
      const count = sentenceWords(sentence).length;
      if (count !== previous + step) return false;
      previous = count;
    }
    return true;
  };
});
