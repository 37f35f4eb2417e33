// Python's difflib: SequenceMatcher(None, a, b).ratio() over characters (code points, as Python counts them; autojunk
// on, no junk function) and get_close_matches, so that a similarity score or a "did you mean" hint is NeMo Gym's.

/** Total size of the matching blocks of `a` and `b` (SequenceMatcher.get_matching_blocks, summed): characters one an element. */
function matchingCharacters(a: ArrayLike<string>, b: ArrayLike<string>): number {
  // b2j: every index of each character of b; with autojunk, characters of a long b (≥ 200) that occur in
  // more than 1% of it are "popular" and never start a match.
  const b2j = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const indices = b2j.get(b[j]!) ?? [];
    indices.push(j);
    b2j.set(b[j]!, indices);
  }
  if (b.length >= 200) {
    const popular = Math.floor(b.length / 100) + 1;
    for (const [char, indices] of b2j) if (indices.length > popular) b2j.delete(char);
  }

  const longestMatch = (alo: number, ahi: number, blo: number, bhi: number): [number, number, number] => {
    let [besti, bestj, bestsize] = [alo, blo, 0];
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
      }
      j2len = next;
    }
    // Python then extends the match over equal neighbours that are not junk: the popular characters autojunk left
    // out of b2j are not junk, so a match runs on through them (no isjunk: nothing is junk).
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) [besti, bestj, bestsize] = [besti - 1, bestj - 1, bestsize + 1];
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  };

  let total = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const [i, j, k] = longestMatch(alo, ahi, blo, bhi);
    if (k === 0) continue;
    total += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return total;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** SequenceMatcher(None, a, b).ratio(): a character outside the BMP is one element, as in Python. */
export function sequenceRatio(a: string, b: string): number {
  const [x, y] = SURROGATE.test(a) || SURROGATE.test(b) ? [Array.from(a), Array.from(b)] : [a, b];
  const length = x.length + y.length;
  return length === 0 ? 1 : (2 * matchingCharacters(x, y)) / length;
}

/** The upper bound SequenceMatcher.quick_ratio computes from character counts alone. */
function quickRatio(a: string, b: string): number {
  const available = new Map<string, number>();
  for (const char of b) available.set(char, (available.get(char) ?? 0) + 1);
  let matches = 0;
  for (const char of a) {
    const left = available.get(char) ?? 0;
    if (left > 0) matches++;
    available.set(char, left - 1);
  }
  const length = a.length + b.length;
  return length === 0 ? 1 : (2 * matches) / length;
}

/**
 * difflib.get_close_matches(word, possibilities, n, cutoff): the best `n` candidates scoring at least
 * `cutoff`, best first; equal scores go to the greater string, as Python's heapq.nlargest over (score, x).
 */
export function getCloseMatches(word: string, possibilities: Iterable<string>, n = 3, cutoff = 0.6): string[] {
  const scored: [number, string][] = [];
  for (const candidate of possibilities) {
    // a = candidate, b = word, as get_close_matches sets them.
    const length = candidate.length + word.length;
    const realQuick = length === 0 ? 1 : (2 * Math.min(candidate.length, word.length)) / length;
    if (realQuick < cutoff || quickRatio(candidate, word) < cutoff) continue;
    const ratio = sequenceRatio(candidate, word);
    if (ratio >= cutoff) scored.push([ratio, candidate]);
  }
  scored.sort((x, y) => y[0] - x[0] || (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0));
  return scored.slice(0, n).map(([, candidate]) => candidate);
}
