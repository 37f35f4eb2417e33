// The Levenshtein distance between two word sequences (insertions, deletions, substitutions, each costing 1), as the
// Python `editdistance` package's eval(a, b) over lists of str (ruler2's WER) and jiwer's word-level distance (asr_with_pc)
// compute it: two words are the same element when they are equal strings. fastest-levenshtein computes it over
// strings of UTF-16 units, so each distinct word is first mapped to one unit of its own; that also keeps it right for
// text outside the BMP, which fastest-levenshtein would count as two units per character where editdistance counts one.
import { distance } from "fastest-levenshtein";

/** Distinct words a pair can hold and still be mapped to one UTF-16 unit each. */
const UNITS = 0x10000;

/**
 * The distance between two word lists. With `same`, words match when it says so (asr_with_pc's bound for respellings
 * it cannot see), computed row by row; otherwise by equality, through fastest-levenshtein.
 */
export function wordEditDistance(a: readonly string[], b: readonly string[], same?: (x: string, y: string) => boolean): number {
  if (same) return levenshtein(a, b, same);
  const ids = new Map<string, number>();
  const idsOf = (words: readonly string[]) =>
    words.map((word) => {
      let id = ids.get(word);
      if (id === undefined) ids.set(word, (id = ids.size));
      return id;
    });
  const [left, right] = [idsOf(a), idsOf(b)];
  return ids.size <= UNITS ? distance(unitString(left), unitString(right)) : levenshtein(left, right);
}

/** The ids (each < 0x10000) as a string of UTF-16 units, built in chunks (a spread of 100k arguments overflows the stack). */
function unitString(ids: readonly number[]): string {
  let text = "";
  for (let start = 0; start < ids.length; start += 8192) text += String.fromCharCode(...ids.slice(start, start + 8192));
  return text;
}

/** Wagner–Fischer over any two sequences, one row at a time; elements match when `same` says so (=== by default). */
export function levenshtein<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean = (x, y) => x === y): number {
  let previous = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (same(a[i - 1]!, b[j - 1]!) ? 0 : 1));
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}
