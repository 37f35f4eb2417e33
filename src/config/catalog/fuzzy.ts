// Name matching as NeMo Gym's listings do it: Python's difflib (src/python/difflib.ts) for similarity and close
// matches, the "did you mean" hint of an unknown name (src/config/selectors.ts), and `gym search`'s
// substring-or-close match.
import { getCloseMatches, sequenceRatio } from "../../python/difflib.ts";

export { didYouMean } from "../selectors.ts";
/** difflib.SequenceMatcher(None, a, b).ratio(). */
export const similarity = sequenceRatio;
/** difflib.get_close_matches(word, possibilities, n, cutoff). */
export const closeMatches = getCloseMatches;

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
    if (getCloseMatches(needle, [haystack, ...words], 1, 0.7).length > 0) return true;
  }
  return false;
}
