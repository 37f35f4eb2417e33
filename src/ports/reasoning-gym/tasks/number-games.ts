// Scorers of reasoning-gym's arithmetic games, countdown and puzzle24: the answer is an arithmetic expression,
// which the library reads with SymPy's parse_expr and here is read by the safe evaluator in
// arithmetic-expression.ts (exact rationals, no eval).
import { fromJsonValue, pythonEquals, type PyValue, pythonIterate, pythonSorted } from "../../../python/values.ts";
import { pythonFindall } from "../../../python/re/index.ts";
import { pythonIntBig } from "../../../python/numbers.ts";
import { pythonStrip } from "../../../python/str.ts";
import { evaluateArithmetic, valueToFloat, valueToInt } from "../arithmetic-expression.ts";
import { item, type Entry } from "../types.ts";

/** The integer literals of the answer text, as `re.findall(r"\b\d+\b")` finds them (a decimal's two sides too). */
const integersIn = (text: string): bigint[] => pythonFindall<string>(String.raw`\b\d+\b`, text).map((digits) => pythonIntBig(digits));

/** `numpy.isclose(a, b, atol=1e-6)`: |a − b| ≤ 1e-6 + 1e-5·|b|; infinities equal only themselves, NaN nothing. */
function isClose(a: number, b: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= 1e-6 + 1e-5 * Math.abs(b);
}

/**
 * countdown: 0.01 for no answer or an unreadable expression; 0.05 when its integer literals are not exactly
 * `metadata.numbers` (as multisets) or its value is not close to `metadata.target`; 1.0 otherwise.
 */
export function countdown(answer: string | null, entry: Entry): number {
  if (answer === null || pythonStrip(answer) === "") return 0.01;
  try {
    const value = valueToFloat(evaluateArithmetic(answer));
    const used = pythonSorted<PyValue>(integersIn(answer));
    const expected = pythonSorted(pythonIterate(fromJsonValue(item(entry.metadata, "numbers"))));
    if (!pythonEquals(used, expected)) return 0.05;
    const target = fromJsonValue(item(entry.metadata, "target"));
    if (typeof target !== "bigint" && typeof target !== "number" && typeof target !== "boolean") throw new TypeError("target is not a number");
    return isClose(value, Number(target)) ? 1 : 0.05;
  } catch {
    return 0.01;
  }
}

// Puzzle24Config's defaults, which get_score_answer_fn's dataset instance uses.
const MIN_VALUE = 1n;
const MAX_VALUE = 10n;

/**
 * puzzle24: 1.0 when the expression's value, truncated to an int, is 24 and it holds exactly four integer
 * literals, each within 1..10 (which four is not checked, as in the library); 0.01 otherwise.
 */
export function puzzle24(answer: string | null, _entry: Entry): number {
  if (answer === null) return 0.01;
  try {
    const text = pythonStrip(answer);
    const solved = valueToInt(evaluateArithmetic(text)) === 24n;
    const used = integersIn(text);
    if (used.length !== 4 || used.some((n) => n > MAX_VALUE || n < MIN_VALUE) || !solved) return 0.01;
    return 1;
  } catch {
    return 0.01;
  }
}
