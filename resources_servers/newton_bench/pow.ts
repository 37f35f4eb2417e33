// x ** y rounded as glibc's pow rounds it (Python and numpy call it): the nearest double to the true power. V8's
// Math.pow is off by one ulp now and then (Math.pow(2, 1.5) is 2.82842712474619, glibc's 2.8284271247461903), which
// shows in the last digit of a measured force. The power is computed in double-double (log by the atanh series, exp
// by Taylor, ~1e-30 relative), then rounded once. Outside the normal range, and for a base that is not a positive
// finite number, Math.pow answers (there the two agree or the value is inf / 0 / nan anyway).

interface DD {
  hi: number;
  lo: number;
}

const SPLITTER = 134217729; // 2^27 + 1

function twoSum(a: number, b: number): DD {
  const s = a + b;
  const bb = s - a;
  return { hi: s, lo: a - (s - bb) + (b - bb) };
}

function quickTwoSum(a: number, b: number): DD {
  const s = a + b;
  return { hi: s, lo: b - (s - a) };
}

function twoProd(a: number, b: number): DD {
  const p = a * b;
  let c = SPLITTER * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLITTER * b;
  const bh = c - (c - b);
  const bl = b - bh;
  return { hi: p, lo: ah * bh - p + ah * bl + al * bh + al * bl };
}

function add(a: DD, b: DD): DD {
  const s = twoSum(a.hi, b.hi);
  const t = twoSum(a.lo, b.lo);
  let r = quickTwoSum(s.hi, s.lo + t.hi);
  r = quickTwoSum(r.hi, r.lo + t.lo);
  return r;
}

function mul(a: DD, b: DD): DD {
  const p = twoProd(a.hi, b.hi);
  return quickTwoSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

const mulNumber = (a: DD, b: number): DD => mul(a, { hi: b, lo: 0 });

function div(a: DD, b: DD): DD {
  const q1 = a.hi / b.hi;
  let r = add(a, mulNumber(b, -q1));
  const q2 = r.hi / b.hi;
  r = add(r, mulNumber(b, -q2));
  const q3 = r.hi / b.hi;
  return add(quickTwoSum(q1, q2), { hi: q3, lo: 0 });
}

const LN2: DD = { hi: 0.6931471805599453, lo: 2.3190468138462996e-17 };
const SQRT2 = Math.SQRT2;

const view = new DataView(new ArrayBuffer(8));
/** x = m · 2^e with m in [1, 2), for a positive normal x. */
function frexp(x: number): { m: number; e: number } {
  view.setFloat64(0, x);
  const bits = view.getUint32(0);
  const e = ((bits >>> 20) & 0x7ff) - 1023;
  view.setUint32(0, (bits & 0x800fffff) | (1023 << 20));
  return { m: view.getFloat64(0), e };
}

/** ln x in double-double, for a positive normal x. */
function logDD(x: number): DD {
  let { m, e } = frexp(x);
  if (m > SQRT2) {
    m /= 2;
    e += 1;
  }
  // ln m = 2 atanh(s), s = (m − 1)/(m + 1), |s| < 0.172; m − 1 is exact (Sterbenz).
  const s = div({ hi: m - 1, lo: 0 }, twoSum(m, 1));
  const s2 = mul(s, s);
  let power = s;
  let sum = s;
  for (let k = 3; k < 80; k += 2) {
    power = mul(power, s2);
    const term = div(power, { hi: k, lo: 0 });
    sum = add(sum, term);
    if (Math.abs(term.hi) < 1e-34 * Math.abs(sum.hi)) break;
  }
  const twice = { hi: 2 * sum.hi, lo: 2 * sum.lo };
  return add(twice, mulNumber(LN2, e));
}

/** e^t for a double-double t with |t| < 700; the result rounded to a double. */
function expDD(t: DD): number {
  const k = Math.round(t.hi / LN2.hi);
  const r = add(t, mulNumber(LN2, -k));
  let term: DD = r;
  let sum = add({ hi: 1, lo: 0 }, r);
  for (let n = 2; n < 40; n++) {
    term = div(mul(term, r), { hi: n, lo: 0 });
    sum = add(sum, term);
    if (Math.abs(term.hi) < 1e-34) break;
  }
  // 2^k is exact and scaling by it is exact in the normal range, so the one rounding is hi + lo.
  const scale = Math.pow(2, k);
  return sum.hi * scale + sum.lo * scale;
}

const MIN_NORMAL = 2.2250738585072014e-308;

/** pow(x, y) correctly rounded (as glibc's, in all but pathological cases). */
export function correctPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (y === 2) return x * x;
  if (!(x > 0) || !Number.isFinite(x) || !Number.isFinite(y) || x < MIN_NORMAL) return Math.pow(x, y);
  const t = mulNumber(logDD(x), y);
  if (!(Math.abs(t.hi) < 700)) return Math.pow(x, y);
  return expDD(t);
}
