import { replaceLoneSurrogates } from "../../src/python/utf8.ts";

// arena-hard-auto's verdict rule (show_result.py, as NeMo Gym's arena_judge applies it): every `[[...]]` label made
// of A, B, <, >, = in the judge's text; the verdict is the label when all of them agree and it is one of the five
// valid ones, else none (no label, labels that disagree, or a label like [[A>>>B]]).
export const VALID_VERDICTS = ["A>>B", "A>B", "A=B", "B>A", "B>>A"] as const;
export type Verdict = (typeof VALID_VERDICTS)[number];

const LABEL = /\[\[([AB<>=]+)\]\]/g;

export function parseVerdict(judgment: string): Verdict | null {
  if (!judgment) return null;
  const labels = new Set([...judgment.matchAll(LABEL)].map((match) => match[1]!));
  if (labels.size !== 1) return null;
  const [label] = labels;
  return (VALID_VERDICTS as readonly string[]).includes(label!) ? (label as Verdict) : null;
}

/**
 * NeMo Gym's sanitize_generation: a JSON round trip through UTF-8 with surrogatepass/replace turns each lone
 * surrogate half into three U+FFFD. Its NUL removal never fires (json.dumps has escaped NUL as \u0000 by then), so
 * NULs stay.
 */
export const sanitizeGeneration = (text: string): string => replaceLoneSurrogates(text);
