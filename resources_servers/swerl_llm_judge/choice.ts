// How NeMo Gym's swerl_llm_judge reads the policy's pick among lettered candidate patches: the option letters are
// each option dict's first key (a single letter), the gold letters are `expected_answer` normalised (single
// letters, upper-cased, de-duplicated), and the pick is read from a <solution>…</solution> block —
// lenient: the last block (any case of the tag), its first standalone letter, which must be an option;
// strict: the first block holding just one letter, optionally bracketed, which must be an option.
// Python semantics throughout: code points, str.isalpha/upper/strip, Python regex (Unicode \s).
import { compilePythonRegex } from "../../src/python/re/index.ts";
import { isAlpha, pythonStrip } from "../../src/python/str.ts";

const codePoints = (text: string) => Array.from(text);
const isSingleLetter = (text: string) => codePoints(text).length === 1 && isAlpha(text);

/** NeMo Gym's _normalize_expected_answers: strings only, stripped and upper-cased, single letters, first seen first. */
export function normalizeExpectedAnswers(expected: unknown): string[] {
  const raw = expected === null || expected === undefined ? [] : typeof expected === "string" ? [expected] : Array.isArray(expected) ? expected.filter((x): x is string => typeof x === "string") : [];
  const out: string[] = [];
  for (const value of raw) {
    const letter = pythonStrip(value).toUpperCase();
    if (!isSingleLetter(letter) || out.includes(letter)) continue;
    out.push(letter);
  }
  return out;
}

/** The option letters: each entry's first key, when it is one letter (upper-cased). */
export function allowedLetters(options: readonly Record<string, string>[] | null | undefined): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    const first = Object.keys(entry)[0];
    if (first !== undefined && isSingleLetter(first)) letters.add(first.toUpperCase());
  }
  return letters;
}

const LENIENT_BLOCK = compilePythonRegex(String.raw`<solution>\s*(.*?)\s*</solution>`, { dotAll: true, ignoreCase: true });
const STRICT_BLOCK = compilePythonRegex(String.raw`<solution>\s*\[?([A-Za-z])\]?\s*</solution>`, { multiline: true });

export function lenientChoice(output: string, allowed: ReadonlySet<string>): string | null {
  const blocks = [...LENIENT_BLOCK.finditer(output)];
  if (blocks.length === 0) return null;
  const chars = codePoints(pythonStrip(blocks.at(-1)!.groups[1]!));
  for (let i = 0; i < chars.length; i++) {
    if (!isAlpha(chars[i]!)) continue;
    const leftIsLetter = i > 0 && isAlpha(chars[i - 1]!);
    const rightIsLetter = i < chars.length - 1 && isAlpha(chars[i + 1]!);
    if (leftIsLetter || rightIsLetter) continue;
    // The first standalone letter decides, even when it is not an option.
    const letter = chars[i]!.toUpperCase();
    return allowed.has(letter) ? letter : null;
  }
  return null;
}

export function strictChoice(output: string, allowed: ReadonlySet<string>): string | null {
  const match = STRICT_BLOCK.search(output);
  if (!match) return null;
  const letter = match.groups[1]!.toUpperCase();
  return allowed.has(letter) ? letter : null;
}
