// combination:* — two answers split by `******`, or the prompt repeated before the answer.
import { instruction, InstructionError, str, truthy } from "../instruction.ts";
import { pythonStrip } from "../../../python/str.ts";

/** Exactly two different non-blank responses separated by `******` (TwoResponsesChecker). */
export const twoResponses = instruction([], () => (response) => {
  const pieces = response.split("******");
  const valid: string[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (pythonStrip(piece) === "") {
      if (index !== 0 && index !== pieces.length - 1) return false;
    } else valid.push(piece);
  }
  return valid.length === 2 && pythonStrip(valid[0]!) !== pythonStrip(valid[1]!);
});

/** The library refuses a falsy prompt_to_repeat (ValueError). */
export function promptToRepeat(value: unknown): unknown {
  if (!truthy(value)) throw new InstructionError("prompt_to_repeat must be set.");
  return value;
}

/** The response starts with the prompt, ignoring case and surrounding whitespace (RepeatPromptThenAnswer). */
export const repeatPrompt = instruction(["prompt_to_repeat"], (kwargs) => {
  const prompt = promptToRepeat(kwargs.prompt_to_repeat);
  return (response) => pythonStrip(response).toLowerCase().startsWith(pythonStrip(str(prompt, "prompt_to_repeat")).toLowerCase());
});
