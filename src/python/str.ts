// Python `str` methods with Python's semantics: a string is a sequence of code points (not UTF-16 units),
// whitespace is `str.isspace()`'s set (python-chars.ts), `isupper()`/`islower()` look at cased characters, and
// `sorted()` orders strings by code point.
import { PYTHON_SPACE_CHARS } from "./chars.ts";

const SPACE_RUN = new RegExp(`[${PYTHON_SPACE_CHARS}]+`, "u");
const IS_SPACE = new RegExp(`^[${PYTHON_SPACE_CHARS}]$`, "u");

/** `ch.isspace()` for one code point. */
export const isSpace = (ch: string): boolean => IS_SPACE.test(ch);

/** `list(text)`: its code points (Python indexes, slices and counts these). */
export const codePoints = (text: string): string[] => Array.from(text);

/** `len(text)`. */
export const pythonLen = (text: string): number => codePoints(text).length;

/** `text[start:end]` over code points, with Python's negative and out-of-range indices. */
export function pythonSlice(text: string, start: number | undefined, end: number | undefined): string {
  const points = codePoints(text);
  const clamp = (index: number) => (index < 0 ? Math.max(0, points.length + index) : Math.min(index, points.length));
  return points.slice(start === undefined ? 0 : clamp(start), end === undefined ? points.length : clamp(end)).join("");
}

/** `text[::-1]`. */
export const reversed = (text: string): string => codePoints(text).reverse().join("");

/** `text.lower()`. */
export const pythonLower = (text: string): string => text.toLowerCase();

/** `text.split()`: runs of whitespace separate, none at either end, no empty pieces. */
export const splitWhitespace = (text: string): string[] => text.split(SPACE_RUN).filter((piece) => piece !== "");

/** Which code points a strip removes: whitespace when `chars` is undefined, else those of `chars`. */
function stripSet(chars: string | undefined): (ch: string) => boolean {
  if (chars === undefined) return isSpace;
  const set = new Set(codePoints(chars));
  return (ch) => set.has(ch);
}

// Index walks, not Array.from: a strip looks only at the ends of what may be a very long text.
const codePointAt = (text: string, index: number): string => String.fromCodePoint(text.codePointAt(index)!);

function lstripEnd(text: string, strip: (ch: string) => boolean): number {
  let start = 0;
  while (start < text.length) {
    const ch = codePointAt(text, start);
    if (!strip(ch)) break;
    start += ch.length;
  }
  return start;
}

function rstripStart(text: string, start: number, strip: (ch: string) => boolean): number {
  let end = text.length;
  while (end > start) {
    const pair = end - 2 >= start && /^[\uD800-\uDBFF][\uDC00-\uDFFF]$/.test(text.slice(end - 2, end));
    const ch = text.slice(pair ? end - 2 : end - 1, end);
    if (!strip(ch)) break;
    end -= ch.length;
  }
  return end;
}

/** `text.lstrip(chars)`; whitespace when `chars` is undefined. */
export const pythonLstrip = (text: string, chars?: string): string => text.slice(lstripEnd(text, stripSet(chars)));

/** `text.rstrip(chars)`; whitespace when `chars` is undefined. */
export const pythonRstrip = (text: string, chars?: string): string => text.slice(0, rstripStart(text, 0, stripSet(chars)));

/** `text.strip(chars)`; whitespace when `chars` is undefined. */
export const pythonStrip = (text: string, chars?: string): string => stripWhere(text, stripSet(chars));

/** A strip of the code points `strip` accepts (int() and float() strip a narrower whitespace than strip()). */
export function stripWhere(text: string, strip: (ch: string) => boolean): string {
  const start = lstripEnd(text, strip);
  return text.slice(start, rstripStart(text, start, strip));
}

/** `text.removeprefix(prefix)`. */
export const removePrefix = (text: string, prefix: string): string => (prefix !== "" && text.startsWith(prefix) ? text.slice(prefix.length) : text);

/** `text.removesuffix(suffix)`. */
export const removeSuffix = (text: string, suffix: string): string => (suffix !== "" && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text);

const LOWER = /\p{Lowercase}/u;
const UPPER = /\p{Uppercase}/u;
const TITLE = /\p{Lt}/u;

/** How `isupper()` and `islower()` decide: at least one character of `cased`, none of `opposite` or titlecase. */
function onlyCased(text: string, cased: RegExp, opposite: RegExp): boolean {
  let found = false;
  for (const ch of text) {
    if (opposite.test(ch) || TITLE.test(ch)) return false;
    if (cased.test(ch)) found = true;
  }
  return found;
}

/** `text.isupper()`. */
export const isUpper = (text: string): boolean => onlyCased(text, UPPER, LOWER);

/** `text.islower()`. */
export const isLower = (text: string): boolean => onlyCased(text, LOWER, UPPER);

// Numeric_Type=Digit characters that are not decimal digits (superscripts, circled and parenthesised digits, …):
// with \p{Nd} they are what `str.isdigit()` accepts.
const DIGIT = /^[\p{Nd}\u00b2\u00b3\u00b9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792\u{10a40}-\u{10a43}\u{10e60}-\u{10e68}\u{11052}-\u{1105a}\u{1f100}-\u{1f10a}]+$/u;

/** `text.isdigit()`: non-empty, every character a digit (decimal digits and the Numeric_Type=Digit ones). */
export const isDigit = (text: string): boolean => DIGIT.test(text);

/** `text.count(sub)`: non-overlapping occurrences from the left; an empty `sub` counts every position. */
export function pythonCount(text: string, sub: string): number {
  if (sub === "") return pythonLen(text) + 1;
  let count = 0;
  for (let at = text.indexOf(sub); at !== -1; at = text.indexOf(sub, at + sub.length)) count++;
  return count;
}

/** `text.isalpha()`: non-empty, every character a letter. */
export const isAlpha = (text: string): boolean => /^\p{L}+$/u.test(text);

/** How `sorted()` and `<` order two strings: by code point, then by length (JS's `<` compares UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  const left = codePoints(a);
  const right = codePoints(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const difference = left[i]!.codePointAt(0)! - right[i]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** `text.splitlines()`: every line boundary Python knows, `\r\n` as one. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
