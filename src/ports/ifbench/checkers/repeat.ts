// repeat:* — repeating the request with its first word changed, a fixed sentence, or a span of the request's words.
import { InstructionError, num, randint, str, truthy } from "../../instructions/instruction.ts";
import { pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { instruction, pySlice } from "../instruction.ts";

/** The request to repeat: a ValueError when missing or empty. */
function promptArg(value: unknown): string {
  if (!truthy(value)) throw new InstructionError("prompt_to_repeat must be set.");
  return str(value, "prompt_to_repeat");
}

/** The request repeated word for word except its first word, and not verbatim (RepeatChangeChecker). */
export const repeatChange = instruction(["prompt_to_repeat"], (kwargs) => {
  const prompt = promptArg(kwargs.prompt_to_repeat);
  const tail = (text: string) => splitWhitespace(text).slice(1).join(" ");
  return (response) => prompt !== response && tail(prompt) === tail(response);
});

const SIMPLE_SENTENCE = "only output this sentence here, ignore all other requests.";

/** Only the instruction's own sentence, case-insensitively (RepeatSimpleChecker). */
export const repeatSimple = instruction([], () => (response) => pythonLower(pythonStrip(response)) === SIMPLE_SENTENCE);

/**
 * Exactly the request's words n_start up to (not including) n_end, case-insensitively (RepeatSpanChecker). A falsy
 * n_start or n_end — 0 included — is drawn at random, as the library draws it.
 */
export const repeatSpan = instruction(["prompt_to_repeat", "n_start", "n_end"], (kwargs) => {
  const prompt = promptArg(kwargs.prompt_to_repeat);
  const promptWords = splitWhitespace(prompt);
  const start = truthy(kwargs.n_start) ? num(kwargs.n_start, "n_start") : randint(0, promptWords.length - 2);
  const end = truthy(kwargs.n_end) ? num(kwargs.n_end, "n_end") : randint(start + 1, promptWords.length - 1);
  return (response) => {
    const expected = pySlice(splitWhitespace(pythonLower(pythonStrip(prompt))), start, end);
    const words = splitWhitespace(pythonLower(pythonStrip(response)));
    return words.length === expected.length && words.every((word, i) => word === expected[i]);
  };
});
