// Scorers of reasoning-gym's arithmetic tasks that override the default. Numbers are read as Python reads them:
// `Decimal(text)` exactly (src/python/decimal.ts), `float(text)` and `int(text)` with Unicode digits and `_`.
import { pythonFloat, pythonIntBig } from "../../../python/numbers.ts";
import { adjusted, decimalAbs, decimalEquals, decimalLessOrEqual, decimalQuantize, decimalSubtract, isZero, parseDecimal, type Decimal, type FiniteDecimal } from "../../../python/decimal.ts";
import { PYTHON_DIGIT_CHARS, PYTHON_SPACE_CHARS, PYTHON_WORD_BOUNDARY } from "../../../python/chars.ts";
import { pythonLen, pythonStrip } from "../../../python/str.ts";
import { item, oracleText, type Entry } from "../types.ts";

/**
 * `utils.compute_decimal_reward` with commas stripped (chain_sum, products): the same Decimal value → 1.0, else
 * the default's substring credit on the comma-less texts. A null oracle raises (→ 0.0 in NeMo Gym).
 */
export function decimalReward(answer: string | null, entry: Entry): number {
  if (answer === null || answer.length === 0) return 0;
  const given = answer.replaceAll(",", "");
  if (entry.answer === null) throw new TypeError("'in <string>' requires string as left operand, not NoneType");
  const oracle = entry.answer.replaceAll(",", "");
  try {
    if (decimalEquals(parseDecimal(given), parseDecimal(oracle))) return 1;
  } catch {
    // an unreadable number falls through to the substring credit, as in the library
  }
  return given.includes(oracle) ? pythonLen(oracle) / pythonLen(given) : 0;
}

/** decimal_chain_sum: the stripped answer has the oracle's Decimal value → 1.0, else 0.0. */
export function decimalChainSum(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string" || pythonStrip(answer).length === 0) return 0;
  try {
    return decimalEquals(parseDecimal(pythonStrip(answer)), parseDecimal(oracleText(entry))) ? 1 : 0;
  } catch {
    return 0;
  }
}

/** The default config's `max_num_decimal_places` (get_score_answer_fn builds the dataset with it): 3. */
const DECIMAL_ARITHMETIC_PLACES = 3;
const DECIMAL_ARITHMETIC_TOLERANCE = parseDecimal(`1e-${DECIMAL_ARITHMETIC_PLACES}`) as FiniteDecimal;

/** decimal_arithmetic: within 10^-3 of the oracle (computed in Decimal's 28-digit context) → 1.0, else 0.0. */
export function decimalArithmetic(answer: string | null, entry: Entry): number {
  if (typeof answer !== "string") return 0;
  try {
    const given = parseDecimal(answer);
    const oracle = parseDecimal(oracleText(entry));
    // NaN and infinities raise or compare false in Python: all score 0.0.
    if (given.kind !== "finite" || oracle.kind !== "finite") return 0;
    return decimalLessOrEqual(decimalAbs(decimalSubtract(given, oracle)), DECIMAL_ARITHMETIC_TOLERANCE) ? 1 : 0;
  } catch {
    return 0;
  }
}

/** `_format_sig_figs(x, 3)`: a zero is the string "0.00", anything else is quantized to 3 significant digits. */
function threeSignificant(value: Decimal): Decimal | string {
  if (isZero(value)) return "0.00";
  const exponent = value.kind === "finite" ? adjusted(value) : 0n;
  return decimalQuantize(value, exponent - 2n);
}

/** power_function: the same value to 3 significant figures → 1.0; any other answer (unreadable too) → 0.01. */
export function powerFunction(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    const given = threeSignificant(parseDecimal(answer));
    const oracle = threeSignificant(parseDecimal(oracleText(entry)));
    if (typeof given === "string" || typeof oracle === "string") return given === oracle ? 1 : 0.01;
    return decimalEquals(given, oracle) ? 1 : 0.01;
  } catch {
    return 0.01;
  }
}

const FIRST_NUMBER = new RegExp(`${PYTHON_WORD_BOUNDARY}-?${PYTHON_DIGIT_CHARS}+(?:\\.${PYTHON_DIGIT_CHARS}+)?${PYTHON_WORD_BOUNDARY}`, "u");

/**
 * gsm_symbolic: the first number in the answer (`\b-?\d+(?:\.\d+)?\b`, so a leading minus after a space is
 * not part of it) as a float, equal to float(oracle) → 1.0; another number → 0.01; none or an error → 0.0.
 */
export function gsmSymbolic(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  try {
    const match = FIRST_NUMBER.exec(answer);
    if (!match) return 0;
    return pythonFloat(match[0]) === pythonFloat(entry.answer) ? 1 : 0.01;
  } catch {
    return 0;
  }
}

/** number_format: float(answer without commas) within 0.01 of `metadata.solution` → 1.0, else 0.0. */
export function numberFormat(answer: string | null, entry: Entry): number {
  const solution = item(entry.metadata, "solution");
  if (typeof answer !== "string" || answer.length === 0) return 0;
  try {
    const given = pythonFloat(pythonStrip(answer).replaceAll(",", ""));
    if (typeof solution !== "number" && typeof solution !== "boolean") return 0; // the TypeError the bare except swallows
    return Math.abs(given - Number(solution)) < 1e-2 ? 1 : 0;
  } catch {
    return 0;
  }
}

const LATEX_FRACTION = new RegExp(`^\\\\(?:frac|dfrac)[${PYTHON_SPACE_CHARS}]*\\{[${PYTHON_SPACE_CHARS}]*(${PYTHON_DIGIT_CHARS}+)[${PYTHON_SPACE_CHARS}]*\\}[${PYTHON_SPACE_CHARS}]*\\{[${PYTHON_SPACE_CHARS}]*(${PYTHON_DIGIT_CHARS}+)[${PYTHON_SPACE_CHARS}]*\\}`, "iu");

/** `_extract_fraction`: `\frac{a}{b}` / `\dfrac{a}{b}` at the start, else `a/b`; null where the library returns None. */
function extractFraction(answer: string | null): [bigint, bigint] | null {
  if (answer === null) return null; // None.strip() raises; the library's except returns None
  try {
    const cleaned = pythonStrip(pythonStrip(answer).replace(/^\$+|\$+$/g, ""));
    const latex = LATEX_FRACTION.exec(cleaned);
    if (latex) return [pythonIntBig(latex[1]!), pythonIntBig(latex[2]!)];
    const slash = cleaned.indexOf("/");
    if (slash >= 0) return [pythonIntBig(pythonStrip(cleaned.slice(0, slash))), pythonIntBig(pythonStrip(cleaned.slice(slash + 1)))];
    return null;
  } catch {
    return null;
  }
}

/** Python's `int == value` for a JSON metadata value (`True == 1`). */
function intEquals(n: bigint, value: unknown): boolean {
  if (typeof value === "boolean") return n === (value ? 1n : 0n);
  return typeof value === "number" && Number.isInteger(value) && BigInt(value) === n;
}

/**
 * fraction_simplification: the simplified fraction → 1.0; the original numerator or denominator kept → 0.1;
 * another fraction → 0.05; no fraction (or a missing metadata key) → 0.01.
 */
export function fractionSimplification(answer: string | null, entry: Entry): number {
  const fraction = extractFraction(answer);
  if (fraction === null) return 0.01;
  const [numerator, denominator] = fraction;
  const metadata = entry.metadata;
  try {
    if (intEquals(numerator, item(metadata, "simplified_numerator")) && intEquals(denominator, item(metadata, "simplified_denominator"))) return 1;
    if (intEquals(numerator, item(metadata, "numerator")) || intEquals(denominator, item(metadata, "denominator"))) return 0.1;
    return pythonStrip(answer!).length > 0 ? 0.05 : 0.01;
  } catch {
    return 0.01;
  }
}

/** `_normalize_answer`: the `×`-separated factors as sorted ints; a factor that is not an int raises. */
function factors(text: string | null): bigint[] {
  if (!text || pythonStrip(text) === "") return [];
  return text
    .split("×")
    .filter((factor) => pythonStrip(factor) !== "")
    .map((factor) => pythonIntBig(pythonStrip(factor)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const product = (values: bigint[]) => values.reduce((acc, value) => acc * value, 1n);

/**
 * prime_factorization: the same multiset of factors → 1.0; other factors with the same product → 0.5; else
 * 0.01. A factor that is not an integer raises (NeMo Gym: 0.0); no answer → 0.0.
 */
export function primeFactorization(answer: string | null, entry: Entry): number {
  if (answer === null) return 0;
  const oracle = factors(entry.answer);
  const given = factors(answer);
  if (oracle.length === given.length && oracle.every((factor, i) => factor === given[i])) return 1;
  return product(oracle) === product(given) ? 0.5 : 0.01;
}
