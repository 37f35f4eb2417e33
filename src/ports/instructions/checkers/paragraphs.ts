// Paragraph splitting as the library does it: on the markdown divider `***` (with one optional whitespace
// character either side) or on blank lines (`\n\n`), depending on the checker.
import { instruction } from "../instruction.ts";
import { pythonSplit } from "../../../python/re/index.ts";
import { pythonStrip } from "../../../python/str.ts";

export const splitOnDividers = (response: string): string[] => pythonSplit<string>("\\s?\\*\\*\\*\\s?", response);
export const splitOnBlankLines = (response: string): string[] => response.split("\n\n");

/**
 * The paragraph count, where blank pieces at either end do not count and a blank piece between two paragraphs
 * makes the layout invalid (null).
 */
export function countParagraphs(paragraphs: readonly string[]): number | null {
  let count = paragraphs.length;
  for (const [index, paragraph] of paragraphs.entries()) {
    if (pythonStrip(paragraph) !== "") continue;
    if (index === 0 || index === paragraphs.length - 1) count -= 1;
    else return null;
  }
  return count;
}

/** Exactly two paragraphs separated by `***` (ParagraphBasicChecker). */
export const paragraphs = instruction([], () => (response) => countParagraphs(splitOnDividers(response)) === 2);

/** Exactly two paragraphs separated by blank lines (ParagraphBasicChecker2). */
export const paragraphs2 = instruction([], () => (response) => countParagraphs(splitOnBlankLines(response)) === 2);
