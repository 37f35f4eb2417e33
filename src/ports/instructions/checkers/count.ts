// count:* and letters:* — lower-case words, letters, unique words, and the composition of paragraphs.
import { choice, countOrRandom, instruction, RELATIONS, truthy } from "../instruction.ts";
import { pythonFindall } from "../../../python/re/index.ts";
import { pythonStrip } from "../../../python/str.ts";
import { splitIntoSentences } from "../text.ts";
import { wordTokenize } from "../word-tokenize.ts";
import { splitOnDividers } from "./paragraphs.ts";

/** At most `N` all-lower-case ASCII words, whole words only (LowercaseCountingChecker). */
export const lowercaseCounting = instruction(["N"], (kwargs) => {
  const maximum = countOrRandom(kwargs.N, "N", 2, 3);
  return (response) => pythonFindall("\\b[a-z]+\\b", response).length <= maximum;
});

/** "less than" / "at least" `N` ASCII letters (LetterCountingChecker); another relation is never followed. */
export const letterCounting = instruction(["N", "relation"], (kwargs) => {
  const limit = countOrRandom(kwargs.N, "N", 2, 3);
  const relation = truthy(kwargs.relation) ? kwargs.relation : choice(RELATIONS);
  return (response) => {
    const letters = pythonFindall("[a-zA-Z]", response).length;
    if (relation === "at least") return letters >= limit;
    if (relation === "less than") return letters < limit;
    return false;
  };
});

/**
 * Three `***`-separated paragraphs of exactly `n_sent` sentences (the library's splitter) of exactly `n_words`
 * NLTK word tokens each (CountingCompositionChecker). A blank piece between paragraphs fails; a blank piece at
 * either end has no sentences, which fails too unless `n_sent` is 0.
 */
export const countingComposition = instruction(["n_sent", "n_words"], (kwargs) => {
  const sentencesPerParagraph = countOrRandom(kwargs.n_sent, "n_sent", 2, 3);
  const wordsPerSentence = countOrRandom(kwargs.n_words, "n_words", 2, 3);
  return (response) => {
    const paragraphs = splitOnDividers(response);
    let count = paragraphs.length;
    for (const [index, paragraph] of paragraphs.entries()) {
      if (pythonStrip(paragraph) === "") {
        if (index === 0 || index === paragraphs.length - 1) count -= 1;
        else return false;
      }
      const sentences = splitIntoSentences(paragraph);
      if (sentences.length !== sentencesPerParagraph) return false;
      if (sentences.some((sentence) => wordTokenize(sentence).length !== wordsPerSentence)) return false;
    }
    return count === 3;
  };
});

/** No NLTK word token repeats, case-sensitively (CountUniqueChecker). */
export const countUnique = instruction([], () => (response) => {
  const words = wordTokenize(response);
  return new Set(words).size === words.length;
});
