// NeMo Gym's terminus_judge checks, apart from the judge: the keystroke similarity of two command batches, the
// task-completion flag, and the verdict read from a judge's text. Python semantics: difflib's ratio over code
// points, string slicing by code points.
import { sequenceRatio } from "../../src/python/difflib.ts";
import { pythonSlice } from "../../src/python/str.ts";
import { isPyDict, pythonTruthy, type PyDict, type PyValue } from "../../src/python/values.ts";

/** Each command's `keystrokes`, for commands that have one (NeMo Gym's extract_keystrokes). */
function keystrokes(batch: PyDict): string[] {
  const commands = batch.get("commands");
  if (!Array.isArray(commands)) return [];
  return commands.filter((c): c is PyDict => isPyDict(c) && c.has("keystrokes")).map((c) => c.get("keystrokes") as string);
}

/** difflib's ratio counts code points; sequenceRatio counts UTF-16 units, so astral characters are first mapped to
 *  private-use ones neither string holds (one unit each, equal where the originals were). */
function codePointRatio(a: string, b: string): number {
  const astral = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
  if (!astral.test(a) && !astral.test(b)) return sequenceRatio(a, b);
  const used = new Set(Array.from(a + b));
  const mapping = new Map<string, string>();
  let next = 0xe000;
  const map = (text: string) =>
    text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, (pair) => {
      let to = mapping.get(pair);
      if (to === undefined) {
        while (used.has(String.fromCharCode(next))) next++;
        to = String.fromCharCode(next++);
        mapping.set(pair, to);
      }
      return to;
    });
  return sequenceRatio(map(a), map(b));
}

/** NeMo Gym's command_similarity: both batches' keystrokes concatenated in order, compared by difflib's ratio. */
export function commandSimilarity(expected: PyDict, predicted: PyDict): number {
  const gold = keystrokes(expected);
  const pred = keystrokes(predicted);
  if (gold.length === 0 && pred.length === 0) return 1.0;
  if (gold.length === 0 || pred.length === 0) return 0.0;
  return codePointRatio(gold.join(""), pred.join(""));
}

const truthy = (value: PyValue | undefined) => value !== undefined && pythonTruthy(value);

/** NeMo Gym's check_task_complete: when the expected batch says the task is done, the prediction must say so too. */
export function taskCompleteMatches(predicted: PyDict, expected: PyDict): boolean {
  if (truthy(expected.get("task_complete"))) return truthy(predicted.get("task_complete"));
  if (truthy(expected.get("is_task_complete"))) return truthy(predicted.get("is_task_complete"));
  return true;
}

/**
 * NeMo Gym's _parse_verdict_from_text: the rightmost label within the last 200 characters (rubric prompts end with
 * the verdict), else the first label anywhere; no label is no verdict.
 */
export function parseVerdict(text: string, equalLabel: string, notEqualLabel: string): { equal: boolean; label: string | null } {
  const tail = pythonSlice(text, -200, undefined);
  const eqTail = tail.lastIndexOf(equalLabel);
  const neqTail = tail.lastIndexOf(notEqualLabel);
  if (eqTail >= 0 && (neqTail < 0 || eqTail > neqTail)) return { equal: true, label: equalLabel };
  if (neqTail >= 0) return { equal: false, label: notEqualLabel };
  const eq = text.indexOf(equalLabel);
  const neq = text.indexOf(notEqualLabel);
  if (eq >= 0 && (neq < 0 || eq < neq)) return { equal: true, label: equalLabel };
  if (neq >= 0) return { equal: false, label: notEqualLabel };
  return { equal: false, label: null };
}
