// Python's floats where JS's differ, printing and rounding: `repr(float)` (shortest round-trip digits, but
// Python's switch to exponent form and its `.0`), `repr(complex)`, `format(x, ".Ng")` (half-even on the exact
// binary value; `toPrecision` rounds ties up), `round(x, n)` (half to even only on an exact tie; `toFixed`
// rounds ties away from zero), and `statistics.mean()` (the exact sum divided, rounding once). `sum()`,
// compensated since CPython 3.12, is sum.ts; `math` functions and `int / int` are math.ts.
import { PyException } from "./exception.ts";

/** |x| = mantissa · 2^exponent exactly, for finite x. */
export function floatParts(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** `round(x, ndigits)` on a float, for ndigits ≥ 0. */
export function pythonRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { mantissa, exponent } = floatParts(x);
  const scale = 10n ** BigInt(ndigits);
  // |x| * 10^ndigits = numerator / denominator, exactly.
  const numerator = exponent >= 0 ? (mantissa << BigInt(exponent)) * scale : mantissa * scale;
  const denominator = exponent >= 0 ? 1n : 1n << BigInt(-exponent);
  let quotient = numerator / denominator;
  const twiceRemainder = 2n * (numerator % denominator);
  if (twiceRemainder > denominator || (twiceRemainder === denominator && quotient % 2n === 1n)) quotient += 1n;
  const magnitude = Number(`${quotient}e-${ndigits}`);
  return x < 0 ? -magnitude : magnitude;
}

/** `statistics.mean(floats)`: the exact sum divided by the count, rounded once to a double. */
export function pythonMean(values: readonly number[]): number {
  if (values.length === 0) throw new PyException("StatisticsError", "mean requires at least one data point");
  if (values.some((value) => !Number.isFinite(value))) return values.reduce((a, b) => a + b, 0) / values.length;
  // Every value as an integer count of 2^-1074, the smallest subnormal.
  let total = 0n;
  for (const value of values) {
    const { mantissa, exponent } = floatParts(value);
    const units = mantissa << BigInt(exponent + 1074);
    total += value < 0 ? -units : units;
  }
  const negative = total < 0n;
  const numerator = negative ? -total : total;
  const denominator = BigInt(values.length) << 1074n;
  if (numerator === 0n) return 0;
  // Scale so the quotient has at least 64 significant bits, keep a sticky bit, round once in Number().
  const scale = Math.max(0, 64 - (numerator.toString(2).length - denominator.toString(2).length));
  let quotient = (numerator << BigInt(scale)) / denominator;
  if ((numerator << BigInt(scale)) % denominator !== 0n) quotient |= 1n;
  const magnitude = Number(quotient) / 2 ** scale;
  return negative ? -magnitude : magnitude;
}

// ---- repr(float), repr(complex) ----

/** Shortest round-trip digits of |x| (finite, non-zero) with Python's decimal-point position: |x| = 0.d1d2… × 10^point. */
function shortestDigits(x: number): { digits: string; point: number } {
  let text = String(Math.abs(x));
  let exponent = 0;
  const e = text.indexOf("e");
  if (e >= 0) {
    exponent = Number(text.slice(e + 1));
    text = text.slice(0, e);
  }
  const dot = text.indexOf(".");
  const integer = dot >= 0 ? text.slice(0, dot) : text;
  let digits = integer + (dot >= 0 ? text.slice(dot + 1) : "");
  let point = integer.length + exponent;
  const leadingZeros = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(leadingZeros).replace(/0+$/, "");
  point -= leadingZeros;
  return { digits, point };
}

/** `repr(x)` (= `str(x)`) of a float; `addDotZero: false` is the form complex repr uses (`1` rather than `1.0`). */
export function floatRepr(x: number, addDotZero = true): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0${addDotZero ? ".0" : ""}`;
  const { digits, point } = shortestDigits(x);
  // Python switches to exponent form outside 1e-4 ≤ |x| < 1e16.
  if (point <= -4 || point > 16) {
    const exponent = point - 1;
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}${addDotZero ? ".0" : ""}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `repr(complex(re, im))`: `(1.5+2j)`, or just `2j` when the real part is +0. */
export function complexRepr(re: number, im: number): string {
  const imaginarySign = im < 0 || Object.is(im, -0) ? "-" : "+";
  const imaginary = floatRepr(Number.isNaN(im) ? im : Math.abs(im), false);
  if (re === 0 && !Object.is(re, -0)) return `${im < 0 || Object.is(im, -0) ? "-" : ""}${imaginary}j`;
  return `(${floatRepr(re, false)}${imaginarySign}${imaginary}j)`;
}

// ---- format(x, ".Ng") ----

/** The exact decimal digits of a finite positive double: `digits × 10^exponent`. */
function exactDecimal(x: number): { digits: string; exponent: number } {
  const { mantissa, exponent: e } = floatParts(x);
  // m·2^e = m·5^-e / 10^-e for e < 0.
  return e >= 0 ? { digits: (mantissa << BigInt(e)).toString(), exponent: 0 } : { digits: (mantissa * 5n ** BigInt(-e)).toString(), exponent: e };
}

/** Python's `format(x, f".{precision}g")` for a finite float. */
export function formatG(x: number, precision: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0`;
  const p = Math.max(precision, 1);
  const { digits, exponent } = exactDecimal(Math.abs(x));
  const trimmed = digits.replace(/^0+/, "");
  let decimalExponent = trimmed.length - 1 + exponent; // of the leading digit
  let kept = BigInt(trimmed.slice(0, p).padEnd(p, "0"));
  const rest = trimmed.slice(p);
  if (rest.length > 0) {
    const firstDropped = rest[0]!;
    const beyond = /[1-9]/.test(rest.slice(1));
    if (firstDropped > "5" || (firstDropped === "5" && (beyond || kept % 2n === 1n))) kept += 1n;
  }
  let keptDigits = kept.toString();
  if (keptDigits.length > p) {
    keptDigits = keptDigits.slice(0, p);
    decimalExponent += 1;
  }
  if (decimalExponent < -4 || decimalExponent >= p) {
    const mantissa = `${keptDigits[0]}.${keptDigits.slice(1)}`.replace(/\.?0+$/, "");
    const e = Math.abs(decimalExponent).toString().padStart(2, "0");
    return `${sign}${mantissa}e${decimalExponent < 0 ? "-" : "+"}${e}`;
  }
  const point = decimalExponent + 1;
  const text = point <= 0 ? `0.${"0".repeat(-point)}${keptDigits}` : point >= p ? keptDigits + "0".repeat(point - p) : `${keptDigits.slice(0, point)}.${keptDigits.slice(point)}`;
  return sign + (text.includes(".") ? text.replace(/\.?0+$/, "") : text);
}
