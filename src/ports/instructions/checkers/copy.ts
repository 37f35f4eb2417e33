// copy:* and new:copy_span_idx — repeating the prompt (or a span of it), or a phrase with one word changed.
import { countOrRandom, instruction, InstructionError, num, randint, RandomWordError, str, truthy } from "../instruction.ts";
import { pythonFindall } from "../../../python/re/index.ts";
import { pythonLen, pythonSlice, splitWhitespace, pythonStrip } from "../../../python/str.ts";
import { promptToRepeat } from "./combination.ts";

const sameText = (a: string, b: string) => pythonStrip(a).toLowerCase() === pythonStrip(b).toLowerCase();

/** The response is the prompt, ignoring case and surrounding whitespace (CopyChecker, CopyingSimpleChecker). */
export const copy = instruction(["prompt_to_repeat"], (kwargs) => {
  const prompt = promptToRepeat(kwargs.prompt_to_repeat);
  return (response) => sameText(response, str(prompt, "prompt_to_repeat"));
});

/** The prompt `N` times, separated by `******` (CopyingMultipleChecker). */
export const copyingMultiple = instruction(["prompt_to_repeat", "N"], (kwargs) => {
  const prompt = promptToRepeat(kwargs.prompt_to_repeat);
  const times = countOrRandom(kwargs.N, "N", 2, 3);
  return (response) => {
    const copies = response.split("******");
    return copies.length === times && copies.every((copy) => sameText(copy, str(prompt, "prompt_to_repeat")));
  };
});

/** The response is `prompt_to_repeat[n_start:n_end]` (character indices), ignoring case (CopySpanIdxChecker). */
export const copySpanIdx = instruction(["prompt_to_repeat", "n_start", "n_end"], (kwargs) => {
  const prompt = str(promptToRepeat(kwargs.prompt_to_repeat), "prompt_to_repeat");
  const start = truthy(kwargs.n_start) ? num(kwargs.n_start, "n_start") : randint(0, pythonLen(prompt) - 2);
  const end = truthy(kwargs.n_end) ? num(kwargs.n_end, "n_end") : randint(start + 1, pythonLen(prompt) - 1);
  if (!Number.isInteger(start) || !Number.isInteger(end)) throw new InstructionError("slice indices must be integers");
  return (response) => sameText(response, pythonSlice(prompt, start, end));
});

/**
 * The phrase appears `small_n` times — found as "<first word> … <last word>" — each time with the same number
 * of words and, judged on the last one found, exactly one word changed (RepeatPhraseChecker).
 */
export const repeatPhrase = instruction(["phrase", "small_n"], (kwargs) => {
  if (!truthy(kwargs.phrase)) throw new RandomWordError("phrase");
  const phrase = pythonStrip(str(kwargs.phrase, "phrase"));
  const times = countOrRandom(kwargs.small_n, "small_n", 2, 3);
  return (response) => {
    const reference = splitWhitespace(phrase);
    if (reference.length === 0) throw new InstructionError("list index out of range");
    const found = pythonFindall(`${reference[0]} .*? ${reference.at(-1)}`, response);
    if (found.length !== times) return false;
    let differences: number | undefined;
    for (const occurrence of found) {
      // The words are patterns: with two groups or more, findall gives tuples, which have no split().
      if (typeof occurrence !== "string") throw new InstructionError("'tuple' object has no attribute 'split'");
      const words = splitWhitespace(occurrence);
      differences = 0;
      if (words.length !== reference.length) return false;
      for (let i = 0; i < words.length; i++) {
        if (words[i] !== reference[i] && ++differences > 1) return false;
      }
    }
    if (differences === undefined) throw new InstructionError("local variable 'differences' referenced before assignment");
    return differences === 1;
  };
});
