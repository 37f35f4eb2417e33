// The shapes reasoning-gym's scorers work on: a dataset entry as NeMo Gym rebuilds it from the row, and the
// `score_answer(answer, entry)` signature every task implements.
import { KeyError } from "../../python/exception.ts";
import { pythonStringRepr } from "../../python/repr.ts";

/** `{question, answer, metadata}`: the oracle may be null (the row's `answer: Optional[str]`). */
export interface Entry {
  question: string;
  answer: string | null;
  metadata: Record<string, unknown>;
}

/**
 * A task's `score_answer`. `answer` is `Optional[str]` as in the library (the server always passes a string).
 * Throwing is allowed and means what a Python exception means there: NeMo Gym scores the answer 0.0.
 */
export type Scorer = (answer: string | null, entry: Entry) => number;

/** `mapping[key]`: a missing key raises, as in Python. */
export function item(mapping: Record<string, unknown>, key: string): unknown {
  if (!Object.hasOwn(mapping, key)) throw new KeyError(pythonStringRepr(key));
  return mapping[key];
}

/** The oracle where the library calls a str method on it: on a null oracle that is Python's AttributeError. */
export function oracleText(entry: Entry): string {
  if (entry.answer === null) throw new TypeError("'NoneType' object has no attribute of a str (the oracle answer is None)");
  return entry.answer;
}
