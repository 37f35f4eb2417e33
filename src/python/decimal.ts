// Python's `decimal.Decimal` as far as the arithmetic scorers use it: construction from a string (exact, no
// context), `==`, subtraction and `abs` in the default context (28 digits, ROUND_HALF_EVEN), `<=`, and
// `quantize`. Values are exact: a coefficient and a power-of-ten exponent, both BigInt.
import { InvalidOperation } from "./exception.ts";
import { pythonStrip } from "./str.ts";
import { asciiDigits } from "./numbers.ts";

export type Decimal =
  | { kind: "finite"; negative: boolean; coefficient: bigint; exponent: bigint }
  | { kind: "infinity"; negative: boolean }
  | { kind: "nan"; negative: boolean; signaling: boolean };

export type FiniteDecimal = Extract<Decimal, { kind: "finite" }>;

/** The default context: `getcontext()` in a fresh interpreter. */
const PRECISION = 28;
const EMAX = 999999n;
const ETINY = -999999n - BigInt(PRECISION - 1);
/** The C implementation's limits on a constructed value (64-bit build). */
const MAX_EMAX = 999999999999999999n;
const MIN_ETINY = -999999999999999999n - 999999999999999998n;

const NUMERIC = /^([+-])?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:e([+-]?\d+))?$/i;
const SPECIAL = /^([+-])?(?:(inf|infinity)|(s)?nan(\d*))$/i;

/**
 * `Decimal(text)`. As CPython's C implementation: whitespace around is dropped, every `_` is ignored (not only
 * between digits), Unicode decimal digits count, `inf`/`Infinity`/`nan`/`sNaN` in any case; anything else is
 * InvalidOperation.
 */
export function parseDecimal(text: string): Decimal {
  const invalid = () => new InvalidOperation("[<class 'decimal.ConversionSyntax'>]");
  // Decimal() strips all of str.isspace(), \x1c–\x1f included (int() and float() do not).
  const body = asciiDigits(pythonStrip(text).replace(/_/g, ""));
  const special = SPECIAL.exec(body);
  if (special) {
    const negative = special[1] === "-";
    if (special[2] !== undefined) return { kind: "infinity", negative };
    return { kind: "nan", negative, signaling: special[3] !== undefined };
  }
  const match = NUMERIC.exec(body);
  if (!match) throw invalid();
  const [, sign, integer, fraction, onlyFraction, exponentText] = match;
  const digits = integer !== undefined ? integer + (fraction ?? "") : onlyFraction!;
  const fractionLength = integer !== undefined ? (fraction ?? "").length : onlyFraction!.length;
  const exponent = BigInt(exponentText ?? "0") - BigInt(fractionLength);
  const coefficient = BigInt(digits);
  const adjusted = exponent + BigInt(digitCount(coefficient)) - 1n;
  if (adjusted > MAX_EMAX || exponent < MIN_ETINY) throw invalid();
  return { kind: "finite", negative: sign === "-", coefficient, exponent };
}

const digitCount = (n: bigint): number => (n === 0n ? 1 : n.toString().length);
const pow10 = (n: bigint | number): bigint => 10n ** BigInt(n);

/** The exponent of the most significant digit (`Decimal.adjusted()`). */
export const adjusted = (d: FiniteDecimal): bigint => d.exponent + BigInt(digitCount(d.coefficient)) - 1n;

const signalingNan = () => new InvalidOperation("[<class 'decimal.InvalidOperation'>]");

/** Compares two finite values: -1, 0, 1. */
function compareFinite(a: FiniteDecimal, b: FiniteDecimal): number {
  const aZero = a.coefficient === 0n;
  const bZero = b.coefficient === 0n;
  if (aZero && bZero) return 0;
  const aSign = aZero ? 0 : a.negative ? -1 : 1;
  const bSign = bZero ? 0 : b.negative ? -1 : 1;
  if (aSign !== bSign) return aSign < bSign ? -1 : 1;
  // Same sign, both non-zero: magnitudes by adjusted exponent, then by aligned coefficients (the shift is at
  // most the difference in digit counts, so it stays small).
  let magnitude: number;
  if (adjusted(a) !== adjusted(b)) magnitude = adjusted(a) > adjusted(b) ? 1 : -1;
  else {
    const shift = a.exponent - b.exponent;
    const left = shift >= 0n ? a.coefficient * pow10(shift) : a.coefficient;
    const right = shift >= 0n ? b.coefficient : b.coefficient * pow10(-shift);
    magnitude = left === right ? 0 : left > right ? 1 : -1;
  }
  return aSign * magnitude;
}

/** `a == b`: by value (`1.0 == 1`, `-0 == 0`); a NaN is equal to nothing; an sNaN raises. */
export function decimalEquals(a: Decimal, b: Decimal): boolean {
  if ((a.kind === "nan" && a.signaling) || (b.kind === "nan" && b.signaling)) throw signalingNan();
  if (a.kind === "nan" || b.kind === "nan") return false;
  if (a.kind === "infinity" || b.kind === "infinity") return a.kind === b.kind && a.negative === b.negative;
  return compareFinite(a, b) === 0;
}

/** `a <= b` for finite values (the only case the scorers reach without an exception). */
export const decimalLessOrEqual = (a: FiniteDecimal, b: FiniteDecimal): boolean => compareFinite(a, b) <= 0;

/** Drops `dropDigits` trailing digits of a coefficient, rounding half to even (the default context's rounding). */
function roundHalfEven(coefficient: bigint, dropDigits: bigint): bigint {
  if (dropDigits <= 0n) return coefficient;
  const divisor = pow10(dropDigits);
  const quotient = coefficient / divisor;
  const twiceRemainder = (coefficient % divisor) * 2n;
  if (twiceRemainder > divisor || (twiceRemainder === divisor && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}

/** Rounds a finite result to the context's 28 digits; an exponent past Emax is the Overflow Python raises. */
function roundToContext(value: FiniteDecimal): FiniteDecimal {
  let { coefficient, exponent } = value;
  const excess = BigInt(digitCount(coefficient) - PRECISION);
  if (excess > 0n) {
    coefficient = roundHalfEven(coefficient, excess);
    exponent += excess;
    if (digitCount(coefficient) > PRECISION) {
      coefficient /= 10n;
      exponent += 1n;
    }
  }
  const result: FiniteDecimal = { kind: "finite", negative: value.negative, coefficient, exponent };
  if (coefficient !== 0n && adjusted(result) > EMAX) throw new Error("[<class 'decimal.Overflow'>]");
  return result;
}

/**
 * `a - b` in the default context, for finite values. An operand far below the other's last digit and below the
 * 28-digit window only decides the rounding direction, so it is replaced by a token of the same sign just below
 * both (keeps the BigInts small when exponents are far apart).
 */
export function decimalSubtract(a: FiniteDecimal, b: FiniteDecimal): FiniteDecimal {
  const negatedB: FiniteDecimal = { ...b, negative: !b.negative };
  const [big, small] = compareMagnitude(a, negatedB) >= 0 ? [a, negatedB] : [negatedB, a];
  // x - 0 is x: only its value matters here, not the zero's exponent (which may be far off either way).
  if (small.coefficient === 0n) return roundToContext(big.coefficient === 0n ? { ...big, exponent: 0n } : big);
  let tiny = small;
  if (small.coefficient !== 0n && big.coefficient !== 0n) {
    const floor = minBig(big.exponent, adjusted(big) - BigInt(PRECISION) - 1n);
    if (adjusted(small) < floor - 1n) tiny = { ...small, coefficient: 1n, exponent: floor - 2n };
  }
  const exponent = minBig(big.exponent, tiny.exponent);
  const signed = (d: FiniteDecimal) => (d.negative ? -1n : 1n) * d.coefficient * pow10(d.exponent - exponent);
  const sum = signed(big) + signed(tiny);
  // An exact zero sum is +0 in ROUND_HALF_EVEN (unless both operands were negative zeros).
  const negative = sum < 0n || (sum === 0n && big.negative && tiny.negative);
  return roundToContext({ kind: "finite", negative, coefficient: sum < 0n ? -sum : sum, exponent });
}

function compareMagnitude(a: FiniteDecimal, b: FiniteDecimal): number {
  return compareFinite({ ...a, negative: false }, { ...b, negative: false });
}

const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** `abs(d)` of a finite value (rounded to the context, as Python's `abs` is). */
export const decimalAbs = (d: FiniteDecimal): FiniteDecimal => roundToContext({ ...d, negative: false });

/**
 * `d.quantize(Decimal("1e<exponent>"))` in the default context: rounded half-even to that exponent. A result
 * exponent outside [Etiny, Emax], a result with more than 28 digits or past Emax, and an infinite operand are
 * InvalidOperation; a quiet NaN comes back as itself; an sNaN raises.
 */
export function decimalQuantize(d: Decimal, exponent: bigint): Decimal {
  if (d.kind === "nan") {
    if (d.signaling) throw signalingNan();
    return d;
  }
  if (d.kind === "infinity") throw new InvalidOperation("[<class 'decimal.InvalidOperation'>]");
  if (exponent > EMAX || exponent < ETINY) throw new InvalidOperation("[<class 'decimal.InvalidOperation'>]");
  const coefficient = exponent >= d.exponent ? roundHalfEven(d.coefficient, exponent - d.exponent) : d.coefficient * pow10(d.exponent - exponent);
  const result: FiniteDecimal = { kind: "finite", negative: d.negative, coefficient, exponent };
  if (digitCount(coefficient) > PRECISION || (coefficient !== 0n && adjusted(result) > EMAX)) throw new InvalidOperation("[<class 'decimal.InvalidOperation'>]");
  return result;
}

export const isZero = (d: Decimal): boolean => d.kind === "finite" && d.coefficient === 0n;
