// Values of expressions: exact (BigInt fractions) where the tree is rational, else approximate in an
// extended-range float (mantissa × 2^exponent) so that answers like (2+√3)^2016 compare instead of overflowing.
import { spend } from "./budget.ts";
import { gcd, type Expr } from "./expr.ts";

export interface Fraction {
  n: bigint;
  d: bigint;
}

/** Exponents beyond this, or results beyond MAX_BITS bits, are not computed exactly (bounded work). */
const MAX_EXACT_EXPONENT = 10_000n;
const MAX_BITS = 100_000;

const reduce = (n: bigint, d: bigint): Fraction => {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};

const bits = (x: bigint) => (x < 0n ? -x : x).toString(16).length * 4;

export function exactValue(e: Expr): Fraction | null {
  spend();
  switch (e.kind) {
    case "integer":
      return { n: e.value, d: 1n };
    case "rational":
      return { n: e.num, d: e.den };
    case "float":
      return reduce(e.mantissa, 10n ** BigInt(e.scale));
    case "add": {
      let sum: Fraction = { n: 0n, d: 1n };
      for (const arg of e.args) {
        const v = exactValue(arg);
        if (!v) return null;
        sum = reduce(sum.n * v.d + v.n * sum.d, sum.d * v.d);
      }
      return sum;
    }
    case "mul": {
      let product: Fraction = { n: 1n, d: 1n };
      for (const arg of e.args) {
        const v = exactValue(arg);
        if (!v) return null;
        product = reduce(product.n * v.n, product.d * v.d);
      }
      return product;
    }
    case "pow": {
      const base = exactValue(e.base);
      const exp = exactValue(e.exp);
      if (!base || !exp || exp.d !== 1n) return null;
      const k = exp.n < 0n ? -exp.n : exp.n;
      if (k > MAX_EXACT_EXPONENT || (bits(base.n) + bits(base.d)) * Number(k) > MAX_BITS) return null;
      spend(Number(k));
      const n = base.n ** k;
      const d = base.d ** k;
      if (exp.n >= 0n) return { n, d };
      return n === 0n ? null : reduce(d, n);
    }
    case "function": {
      if (e.name === "Abs" && e.args.length === 1) {
        const v = exactValue(e.args[0]!);
        return v && { n: v.n < 0n ? -v.n : v.n, d: v.d };
      }
      if (e.name === "factorial" && e.args.length === 1) {
        const v = exactValue(e.args[0]!);
        if (!v || v.d !== 1n || v.n < 0n || v.n > 2000n) return null;
        let f = 1n;
        for (let i = 2n; i <= v.n; i++) f *= i;
        spend(Number(v.n));
        return { n: f, d: 1n };
      }
      return null;
    }
    default:
      return null;
  }
}

/** A real number m·2^e with 0.5 ≤ |m| < 1 (or m = 0): doubles' precision, no overflow. */
export interface Approx {
  m: number;
  e: number;
}

const ZERO: Approx = { m: 0, e: 0 };

function scale2(x: number, k: number): number {
  // Beyond the double range whatever x is (|x| < 2^1024): saturate instead of looping k/1000 times.
  if (k > 2200) return x === 0 ? 0 : x * Infinity;
  if (k < -2300) return x * 0;
  while (k > 1000) {
    x *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    x *= 2 ** -1000;
    k += 1000;
  }
  return x * 2 ** k;
}

function normal(m: number, e: number): Approx | null {
  if (Number.isNaN(m) || !Number.isFinite(m) || !Number.isFinite(e)) return null;
  if (m === 0) return ZERO;
  let k = Math.floor(Math.log2(Math.abs(m))) + 1;
  let scaled = scale2(m, -k);
  while (Math.abs(scaled) >= 1) {
    scaled /= 2;
    k++;
  }
  while (Math.abs(scaled) < 0.5) {
    scaled *= 2;
    k--;
  }
  return { m: scaled, e: e + k };
}

export const fromNumber = (x: number) => normal(x, 0);
export const toNumber = (x: Approx) => scale2(x.m, x.e);
export const addApprox = (a: Approx, b: Approx): Approx | null => {
  if (a.m === 0) return b;
  if (b.m === 0) return a;
  const shift = b.e - a.e;
  if (shift > 64) return b;
  if (shift < -64) return a;
  return normal(a.m + scale2(b.m, shift), a.e);
};
export const mulApprox = (a: Approx, b: Approx) => normal(a.m * b.m, a.e + b.e);
export const negApprox = (a: Approx): Approx => ({ m: -a.m, e: a.e });
const lnApprox = (a: Approx) => Math.log(a.m) + a.e * Math.LN2;
function expApprox(y: number): Approx | null {
  if (!Number.isFinite(y)) return null;
  const t = y / Math.LN2;
  const k = Math.floor(t);
  return normal(2 ** (t - k), k);
}

function powApprox(base: Approx, exp: Approx): Approx | null {
  const y = toNumber(exp);
  if (!Number.isFinite(y)) return null;
  if (Number.isInteger(y) && Math.abs(y) < 2 ** 31) {
    if (base.m === 0) return y > 0 ? ZERO : y === 0 ? fromNumber(1) : null;
    let result: Approx | null = fromNumber(1)!;
    let square: Approx | null = base;
    for (let k = Math.abs(y); k > 0 && result && square; k = Math.floor(k / 2)) {
      spend();
      if (k % 2 === 1) result = mulApprox(result, square);
      if (k > 1) square = mulApprox(square, square);
    }
    if (!result) return null;
    return y >= 0 ? result : normal(1 / result.m, -result.e);
  }
  if (base.m === 0) return y > 0 ? ZERO : null;
  if (base.m < 0) return null; // a complex principal root
  return expApprox(y * lnApprox(base));
}

/** Named functions on doubles; outside their real domain, no value. */
const REAL_FUNCTIONS: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  cot: (x) => 1 / Math.tan(x),
  sec: (x) => 1 / Math.cos(x),
  csc: (x) => 1 / Math.sin(x),
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  floor: Math.floor,
  ceiling: Math.ceil,
};

/** The real value of `e` with `values` for its symbols; null when undefined, complex or not numeric. */
export function approxValue(e: Expr, values: ReadonlyMap<string, number> = new Map()): Approx | null {
  spend();
  switch (e.kind) {
    case "integer":
    case "rational":
    case "float": {
      const v = exactValue(e)!;
      return divideBig(v.n, v.d);
    }
    case "symbol": {
      const v = values.get(e.name);
      return v === undefined ? null : fromNumber(v);
    }
    case "constant":
      return e.name === "pi" ? fromNumber(Math.PI) : e.name === "E" ? fromNumber(Math.E) : null;
    case "add": {
      let sum: Approx | null = ZERO;
      for (const arg of e.args) {
        const v = approxValue(arg, values);
        if (!v || !sum) return null;
        sum = addApprox(sum, v);
      }
      return sum;
    }
    case "mul": {
      let product: Approx | null = fromNumber(1);
      for (const arg of e.args) {
        const v = approxValue(arg, values);
        if (!v || !product) return null;
        product = mulApprox(product, v);
      }
      return product;
    }
    case "pow": {
      const exact = exactValue(e);
      if (exact) return divideBig(exact.n, exact.d);
      const base = approxValue(e.base, values);
      const exp = approxValue(e.exp, values);
      if (!base || !exp) return null;
      // An odd root of a negative number is complex in SymPy too (principal root): no real value.
      return powApprox(base, exp);
    }
    case "function": {
      if (e.args.length === 1) {
        const x = approxValue(e.args[0]!, values);
        if (!x) return null;
        if (e.name === "Abs") return { m: Math.abs(x.m), e: x.e };
        if (e.name === "exp") return expApprox(toNumber(x));
        if (e.name === "log") return x.m > 0 ? fromNumber(lnApprox(x)) : null;
        if (e.name === "factorial") {
          const exact = exactValue(e);
          return exact ? divideBig(exact.n, exact.d) : null;
        }
        const f = REAL_FUNCTIONS[e.name];
        return f ? fromNumber(f(toNumber(x))) : null;
      }
      if (e.name === "log" && e.args.length === 2) {
        const x = approxValue(e.args[0]!, values);
        const base = approxValue(e.args[1]!, values);
        if (!x || !base || x.m <= 0 || base.m <= 0) return null;
        return fromNumber(lnApprox(x) / lnApprox(base));
      }
      return null;
    }
    default:
      return null;
  }
}

/** n/d for big integers without going through a double that would overflow. */
function divideBig(n: bigint, d: bigint): Approx | null {
  const shiftN = Math.max(0, bits(n) - 960);
  const shiftD = Math.max(0, bits(d) - 960);
  const mn = Number(n >> BigInt(shiftN));
  const md = Number(d >> BigInt(shiftD));
  return normal(mn / md, shiftN - shiftD);
}

/** Equal to ~10 significant digits (SymPy evaluates `a - b` to 15 digits; doubles give us fewer). */
export function approxEqual(a: Approx, b: Approx): boolean {
  const difference = addApprox(a, negApprox(b));
  if (!difference) return false;
  if (difference.m === 0) return true;
  const scale = Math.max(a.m === 0 ? -Infinity : a.e, b.m === 0 ? -Infinity : b.e);
  return difference.e < scale - 33;
}

/** The value rounded to `digits` decimals, as SymPy's `round(digits)` (half away from zero). */
export function roundedExact(v: Fraction, digits: number): bigint {
  const scaled = v.n * 10n ** BigInt(digits);
  const twice = (2n * scaled + (scaled < 0n ? -v.d : v.d)) / (2n * v.d);
  return twice;
}
