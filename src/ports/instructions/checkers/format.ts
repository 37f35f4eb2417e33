// detectable_format:* — bullets, highlights, sections, JSON, titles, and the word-wrapping formats.
import { pythonJsonLoads } from "../../../python/json.ts";
import { choice, instruction, str, threshold } from "../instruction.ts";
import { pythonFindall, pythonSplit } from "../../../python/re/index.ts";
import { pythonLstrip, removePrefix, removeSuffix, pythonRstrip, splitWhitespace, pythonStrip } from "../../../python/str.ts";
import { splitIntoSentences } from "../text.ts";

/** Exactly `num_bullets` lines starting with `*` (not `**`) or `-` (BulletListChecker). */
export const numberBulletLists = instruction(["num_bullets"], (kwargs) => {
  const expected = threshold(kwargs.num_bullets, "num_bullets", 1, 5);
  return (response) => {
    const stars = pythonFindall("^\\s*\\*[^\\*].*$", response, { multiline: true }).length;
    const dashes = pythonFindall("^\\s*-.*$", response, { multiline: true }).length;
    return stars + dashes === expected;
  };
});

const CONSTRAINED_RESPONSES = ["My answer is yes.", "My answer is no.", "My answer is maybe."];

/** Contains one of the three fixed answers (ConstrainedResponseChecker). */
export const constrainedResponse = instruction([], () => (response) => {
  const text = pythonStrip(response);
  return CONSTRAINED_RESPONSES.some((option) => text.includes(option));
});

/** At least `num_highlights` non-blank `*highlighted*` or `**highlighted**` spans (HighlightSectionChecker). */
export const numberHighlightedSections = instruction(["num_highlights"], (kwargs) => {
  const minimum = threshold(kwargs.num_highlights, "num_highlights", 1, 4);
  return (response) => {
    const single = pythonFindall<string>("\\*[^\\n\\*]*\\*", response).filter((span) => pythonStrip(pythonStrip(span, "*")) !== "");
    const double = pythonFindall<string>("\\*\\*[^\\n\\*]*\\*\\*", response).filter((span) => pythonStrip(removeSuffix(removePrefix(span, "**"), "**")) !== "");
    return single.length + double.length >= minimum;
  };
});

/** At least `num_sections` sections, each opened by "<splitter> <number>" (SectionChecker). */
export const multipleSections = instruction(["section_spliter", "num_sections"], (kwargs) => {
  const splitter = kwargs.section_spliter === undefined ? choice(["Section", "SECTION"]) : pythonStrip(str(kwargs.section_spliter, "section_spliter"));
  const minimum = threshold(kwargs.num_sections, "num_sections", 1, 5);
  return (response) => pythonSplit(`\\s?${splitter}\\s?\\d+\\s?`, response).length - 1 >= minimum;
});

/** The whole response (inside an optional ``` fence) is JSON as Python's json.loads reads it (JsonFormat). */
export const jsonFormat = instruction([], () => (response) => {
  let text = pythonStrip(response);
  for (const fence of ["```json", "```Json", "```JSON", "```"]) text = removePrefix(text, fence);
  text = pythonStrip(removeSuffix(text, "```"));
  try {
    pythonJsonLoads(text);
    return true;
  } catch {
    return false;
  }
});

/** A non-blank `<<title>>` on one line (TitleChecker). */
export const title = instruction([], () => (response) => pythonFindall<string>("<<[^\\n]+>>", response).some((found) => pythonStrip(pythonRstrip(pythonLstrip(found, "<"), ">")) !== ""));

/**
 * Sentences joined by hyphens without spaces (SentenceHyphenChecker): each hyphen-separated piece has no
 * surrounding whitespace and equals the sentence the library's splitter finds at that position.
 */
export const sentenceHyphens = instruction([], () => (response) => {
  const gold = splitIntoSentences(response.replaceAll("-", " "));
  const pieces = response.split("-");
  for (let i = 0; i < Math.min(pieces.length, gold.length); i++) {
    if (pythonStrip(pieces[i]!) !== pieces[i]) return false;
    if (pieces[i] !== gold[i]) return false;
  }
  return true;
});

/** Every whitespace-separated word starts with `[` and ends with `]` (SquareBracketChecker). */
export const squareBrackets = instruction([], () => (response) => splitWhitespace(response).every((word) => word.startsWith("[") && word.endsWith("]")));

/** Each pair of words (1st+2nd, 3rd+4th, …) opens with `<<` and closes with `>>` (BiGramWrappingChecker). */
export const bigramWrapping = instruction([], () => (response) => {
  const words = splitWhitespace(response);
  for (let i = 0; i + 1 < words.length; i += 2) if (!(words[i]!.startsWith("<<") && words[i + 1]!.endsWith(">>"))) return false;
  return true;
});
