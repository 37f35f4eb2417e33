// Python arithmetic JavaScript does not give bit for bit: `int / int` and `float(Fraction)` (correctly rounded
// from the exact ratio, any size), `math.exp` (glibc's algorithm, below; V8's `Math.exp` is often 1 ulp off,
// e.g. exp(-5/3)), `math.fsum` and `math.gcd` of ints. (`format(x, ".Ng")` and `round()` are float.ts.)
import { OverflowError, ValueError, ZeroDivisionError } from "./exception.ts";

const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

/**
 * `m · 2^e` for a bigint m ≥ 0 (its lowest bit may be a sticky bit standing for anything non-zero below it),
 * rounded once, half-even, to a double; a result too large raises OverflowError as Python does.
 */
function scaledToFloat(m: bigint, e: number): number {
  if (m === 0n) return 0;
  const bits = bitLength(m);
  const top = bits + e; // the value is in [2^(top-1), 2^top)
  if (top > 1024) throw new OverflowError("integer division result too large for a float");
  let q = m;
  let exponent = e;
  if (top - 1 < -1022) {
    // Subnormal: round in integers on the grid of 2^-1074, where it is exactly representable.
    const shift = -1074 - e;
    if (shift > 0) {
      const half = 1n << BigInt(shift - 1);
      const rest = m & ((1n << BigInt(shift)) - 1n);
      q = m >> BigInt(shift);
      if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
      exponent = -1074;
    }
  } else if (bits > 56) {
    // Keep 55 bits and a sticky bit, so that Number() rounds once with no false tie.
    const drop = bits - 56;
    const sticky = (m & ((1n << BigInt(drop)) - 1n)) !== 0n ? 1n : 0n;
    q = (m >> BigInt(drop)) | sticky;
    exponent = e + drop;
  }
  // Number() rounds half-even; scaling by powers of two in two steps is then exact.
  const half = Math.trunc(exponent / 2);
  const result = Number(q) * 2 ** half * 2 ** (exponent - half);
  if (!Number.isFinite(result)) throw new OverflowError("integer division result too large for a float");
  return result;
}

/** Python's `n / d` of two ints (and `float(Fraction(n, d))`): the exact ratio rounded once. */
export function trueDivide(n: bigint, d: bigint): number {
  if (d === 0n) throw new ZeroDivisionError("division by zero");
  const negative = n < 0n !== d < 0n;
  const a = n < 0n ? -n : n;
  const b = d < 0n ? -d : d;
  let result: number;
  if (a <= 2n ** 53n && b <= 2n ** 53n) result = Number(a) / Number(b);
  else {
    // a/b = (a · 2^s / b) · 2^-s with 60+ quotient bits and a sticky bit for the remainder.
    const s = Math.max(0, 60 - (bitLength(a) - bitLength(b)));
    const scaled = a << BigInt(s);
    const q = scaled / b;
    result = scaledToFloat((q << 1n) | (scaled % b !== 0n ? 1n : 0n), -s - 1);
  }
  return negative ? -result : result;
}

// ---- math.exp ----
// CPython's math.exp is the C library's exp. On Linux that is glibc's (2.28+): a 128-entry table of 2^(k/128)
// and a degree-5 polynomial, built with fused multiply-adds on CPUs that have FMA (every x86-64 server since
// Haswell) — it is not correctly rounded (V8's Math.exp differs from it in ~10% of the calendar_arithmetic
// inputs, a correctly rounded exp in ~0.09%). This follows that code path operation by operation, with
// exact FMAs; it reproduced glibc 2.36's exp (x86-64, FMA) on all 266,450 calendar_arithmetic inputs
// -5·|a−o|/o (o ≤ 365, a ≤ 730) and on random inputs across the whole range.

const view = new DataView(new ArrayBuffer(8));
const bitsOf = (x: number): bigint => (view.setFloat64(0, x), view.getBigUint64(0));
const fromBits = (bits: bigint): number => (view.setBigUint64(0, BigInt.asUintN(64, bits)), view.getFloat64(0));

/** A double as m · 2^e exactly (m signed). */
function exactParts(x: number): { m: bigint; e: number } {
  const bits = bitsOf(x);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const m = biased === 0 ? fraction : fraction | (1n << 52n);
  return { m: bits >> 63n ? -m : m, e: biased === 0 ? -1074 : biased - 1075 };
}

/** `fma(a, b, c)`: a·b + c rounded once (finite inputs). */
function fma(a: number, b: number, c: number): number {
  const p = exactParts(a);
  const q = exactParts(b);
  const r = exactParts(c);
  const productExponent = p.e + q.e;
  const e = Math.min(productExponent, r.e);
  const sum = ((p.m * q.m) << BigInt(productExponent - e)) + (r.m << BigInt(r.e - e));
  if (sum === 0n) return a * b + c;
  const magnitude = scaledToFloat(sum < 0n ? -sum : sum, e);
  return sum < 0n ? -magnitude : magnitude;
}

const PRECISION = 200n;
const ONE = 1n << PRECISION;

/** ln 2 to PRECISION bits: 2·atanh(1/3). */
const LN2 = (() => {
  let sum = 0n;
  let power = ONE / 3n; // (1/3)^(2k+1)
  for (let k = 0n; power > 0n; k++) {
    sum += power / (2n * k + 1n);
    power /= 9n;
  }
  return 2n * sum;
})();

/** exp of a fixed-point value, to PRECISION bits (Taylor series; used for the table only). */
function expFixed(x: bigint): bigint {
  let sum = ONE;
  let term = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = (term * x) / ONE / n;
    sum += term;
  }
  return sum;
}

const N = 128;
/** glibc's __exp_data.tab: 2^(k/N) ≈ H·(1 + T) as [bits(T), bits(H) − (k << 45)], both rounded to nearest. */
const TABLE: bigint[] = (() => {
  const table: bigint[] = [];
  for (let k = 0; k < N; k++) {
    const exact = expFixed((LN2 * BigInt(k)) / BigInt(N));
    const high = trueDivide(exact, ONE);
    const { m, e } = exactParts(high);
    const highFixed = m << BigInt(e + Number(PRECISION));
    table.push(bitsOf(trueDivide(exact - highFixed, highFixed)), bitsOf(high) - (BigInt(k) << 45n));
  }
  return table;
})();

const INV_LN2_N = 1.4426950408889634 * N; // 0x1.71547652b82fep0 · N
const SHIFT = 1.5 * 2 ** 52;
const NEG_LN2_HI_N = -0.005415212348111709; // -0x1.62e42fefa0000p-8
const NEG_LN2_LO_N = -1.2864023111638346e-14; // -0x1.cf79abc9e3b3ap-47
const C2 = 0.49999999999996786; // 0x1.ffffffffffdbdp-2
const C3 = 0.16666666666665886; // 0x1.555555555543cp-3
const C4 = 0.0416666808410674; // 0x1.55555cf172b91p-5
const C5 = 0.008333335853059549; // 0x1.1111167a4d017p-7

const top12 = (x: number): number => Number(bitsOf(x) >> 52n);

/** glibc's specialcase: |x| ≥ 512, where the scale alone would over- or underflow. */
function specialCase(tmp: number, sbits: bigint, ki: bigint): number {
  if ((ki & 0x80000000n) === 0n) {
    const scale = fromBits(sbits - (1009n << 52n));
    const y = 2 ** 1009 * fma(scale, tmp, scale);
    if (!Number.isFinite(y)) throw new OverflowError("math range error");
    return y;
  }
  // Here scale·tmp is used twice, so it is computed once and not fused (this matches glibc; fusing does not).
  const scale = fromBits(sbits + (1022n << 52n));
  const product = scale * tmp;
  let y = scale + product;
  if (y < 1.0) {
    let lo = scale - y + product;
    const hi = 1.0 + y;
    lo = 1.0 - hi + y + lo;
    y = hi + lo - 1.0;
    if (y === 0) y = 0;
  }
  return 2 ** -1022 * y;
}

/** Python's `math.exp(x)` as glibc computes it; an overflowing result raises OverflowError ("math range error"). */
export function pythonExp(x: number): number {
  let abstop = top12(x) & 0x7ff;
  if (abstop - 0x3c9 >= 0x408 - 0x3c9 || abstop < 0x3c9) {
    if (abstop < 0x3c9) return 1.0 + x; // |x| < 2^-54
    if (abstop >= 0x409) {
      if (x === -Infinity) return 0;
      if (abstop >= 0x7ff) return 1.0 + x; // inf, nan
      if (x < 0) return 0;
      throw new OverflowError("math range error");
    }
    abstop = 0; // |x| ≥ 512: handled by specialCase below
  }
  const kdShifted = fma(INV_LN2_N, x, SHIFT);
  const ki = bitsOf(kdShifted);
  const kd = kdShifted - SHIFT;
  const r = fma(kd, NEG_LN2_LO_N, fma(kd, NEG_LN2_HI_N, x));
  const index = 2 * Number(ki % BigInt(N));
  const top = BigInt.asUintN(64, ki << 45n);
  const tail = fromBits(TABLE[index]!);
  const sbits = BigInt.asUintN(64, TABLE[index + 1]! + top);
  const r2 = r * r;
  const tmp = fma(r2 * r2, fma(r, C5, C4), fma(r2, fma(r, C3, C2), tail + r));
  if (abstop === 0) return specialCase(tmp, sbits, ki);
  const scale = fromBits(sbits);
  return fma(scale, tmp, scale);
}

// ---- math.gcd ----

/** `math.gcd(a, b)` of two ints: never negative. */
export function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

// ---- math.fsum ----

/**
 * Python's `math.fsum`: the exactly rounded sum, as CPython 3.11 computes it — Shewchuk's non-overlapping
 * partials, then a half-even correction of the last one. Non-finite summands are summed apart (inf + -inf is a
 * ValueError, a nan gives nan); a finite sum that overflows is an OverflowError.
 */
export function pythonFsum(values: Iterable<number>): number {
  let partials: number[] = [];
  let specialSum = 0;
  let infSum = 0;
  for (const value of values) {
    let x = value;
    const next: number[] = [];
    for (const partial of partials) {
      let y = partial;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) next.push(lo);
      x = hi;
    }
    partials = next;
    if (x === 0) continue;
    if (Number.isFinite(x)) {
      partials.push(x);
      continue;
    }
    if (Number.isFinite(value)) throw new OverflowError("intermediate overflow in fsum");
    if (!Number.isNaN(value)) infSum += value;
    specialSum += value;
    partials = [];
  }
  if (specialSum !== 0 || Number.isNaN(specialSum)) {
    if (Number.isNaN(infSum)) throw new ValueError("-inf + inf in fsum");
    return specialSum;
  }
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  // Half-even: when the partials below lo have lo's sign, the exact sum is past the midpoint hi + lo suggests.
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}
