// startend:* — the end phrase and the wrapping quotation marks.
import { choice, instruction, str } from "../instruction.ts";
import { codePoints, pythonStrip } from "../../../python/str.ts";

const ENDING_OPTIONS = ["Any other questions?", "Is there anything else I can help with?"];

/** Ends with `end_phrase`, ignoring case, surrounding whitespace and double quotes (EndChecker). */
export const endChecker = instruction(["end_phrase"], (kwargs) => {
  const phrase = kwargs.end_phrase === undefined ? choice(ENDING_OPTIONS) : pythonStrip(str(kwargs.end_phrase, "end_phrase"));
  return (response) => pythonStrip(pythonStrip(response), '"').toLowerCase().endsWith(pythonStrip(phrase).toLowerCase());
});

/** Starts and ends with `"` after stripping whitespace, and is longer than one character (QuotationChecker). */
export const quotation = instruction([], () => (response) => {
  const text = codePoints(pythonStrip(response));
  return text.length > 1 && text[0] === '"' && text.at(-1) === '"';
});
