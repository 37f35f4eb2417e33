// Correctly rounded sin, cos, log and pow for doubles.
//
// NeMo Gym's calculator runs on CPython, whose `math.sin`, `math.log` and `**` call the C library (glibc),
// and glibc's are correctly rounded in practice (< 0.52 ulp). V8's Math.sin/log/pow are not: on ordinary
// inputs (cos(6), log(2)/log(3), 10 ** -5) they differ in the last bit in 2–5 % of cases, and the reward
// compares a tool's answer with the dataset's ground truth for exact equality. So these functions compute
// in BigInt fixed point and round once: a result is accepted only when its error interval does not
// straddle a rounding midpoint, else the precision is doubled (Ziv's strategy).

const PRECISIONS = [128, 256, 512, 1024, 2048];
/** Generous bound, in units of the last fixed-point bit, of every series below. */
const ERROR_UNITS = 1n << 12n;

// ---- doubles as exact integers ----

/** |x| = mantissa · 2^exponent exactly, for finite x ≠ 0. */
export function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);
const abs = (n: bigint) => (n < 0n ? -n : n);
/** a · b / 2^bits, truncated toward zero (so a series of shrinking terms reaches 0 whatever their sign). */
const mulShift = (a: bigint, b: bigint, bits: number) => {
  const product = a * b;
  return product < 0n ? -(-product >> BigInt(bits)) : product >> BigInt(bits);
};
const floorDiv = (a: bigint, b: bigint) => a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n);

/** q · 2^e without intermediate rounding (q an integer below 2^54, the result representable). */
function ldexp(q: number, e: number): number {
  let value = q;
  let rest = e;
  while (rest > 600) (value *= 2 ** 600), (rest -= 600);
  while (rest < -600) (value *= 2 ** -600), (rest += 600);
  return value * 2 ** rest;
}

/**
 * The double nearest to n · 2^-scale when n is known to within ±errorUnits, or undefined when the
 * interval straddles a rounding midpoint. Ties (errorUnits = 0) go to even. Beyond the largest double: ±Infinity.
 */
function roundScaled(n: bigint, scale: number, errorUnits: bigint): number | undefined {
  const sign = n < 0n ? -1 : 1;
  const a = abs(n);
  if (a <= errorUnits) return errorUnits === 0n ? 0 : undefined;
  const topBit = bitLength(a) - 1 - scale; // value in [2^topBit, 2^(topBit+1))
  const ulpExponent = Math.max(topBit - 52, -1074);
  const dropped = ulpExponent + scale;
  if (dropped <= 0) {
    if (errorUnits !== 0n) return undefined;
    return sign * ldexp(Number(a << BigInt(-dropped)), ulpExponent);
  }
  const shift = BigInt(dropped);
  let q = a >> shift;
  const remainder = a - (q << shift);
  const half = 1n << (shift - 1n);
  const distance = remainder - half;
  if (abs(distance) <= errorUnits) {
    if (errorUnits !== 0n) return undefined;
    if (q & 1n) q += 1n; // exact tie: to even
  } else if (distance > 0n) q += 1n;
  if (ulpExponent > 971 && bitLength(q) + ulpExponent > 1024) return sign * Infinity;
  return sign * ldexp(Number(q), ulpExponent);
}

/** Ziv's loop: `approximate(precision)` gives [n, scale, errorUnits]; the last attempt rounds its best guess. */
function correctlyRounded(approximate: (precision: number) => [bigint, number, bigint]): number {
  for (const precision of PRECISIONS) {
    const [n, scale, error] = approximate(precision);
    const rounded = roundScaled(n, scale, error);
    if (rounded !== undefined) return rounded;
  }
  // Only an exact midpoint survives 2048 bits: round it half to even.
  const [n, scale] = approximate(PRECISIONS.at(-1)!);
  return roundScaled(n, scale, 0n)!;
}

// ---- constants, cached at the largest precision asked for ----

/** atan(1/k) · 2^bits (alternating series) or atanh(1/k) · 2^bits: Σ (±1)^i / ((2i+1)·k^(2i+1)). */
function inverseTangentSeries(k: bigint, bits: number, alternating: boolean): bigint {
  const one = 1n << BigInt(bits);
  const k2 = k * k;
  let power = one / k;
  let sum = power;
  for (let i = 1n; power !== 0n; i++) {
    power /= k2;
    sum += (alternating && i & 1n ? -power : power) / (2n * i + 1n);
  }
  return sum;
}

const atanInverse = (k: bigint, bits: number) => inverseTangentSeries(k, bits, true);
const atanhInverse = (k: bigint, bits: number) => inverseTangentSeries(k, bits, false);

function cachedConstant(compute: (bits: number) => bigint): (bits: number) => bigint {
  let cachedBits = 0;
  let cached = 0n;
  return (bits) => {
    if (bits > cachedBits) {
      cachedBits = Math.max(bits, 2 * cachedBits);
      cached = compute(cachedBits + 32) >> 32n;
    }
    return cached >> BigInt(cachedBits - bits);
  };
}

/** π · 2^bits (Machin), truncated. */
const piScaled = cachedConstant((bits) => 16n * atanInverse(5n, bits) - 4n * atanInverse(239n, bits));
/** ln 2 · 2^bits, truncated. */
const ln2Scaled = cachedConstant((bits) => 2n * atanhInverse(3n, bits));

// ---- series in fixed point (value = n / 2^bits) ----

/** ln(f) · 2^bits for f = fScaled / 2^bits in [√½, √2]: 2·atanh((f−1)/(f+1)). */
function lnNearOne(fScaled: bigint, bits: number): bigint {
  const one = 1n << BigInt(bits);
  const z = ((fScaled - one) << BigInt(bits)) / (fScaled + one);
  const z2 = mulShift(z, z, bits);
  let power = z;
  let sum = z;
  for (let i = 1n; power !== 0n; i++) {
    power = mulShift(power, z2, bits);
    sum += power / (2n * i + 1n);
  }
  return 2n * sum;
}

/** ln(x) · 2^bits for finite x > 0, with an absolute error of a few units. */
function lnScaled(x: number, bits: number): bigint {
  const { mantissa, exponent } = decompose(x);
  const length = bitLength(mantissa);
  // x = f · 2^k with f = mantissa / 2^(length−1) in [1, 2), halved above √2.
  let k = exponent + length - 1;
  let fScaled = mantissa << BigInt(bits - (length - 1));
  if (mantissa * mantissa > 1n << BigInt(2 * (length - 1) + 1)) {
    fScaled >>= 1n;
    k += 1;
  }
  const guard = 12;
  return lnNearOne(fScaled, bits) + ((BigInt(k) * ln2Scaled(bits + guard)) >> BigInt(guard));
}

/** [sin r, cos r] · 2^bits for |r| ≤ π/4 given as rScaled / 2^bits. */
function sinCosSmall(rScaled: bigint, bits: number): [bigint, bigint] {
  const one = 1n << BigInt(bits);
  const r2 = mulShift(rScaled, rScaled, bits);
  let sinTerm = rScaled;
  let sinSum = rScaled;
  let cosTerm = one;
  let cosSum = one;
  for (let k = 1n; sinTerm !== 0n || cosTerm !== 0n; k++) {
    cosTerm = -mulShift(cosTerm, r2, bits) / ((2n * k - 1n) * (2n * k));
    sinTerm = -mulShift(sinTerm, r2, bits) / ((2n * k) * (2n * k + 1n));
    cosSum += cosTerm;
    sinSum += sinTerm;
  }
  return [sinSum, cosSum];
}

/** exp(t) for t = tScaled / 2^bits: [n, scale] with exp(t) ≈ n · 2^-scale. */
function expScaled(tScaled: bigint, bits: number): [bigint, number] {
  const guard = 16;
  const ln2 = ln2Scaled(bits + guard);
  const t = tScaled << BigInt(guard);
  // k = round(t / ln 2), r = t − k·ln 2 in [−ln2/2, ln2/2]
  const k = floorDiv(2n * t + ln2, 2n * ln2);
  const r = (t - k * ln2) >> BigInt(guard);
  const one = 1n << BigInt(bits);
  let term = one;
  let sum = one;
  for (let i = 1n; term !== 0n; i++) {
    term = mulShift(term, r, bits) / i;
    sum += term;
  }
  return [sum, bits - Number(k)];
}

// ---- the functions ----

/** sin or cos of a finite double, correctly rounded. */
function sinOrCos(x: number, wantSin: boolean): number {
  if (x === 0) return wantSin ? x : 1;
  const negative = x < 0;
  const { mantissa, exponent } = decompose(x);
  const magnitude = exponent + bitLength(mantissa); // |x| < 2^magnitude
  const result = correctlyRounded((precision) => {
    // Tiny x need more fraction bits to keep `precision` significant ones.
    const bits = precision + Math.max(0, -magnitude);
    const guard = Math.max(0, magnitude) + 16;
    const wide = bits + guard;
    const xWide = mantissa << BigInt(exponent + wide); // exact: exponent + wide ≥ 0
    const pi = piScaled(wide); // π · 2^wide
    // q = round(x / (π/2)), r = x − q·π/2 (r at scale wide + 1)
    const quadrantCount = (4n * xWide + pi) / (2n * pi);
    const rWide = 2n * xWide - quadrantCount * pi;
    const r = rWide >> BigInt(wide + 1 - bits);
    const [sinR, cosR] = sinCosSmall(r, bits);
    const quadrant = Number(quadrantCount % 4n);
    let value: bigint;
    if (wantSin) value = [sinR, cosR, -sinR, -cosR][quadrant]!;
    else value = [cosR, -sinR, -cosR, sinR][quadrant]!;
    if (negative && wantSin) value = -value;
    return [value, bits, ERROR_UNITS];
  });
  return result;
}

export const sin = (x: number): number => sinOrCos(x, true);
export const cos = (x: number): number => sinOrCos(x, false);

/** ln x for finite x > 0, correctly rounded (ln 1 = 0 exactly). */
export function ln(x: number): number {
  if (x === 1) return 0;
  // |ln x| ≥ 2^-54 for x ≠ 1, so 64 extra fraction bits keep `precision` significant ones.
  return correctlyRounded((precision) => [lnScaled(x, precision + 64), precision + 64, ERROR_UNITS]);
}

/**
 * x^y for finite x > 0, x ≠ 1, finite y ≠ 0, correctly rounded; ±Infinity on overflow, 0 on underflow.
 * Integral exponents are computed exactly, so exact results and exact midpoints round as C's pow does.
 */
export function pow(x: number, y: number): number {
  const estimateLog2 = y * Math.log2(x);
  if (estimateLog2 > 1100) return Infinity;
  if (estimateLog2 < -1200) return 0;
  if (Number.isInteger(y) && Math.abs(y) <= 4096) return integerPower(x, y);
  const { mantissa: yMantissa, exponent: yExponent } = decompose(y);
  const ySign = y < 0 ? -1n : 1n;
  return correctlyRounded((precision) => {
    // t = y · ln x to `precision + 32` fraction bits: ln x needs as many more as y has integer bits.
    const tBits = precision + 32;
    const lnBits = tBits + Math.max(0, yExponent + 53) + 16;
    const product = ySign * yMantissa * lnScaled(x, lnBits); // scale lnBits − yExponent
    const productScale = lnBits - yExponent;
    const t = productScale >= tBits ? product >> BigInt(productScale - tBits) : product << BigInt(tBits - productScale);
    const [n, scale] = expScaled(t, tBits);
    return [n, scale, ERROR_UNITS];
  });
}

/** x^n for an integer n, from the exact value m^n · 2^(e·n) (or its reciprocal). */
function integerPower(x: number, n: number): number {
  const { mantissa, exponent } = decompose(x);
  const count = Math.abs(n);
  const exact = mantissa ** BigInt(count);
  if (n > 0) return roundScaled(exact, -exponent * count, 0n)!;
  // 1 / (exact · 2^(e·count)): a quotient with 64 spare bits and a sticky bit for the remainder.
  const bits = bitLength(exact) + 53 + 64;
  const numerator = 1n << BigInt(bits);
  let quotient = numerator / exact;
  const sticky = numerator % exact !== 0n;
  quotient = (quotient << 1n) | (sticky ? 1n : 0n);
  // Value = quotient · 2^-(bits + 1 + e·count); the sticky bit never sits on a midpoint, so the rounding is exact.
  return roundScaled(quotient, bits + 1 + exponent * count, 0n)!;
}
