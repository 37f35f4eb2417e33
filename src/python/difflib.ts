// Python's difflib.SequenceMatcher over two str (no junk function), and get_close_matches built on it: the same
// matching blocks, hence the same ratio() to the last bit, as CPython's. A str is a sequence of code points, so
// both sides are compared code point by code point (an emoji is one element, as in Python, not two UTF-16 units).
// Used for "did you mean" hints (the candidate NeMo Gym's would name) and by verifiers scored with ratio()
// (mrcr) or the longest common substring (lc_niah).
import { compareStrings } from "./str.ts";

export interface SequenceMatcherOptions {
  /**
   * SequenceMatcher's `autojunk` (default true): when b has 200 elements or more, an element occurring in more than
   * 1% of b (plus one) is "popular" and never starts a match (a match still runs on through it).
   */
  autojunk?: boolean;
}

/** A block `a[a:a+size] == b[b:b+size]`, as SequenceMatcher's Match(a, b, size). */
export interface Match {
  a: number;
  b: number;
  size: number;
}

function codePointArray(text: string): Int32Array {
  const points = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const point = text.codePointAt(i)!;
    points[n++] = point;
    if (point > 0xffff) i++;
  }
  return points.subarray(0, n);
}

/** The first index of the ascending `indices` that is ≥ `value`. */
function lowerBound(indices: Int32Array, value: number): number {
  let [low, high] = [0, indices.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (indices[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** SequenceMatcher(None, a, b, autojunk): built once, asked for the longest match or the ratio. */
export class SequenceMatcher {
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  /** b2j: every index of each element of b, ascending (popular elements removed). */
  private readonly b2j = new Map<number, Int32Array>();
  // Python's j2len dicts as two rows of lengths indexed by j + 1, with the indices each row set (to clear it).
  private previousRow: Int32Array;
  private currentRow: Int32Array;

  constructor(a: string, b: string, { autojunk = true }: SequenceMatcherOptions = {}) {
    this.a = codePointArray(a);
    this.b = codePointArray(b);
    const indices = new Map<number, number[]>();
    for (let j = 0; j < this.b.length; j++) {
      const list = indices.get(this.b[j]!);
      if (list) list.push(j);
      else indices.set(this.b[j]!, [j]);
    }
    const popular = autojunk && this.b.length >= 200 ? Math.floor(this.b.length / 100) + 1 : Infinity;
    for (const [element, list] of indices) if (list.length <= popular) this.b2j.set(element, Int32Array.from(list));
    this.previousRow = new Int32Array(this.b.length + 1);
    this.currentRow = new Int32Array(this.b.length + 1);
  }

  /** len(a) and len(b) in code points. */
  get lengths(): [number, number] {
    return [this.a.length, this.b.length];
  }

  /**
   * find_longest_match(alo, ahi, blo, bhi): the longest block of a[alo:ahi] and b[blo:bhi], the earliest in a then
   * in b among equals, extended over equal neighbours (nothing is junk without a junk function).
   */
  findLongestMatch(alo = 0, ahi = this.a.length, blo = 0, bhi = this.b.length): Match {
    const { a, b, b2j } = this;
    let [besti, bestj, bestsize] = [alo, blo, 0];
    let previous = this.previousRow;
    let current = this.currentRow;
    let previousSet: number[] = [];
    let currentSet: number[] = [];
    for (let i = alo; i < ahi; i++) {
      const js = b2j.get(a[i]!);
      if (js !== undefined) {
        for (let p = lowerBound(js, blo); p < js.length; p++) {
          const j = js[p]!;
          if (j >= bhi) break;
          // previous[j] is the length of the match ending at a[i-1], b[j-1] (0 when there is none).
          const k = previous[j]! + 1;
          current[j + 1] = k;
          currentSet.push(j + 1);
          if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
        }
      }
      for (const index of previousSet) previous[index] = 0;
      [previous, current] = [current, previous];
      [previousSet, currentSet] = [currentSet, previousSet];
      currentSet.length = 0;
    }
    for (const index of previousSet) previous[index] = 0;
    // The popular elements autojunk left out of b2j are not junk: a match runs on through them.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) [besti, bestj, bestsize] = [besti - 1, bestj - 1, bestsize + 1];
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return { a: besti, b: bestj, size: bestsize };
  }

  /** The total size of get_matching_blocks(). */
  matchingElements(): number {
    let total = 0;
    const queue: [number, number, number, number][] = [[0, this.a.length, 0, this.b.length]];
    while (queue.length > 0) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const { a: i, b: j, size: k } = this.findLongestMatch(alo, ahi, blo, bhi);
      if (k === 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
    return total;
  }

  /** ratio(): 2·M / T, 1.0 when both are empty. */
  ratio(): number {
    const length = this.a.length + this.b.length;
    return length === 0 ? 1 : (2 * this.matchingElements()) / length;
  }
}

/**
 * `SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size`: the length of the
 * longest common substring (with nothing junk and nothing popular, difflib's best block is exactly that). Computed in
 * O(len(a) + len(b)) with a suffix automaton of a, where difflib's loop costs len(a) × the occurrences of each
 * element in b (seconds for a long-context prompt).
 */
export function longestCommonSubstringSize(a: string, b: string): number {
  const source = codePointArray(a);
  if (source.length === 0 || b.length === 0) return 0;
  // The automaton's states: the length of each one's longest string, its suffix link and its transitions.
  const length = new Int32Array(2 * source.length + 1);
  const link = new Int32Array(2 * source.length + 1);
  const next: Map<number, number>[] = [new Map()];
  link[0] = -1;
  let last = 0;
  for (const element of source) {
    const current = next.length;
    next.push(new Map());
    length[current] = length[last]! + 1;
    let p = last;
    while (p !== -1 && !next[p]!.has(element)) {
      next[p]!.set(element, current);
      p = link[p]!;
    }
    if (p === -1) link[current] = 0;
    else {
      const q = next[p]!.get(element)!;
      if (length[p]! + 1 === length[q]) link[current] = q;
      else {
        const clone = next.length;
        next.push(new Map(next[q]));
        length[clone] = length[p]! + 1;
        link[clone] = link[q]!;
        while (p !== -1 && next[p]!.get(element) === q) {
          next[p]!.set(element, clone);
          p = link[p]!;
        }
        link[q] = clone;
        link[current] = clone;
      }
    }
    last = current;
  }
  // b read through it: the longest suffix of b[..j] that occurs in a, at every j.
  let [state, matched, best] = [0, 0, 0];
  for (const element of codePointArray(b)) {
    while (state !== 0 && !next[state]!.has(element)) {
      state = link[state]!;
      matched = length[state]!;
    }
    const to = next[state]!.get(element);
    if (to === undefined) [state, matched] = [0, 0];
    else [state, matched] = [to, matched + 1];
    if (matched > best) best = matched;
  }
  return best;
}

/** SequenceMatcher(None, a, b, autojunk).ratio(). */
export const sequenceRatio = (a: string, b: string, options?: SequenceMatcherOptions): number => new SequenceMatcher(a, b, options).ratio();

/** The upper bound SequenceMatcher.quick_ratio computes from element counts alone. */
function quickRatio(a: Int32Array, b: Int32Array): number {
  const available = new Map<number, number>();
  for (const element of b) available.set(element, (available.get(element) ?? 0) + 1);
  let matches = 0;
  for (const element of a) {
    const left = available.get(element) ?? 0;
    if (left > 0) matches++;
    available.set(element, left - 1);
  }
  const length = a.length + b.length;
  return length === 0 ? 1 : (2 * matches) / length;
}

/**
 * difflib.get_close_matches(word, possibilities, n, cutoff): the best `n` candidates scoring at least
 * `cutoff`, best first; equal scores go to the greater string, as Python's heapq.nlargest over (score, x).
 */
export function getCloseMatches(word: string, possibilities: Iterable<string>, n = 3, cutoff = 0.6): string[] {
  const wordPoints = codePointArray(word);
  const scored: [number, string][] = [];
  for (const candidate of possibilities) {
    // a = candidate, b = word, as get_close_matches sets them.
    const candidatePoints = codePointArray(candidate);
    const length = candidatePoints.length + wordPoints.length;
    const realQuick = length === 0 ? 1 : (2 * Math.min(candidatePoints.length, wordPoints.length)) / length;
    if (realQuick < cutoff || quickRatio(candidatePoints, wordPoints) < cutoff) continue;
    const ratio = sequenceRatio(candidate, word);
    if (ratio >= cutoff) scored.push([ratio, candidate]);
  }
  scored.sort((x, y) => y[0] - x[0] || compareStrings(y[1], x[1]));
  return scored.slice(0, n).map(([, candidate]) => candidate);
}
