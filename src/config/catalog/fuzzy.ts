// Name matching as NeMo Gym's listings do it: Python's difflib similarity (SequenceMatcher.ratio), its
// get_close_matches, the "did you mean" hint of an unknown name, and `gym search`'s substring-or-close match.

/** difflib.SequenceMatcher(None, a, b).ratio(): 2·matches / (len(a) + len(b)); no junk (queries are short). */
export function similarity(a: string, b: string): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * matchingCharacters(a, b)) / total;
}

/** Characters in difflib's matching blocks: the longest common block, then the same on each side of it. */
function matchingCharacters(a: string, b: string): number {
  const positionsInB = new Map<string, number[]>();
  [...b].forEach((char, index) => positionsInB.set(char, [...(positionsInB.get(char) ?? []), index]));
  let matched = 0;
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [aLow, aHigh, bLow, bHigh] = queue.pop()!;
    const [i, j, size] = longestMatch(a, positionsInB, aLow, aHigh, bLow, bHigh);
    if (size === 0) continue;
    matched += size;
    if (aLow < i && bLow < j) queue.push([aLow, i, bLow, j]);
    if (i + size < aHigh && j + size < bHigh) queue.push([i + size, aHigh, j + size, bHigh]);
  }
  return matched;
}

/** difflib's find_longest_match without junk: the earliest longest block of a[aLow:aHigh] in b[bLow:bHigh]. */
function longestMatch(a: string, positionsInB: Map<string, number[]>, aLow: number, aHigh: number, bLow: number, bHigh: number): [number, number, number] {
  let best: [number, number, number] = [aLow, bLow, 0];
  let lengthEndingAt = new Map<number, number>();
  for (let i = aLow; i < aHigh; i++) {
    const next = new Map<number, number>();
    for (const j of positionsInB.get(a[i]!) ?? []) {
      if (j < bLow) continue;
      if (j >= bHigh) break;
      const size = (lengthEndingAt.get(j - 1) ?? 0) + 1;
      next.set(j, size);
      if (size > best[2]) best = [i - size + 1, j - size + 1, size];
    }
    lengthEndingAt = next;
  }
  return best;
}

/** difflib.get_close_matches(word, possibilities, n, cutoff): best first; equal scores, the larger string first. */
export function closeMatches(word: string, possibilities: Iterable<string>, n = 3, cutoff = 0.6): string[] {
  const scored: [number, string][] = [];
  for (const candidate of possibilities) {
    const score = similarity(candidate, word);
    if (score >= cutoff) scored.push([score, candidate]);
  }
  scored.sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : 0));
  return scored.slice(0, n).map(([, candidate]) => candidate);
}

/** " Did you mean `X`?" for the closest candidate, or "" when none is close (NeMo Gym's did_you_mean). */
export function didYouMean(value: string, candidates: Iterable<string>): string {
  const [match] = closeMatches(value, candidates, 1);
  return match === undefined ? "" : ` Did you mean \`${match}\`?`;
}

/**
 * Whether `query` matches any of `fields`: a case-insensitive substring, or a close match (≥ 0.70) to the whole
 * field or one of its words (split at spaces, `_` and `-`). What `gym search` filters with.
 */
export function fuzzyMatches(query: string, ...fields: (string | null | undefined)[]): boolean {
  const needle = query.toLowerCase();
  for (const field of fields) {
    if (!field) continue;
    const haystack = field.toLowerCase();
    if (haystack.includes(needle)) return true;
    const words = haystack.replace(/[_-]/g, " ").split(/\s+/).filter((word) => word !== "");
    if (closeMatches(needle, [haystack, ...words], 1, 0.7).length > 0) return true;
  }
  return false;
}
