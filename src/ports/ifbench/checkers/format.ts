// format:* — nesting of brackets and quotes, answer options, one word per line, emoji after sentences, indented
// stairs, quotes with explanations, custom bullets and sub-bullets, an italic thesis, title case, a template, and
// no whitespace.
import { choice, InstructionError, str } from "../../instructions/instruction.ts";
import { splitIntoSentences } from "../../instructions/text.ts";
import { wordTokenize } from "../../instructions/word-tokenize.ts";
import { compilePythonRegex } from "../../../python/re/index.ts";
import { codePoints, isLower, isSpace, isUpper, pythonCount, pythonLower, pythonLstrip, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { instruction, noArgs } from "../instruction.ts";
import { isEmojiChar, PUNCTUATION, removePunctuation, stripPunctuation } from "../text.ts";

const CLOSING: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/**
 * A bracket group that reached 5 levels is closed (NestedParenthesesChecker): ( [ { nest in any mix; a closing
 * bracket that does not match the innermost open one resets the count.
 */
export const parentheses = noArgs((response) => {
  let levels: string[] = [];
  let maxDepth = 0;
  for (const ch of response) {
    if ("([{".includes(ch)) {
      levels.push(ch);
      maxDepth = Math.max(maxDepth, levels.length);
    } else if (ch in CLOSING) {
      if (levels.length > 0 && levels.at(-1) === CLOSING[ch]) {
        levels.pop();
        if (maxDepth >= 5 && levels.length < maxDepth) return true;
      } else {
        levels = [];
        maxDepth = 0;
      }
    }
  }
  return false;
});

/** Quotes nested 3 deep, a quote character closing the innermost open one of its kind (NestedQuotesChecker). */
export const quotes = noArgs((response) => {
  const levels: string[] = [];
  let reached = 0;
  let current = 0;
  for (const ch of response) {
    if (levels.length > 0 && ch === levels.at(-1)) {
      levels.pop();
      current--;
      if (reached - current >= 3) return true;
    } else if (ch === '"' || ch === "'") {
      levels.push(ch);
      current++;
      reached = Math.max(reached, current);
    }
  }
  return false;
});

const LETTER_OPTIONS = compilePythonRegex("\\W*[aA]\\W*[bB]\\W*[cC]\\W*");
const OPTIONS_BANK = ["yes/no/maybe", "I know or I don't know", "a), b), c), d)"];

/**
 * The response is one of the options (OptionsResponseChecker). Options are split on "/", else on "or" (a
 * substring anywhere), else on ","; letter options (a, b, c…) must match exactly, others after stripping
 * punctuation and spaces, case-insensitively.
 */
export const options = instruction(["options"], (kwargs) => {
  const text = kwargs.options === undefined ? choice(OPTIONS_BANK) : str(kwargs.options, "options");
  const strict = LETTER_OPTIONS.match(text) !== undefined;
  const separator = text.includes("/") ? "/" : text.includes("or") ? "or" : ",";
  const choices = text.split(separator).map((option) => pythonStrip(option));
  return (response) => {
    if (strict) return choices.includes(response);
    const answer = pythonLower(stripPunctuation(response));
    return choices.some((option) => pythonLower(stripPunctuation(option)) === answer);
  };
});

/** As many non-empty lines as whitespace words, once punctuation is removed (NewLineWordsChecker). */
export const newline = noArgs((response) => {
  const text = removePunctuation(response);
  const lines = pythonStrip(text)
    .split("\n")
    .filter((line) => line !== "");
  return lines.length === splitWhitespace(pythonStrip(text)).length;
});

/** A sentence with punctuation removed and stripped. */
const bare = (sentence: string) => codePoints(pythonStrip(removePunctuation(sentence)));

/**
 * Every sentence ends with an emoji — as its last or second-to-last character, or as the first character of the
 * next sentence (the splitter puts an emoji after "." there) (EmojiSentenceChecker). An empty sentence fails.
 */
export const emoji = noArgs((response) => {
  const sentences = splitIntoSentences(response);
  for (let i = 0; i < sentences.length; i++) {
    const chars = bare(sentences[i]!);
    if (chars.length === 0) return false;
    const last = chars.at(-1)!;
    const secondLast = chars.length > 1 ? chars.at(-2)! : last;
    if (isEmojiChar(last) || isEmojiChar(secondLast)) continue;
    if (i === sentences.length - 1) return false;
    const next = bare(sentences[i + 1]!);
    if (next.length === 0 || !isEmojiChar(next[0]!)) return false;
  }
  return true;
});

/** Leading spaces of a line. */
const indent = (line: string) => line.length - pythonLstrip(line, " ").length;

/**
 * Each line is indented (by spaces) deeper than the one before (IndentStairsChecker). Blank lines are dropped as
 * the library drops them — `lines.remove(line)` while iterating over `lines` — so a blank line right after a
 * removed one is skipped and kept.
 */
export const lineIndent = noArgs((response) => {
  const lines = response.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (pythonStrip(line) === "") lines.splice(lines.indexOf(line), 1);
  }
  for (let i = 0; i + 1 < lines.length; i++) if (indent(lines[i + 1]!) <= indent(lines[i]!)) return false;
  return true;
});

const DIGITS_AND_PUNCTUATION_BUT_QUOTE = `0123456789${PUNCTUATION.replace('"', "")}`;

/**
 * No two quotes are adjacent once whitespace is removed (a quoted phrase is followed by something unquoted), and the
 * text does not end with a quote, trailing digits and other punctuation aside (QuoteExplanationChecker). Curly
 * double quotes count as straight ones; a quoted `'"'` character is ignored.
 */
export const quoteUnquote = noArgs((response) => {
  let text = response.replaceAll("“", '"').replaceAll("”", '"').replaceAll("'\"'", "");
  text = splitWhitespace(text).join("");
  if (text.includes('""')) return false;
  const tail = pythonStrip(text, DIGITS_AND_PUNCTUATION_BUT_QUOTE);
  if (tail === "") throw new InstructionError("string index out of range");
  return codePoints(tail).at(-1) !== '"';
});

/** The separator occurs at least twice, anywhere (SpecialBulletPointsChecker). */
export const list = instruction(["sep"], (kwargs) => {
  const separator = kwargs.sep === undefined ? choice(["...", "SEPARATOR", "!?!?", "-"]) : str(kwargs.sep, "sep");
  return (response) => pythonCount(response, separator) >= 2;
});

/**
 * An <i>…</i> (or <em>…</em>) element with non-blank text, followed by non-blank text (ItalicsThesisChecker). The
 * library slices as if both tags were <i> and </i>: three characters after the opening tag, four after the closing.
 */
export const thesis = noArgs((response) => {
  let index = response.indexOf("<i>");
  if (index === -1) index = response.indexOf("<em>");
  if (index === -1) return false;
  const text = response.slice(index);
  let end = text.indexOf("</i>");
  if (end === -1) end = text.indexOf("</em>");
  if (end === -1) return false;
  if (pythonStrip(text.slice(3, Math.max(3, end))) === "") return false;
  return pythonStrip(text.slice(end + 4)) !== "";
});

/** Every piece after a "*" contains a "-" (SubBulletPointsChecker). */
export const subBullets = noArgs((response) => response.split("*").slice(1).every((piece) => piece.includes("-")));

/**
 * Lines of at least two sentences, then at least two lines starting with "*" and nothing else (SomeBulletPointsChecker).
 * As in the library, a blank line before the bullets (no sentences) ends the sentence part.
 */
export const noBulletsBullets = noArgs((response) => {
  let inSentences = true;
  let sentenceCount = 0;
  let bulletCount = 0;
  for (const line of response.split("\n")) {
    if (pythonStrip(line).startsWith("*")) {
      inSentences = false;
      if (sentenceCount < 2) return false;
      bulletCount++;
    } else if (inSentences) {
      const sentences = splitIntoSentences(pythonStrip(line));
      sentenceCount += sentences.length;
      inSentences = sentences.length > 0;
    } else return false;
  }
  return bulletCount >= 2;
});

/** No word_tokenize token starts lower-case followed by cased letters of one case ("word", "wORD") (TitleCaseChecker). */
export const titleCase = noArgs((response) =>
  wordTokenize(response).every((word) => {
    const [head = "", ...tailChars] = codePoints(word);
    const tail = tailChars.join("");
    if (isUpper(head) && isLower(tail)) return true;
    return !(isLower(head) && (isUpper(tail) || isLower(tail)));
  }),
);

/** "My Answer:", "My Conclusion:" and "Future Outlook:" all appear (OutputTemplateChecker). */
export const outputTemplate = noArgs((response) => ["My Answer:", "My Conclusion:", "Future Outlook:"].every((part) => response.includes(part)));

/** No whitespace character at all (NoWhitespaceChecker). */
export const noWhitespace = noArgs((response) => !codePoints(response).some(isSpace));
