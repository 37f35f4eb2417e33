// Scorers of reasoning-gym's algorithmic (and graph) tasks that override the default.
import { pythonJsonLoads } from "../../../python/json.ts";
import { fromJsonValue, pythonEquals, pythonIterate, pythonSorted, pythonTypeName, type PyValue } from "../../../python/values.ts";
import { PyJsonDecodeError } from "../../../python/exception.ts";
import { pythonFloat } from "../../../python/numbers.ts";
import { pythonSum } from "../../../python/sum.ts";
import { floatRepr } from "../../../python/float.ts";
import { evalPythonLiteral } from "../python-literal.ts";
import { PYTHON_SPACE_CHARS } from "../../../python/chars.ts";
import { codePoints, compareStrings, pythonLower, pythonStrip, splitWhitespace } from "../../../python/str.ts";
import { item, oracleText, type Entry } from "../types.ts";


/**
 * `floats == sorted(floats[, reverse])`: true exactly when no neighbour is strictly out of order. Without NaN
 * that is plain sortedness; a NaN compares false both ways, so it never breaks the run (CPython's run detection
 * — in 3.11 to 3.13 alike — keeps such a list as it is, and any other list is reordered somewhere; checked
 * against CPython on random lists with NaNs).
 */
function isSorted(floats: number[], reverse: boolean): boolean {
  return floats.every((value, i) => i === 0 || !(reverse ? floats[i - 1]! < value : value < floats[i - 1]!));
}

/**
 * number_sorting: the answer, read as a JSON list (after `'` → `"`), must be sorted in `metadata.direction`
 * ("ascending", else descending) and within 1 of the oracle number by number → 1.0; anything else → 0.0.
 */
export function numberSorting(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    let given: PyValue;
    try {
      given = pythonJsonLoads(answer.replaceAll("'", '"'));
    } catch (error) {
      if (error instanceof PyJsonDecodeError) return 0;
      throw error;
    }
    if (!Array.isArray(given)) return 0;
    const oracleSource = oracleText(entry);
    let expected: PyValue;
    try {
      expected = pythonJsonLoads(oracleSource);
    } catch (error) {
      if (!(error instanceof PyJsonDecodeError)) throw error;
      expected = evalPythonLiteral(oracleSource); // the library's eval() fallback, for its own str(list) oracles
    }
    const expectedItems = pythonIterate(expected);
    if (given.length !== expectedItems.length) return 0;
    const givenFloats = given.map(pythonFloat);
    const expectedFloats = expectedItems.map(pythonFloat);
    const direction = item(entry.metadata, "direction");
    if (!isSorted(givenFloats, direction !== "ascending")) return 0;
    return givenFloats.every((value, i) => !(Math.abs(value - expectedFloats[i]!) > 1)) ? 1 : 0;
  } catch {
    return 0;
  }
}

const COMMA_SEPARATOR = new RegExp(`,[${PYTHON_SPACE_CHARS}]*`, "u");

/** A sequence as Python indexes it: a list's items or a string's characters; other values raise. */
function sequence(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return codePoints(value);
  throw new TypeError(`object of type '${pythonTypeName(value as PyValue)}' has no len()`);
}

/**
 * word_sorting: the comma-separated words equal to `metadata.sorted_words` → 1.0; else the share of positions
 * right, raised to at least 0.2 when the words are the right ones in another order.
 */
export function wordSorting(answer: string | null, entry: Entry): number {
  const oracle = item(entry.metadata, "sorted_words");
  if (!answer) return 0;
  const words = answer.split(COMMA_SEPARATOR).map((word) => pythonStrip(word));
  if (Array.isArray(oracle) && pythonEquals(words, oracle as PyValue[])) return 1;
  const expected = sequence(oracle);
  const correct = words.filter((word, i) => i < expected.length && word === expected[i]).length;
  if (expected.length === 0) throw new RangeError("division by zero");
  let score = correct / expected.length;
  if (pythonEquals(pythonSorted(words), pythonSorted(expected as PyValue[]))) score = Math.max(score, 0.2);
  return score;
}

/**
 * spell_backward: equal ignoring case → 1.0; else 1/pythonLen(oracle) for each position where both texts have the same
 * character (up to the shorter one), minus 0.2 if that adds up to exactly 1.0.
 */
export function spellBackward(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  if (entry.answer === null) return 0; // None.lower() raises inside the library's try
  const expected = codePoints(pythonLower(entry.answer));
  const given = codePoints(pythonLower(answer));
  if (expected.join("") === given.join("")) return 1;
  let reward = 0;
  for (let i = 0; i < expected.length && i < given.length; i++) if (expected[i] === given[i]) reward += 1 / expected.length;
  return reward === 1 ? reward - 0.2 : reward;
}

/**
 * sentence_reordering: the oracle exactly → 1.0; as many words → the share of positions whose words are equal
 * ignoring case; another word count → 0.05. Errors (a null oracle, no words at all) → 0.0.
 */
export function sentenceReordering(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  if (entry.answer === answer) return 1;
  if (entry.answer === null) return 0;
  const goal = splitWhitespace(entry.answer);
  const words = splitWhitespace(answer);
  if (goal.length !== words.length) return 0.05;
  if (goal.length === 0) return 0; // ZeroDivisionError in the library's try
  return goal.filter((word, i) => pythonLower(word) === pythonLower(words[i]!)).length / goal.length;
}

/** `sorted(letters)` for `metadata.letters`: a list of strings or a string's characters. */
function sortedLetters(letters: unknown): PyValue[] {
  if (typeof letters === "string") return codePoints(letters).sort(compareStrings);
  if (Array.isArray(letters)) return pythonSorted(letters as PyValue[]);
  throw new TypeError("'letters' is not iterable");
}

/**
 * palindrome_generation: a palindrome (stripped, lower-cased) using exactly `metadata.letters` → 1.0; a
 * palindrome of other letters → 0.05; not a palindrome → 0.02; empty → 0.0.
 */
export function palindromeGeneration(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || answer === "") return 0;
  const letters = item(entry.metadata, "letters");
  const characters = codePoints(pythonLower(pythonStrip(answer)));
  if (characters.join("") !== [...characters].reverse().join("")) return 0.02;
  return pythonEquals(characters.sort(compareStrings), sortedLetters(letters)) ? 1 : 0.05;
}

/** ab: exactly the oracle → 1.0 (a null answer equals a null oracle). */
export const ab = (answer: string | null, entry: Entry): number => (answer === entry.answer ? 1 : 0);

/** `LetterJumbleDataset.partial`: 1/pythonLen(words) per word of the oracle matched at the same position, at most 1.0. */
function jumblePartial(expected: string, given: string): number {
  const expectedWords = splitWhitespace(expected);
  const givenWords = splitWhitespace(given);
  const perWord = expectedWords.length > 0 ? 1 / expectedWords.length : 0;
  return Math.min(1, pythonSum(expectedWords.map((word, i) => (i < givenWords.length && word === givenWords[i] ? perWord : 0))));
}

/** letter_jumble: equal after pythonStrip and lower-casing → 1.0; else the share of words right at their position. */
export function letterJumble(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  const oracle = pythonLower(pythonStrip(oracleText(entry)));
  const given = pythonLower(pythonStrip(answer));
  return given === oracle ? 1 : jumblePartial(oracle, given);
}

/** `sorted([sorted(group) for group in groups], key=lambda g: g[0] if g else "")`. */
function sortGroups(groups: PyValue): PyValue[][] {
  const sortedGroups = pythonIterate(groups).map((group) => pythonSorted(pythonIterate(group)));
  return pythonSorted(sortedGroups, (group) => (group.length > 0 ? group[0]! : ""));
}

/**
 * group_anagrams: the answer, read as JSON, groups the words as `metadata.solution` does (order of groups and
 * of words inside them free) → 1.0; readable JSON grouped otherwise → 0.01; anything that fails → 0.0.
 */
export function groupAnagrams(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    const given = pythonJsonLoads(answer);
    const oracle = fromJsonValue(item(entry.metadata, "solution"));
    return dumpsKey(sortGroups(given)) === dumpsKey(sortGroups(oracle)) ? 1 : 0.01;
  } catch {
    return 0;
  }
}

/**
 * A text equal for two values exactly when their `json.dumps` texts are equal: ints and floats apart (`1` vs
 * `1.0`), dict keys in order, every NaN alike.
 */
export function dumpsKey(value: PyValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(dumpsKey).join(",")}]`;
  return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${dumpsKey(v)}`).join(",")}}`;
}
