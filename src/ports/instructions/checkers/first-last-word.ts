// first_word:* and last_word:* — of the whole response, or of every sentence (the library's regex splitter).
import { instruction, InstructionError, iterate, RandomWordError, str, truthy } from "../instruction.ts";
import { pythonSub } from "../../../python/re/index.ts";
import { splitWhitespace, pythonStrip } from "../../../python/str.ts";
import { splitIntoSentences } from "../text.ts";

const sameWord = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
/** The last word without its punctuation (`re.sub(r"[^\w\s]", "", word)`). */
const withoutPunctuation = (word: string) => pythonSub("[^\\w\\s]", "", word);

/** A word argument the library strips; falsy → a random word from its word list. */
function wordArg(value: unknown, name: string): string {
  if (!truthy(value)) throw new RandomWordError(name);
  return pythonStrip(str(value, name));
}

/** Every sentence starts with `first_word`, ignoring case (FirstWordSentChecker). */
export const firstWordSent = instruction(["first_word"], (kwargs) => {
  // For a non-string the library compares instead of assigning (`==`), leaves the word unset and then fails.
  const word = wordArg(kwargs.first_word, "first_word");
  return (response) =>
    splitIntoSentences(response).every((sentence) => pythonStrip(sentence) !== "" && sameWord(pythonStrip(splitWhitespace(sentence)[0]!), word));
});

/** The response's first whitespace-separated word is `first_word`, ignoring case (FirstWordAnswerChecker). */
export const firstWordAnswer = instruction(["first_word"], (kwargs) => {
  const word = wordArg(kwargs.first_word, "first_word");
  return (response) => {
    const words = splitWhitespace(response);
    return words.length > 0 && sameWord(pythonStrip(words[0]!), word);
  };
});

/** A last-word argument: a string, or the first item of a list (as the library reads it). */
function lastWordArg(value: unknown): string {
  if (!truthy(value)) throw new RandomWordError("last_word");
  return pythonStrip(typeof value === "string" ? value : str(iterate(value, "last_word")[0], "last_word"));
}

/** Every sentence's last word, punctuation removed, is `last_word`, ignoring case (LastWordSentChecker). */
export const lastWordSent = instruction(["last_word"], (kwargs) => {
  const word = lastWordArg(kwargs.last_word);
  return (response) =>
    splitIntoSentences(response).every((sentence) => pythonStrip(sentence) !== "" && sameWord(withoutPunctuation(pythonStrip(splitWhitespace(sentence).at(-1)!)), word));
});

/** The response's last word, punctuation removed, is `last_word`, ignoring case (LastWordAnswerChecker). */
export const lastWordAnswer = instruction(["last_word"], (kwargs) => {
  const word = wordArg(kwargs.last_word, "last_word");
  return (response) => {
    const words = splitWhitespace(response);
    if (words.length === 0) throw new InstructionError("list index out of range");
    return sameWord(withoutPunctuation(pythonStrip(words.at(-1)!)), word);
  };
});
