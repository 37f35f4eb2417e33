// Python's float arithmetic where JS's differs: `round(x, n)` rounds the exact binary value (half to even only
// on an exact tie; `toFixed` rounds ties away from zero), and `statistics.mean()` divides the exact sum, rounding
// once. (`sum()`, compensated since CPython 3.12, is src/metrics/stats.ts's pythonSum.)

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
  if (values.length === 0) throw new Error("mean requires at least one data point");
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
