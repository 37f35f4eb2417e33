// NumPy's legacy global generator (`np.random.seed(n)` then `np.random.randint` / `np.random.choice` with
// replacement, which is what `DataFrame.sample(replace=True)` draws with): MT19937 seeded by init_genrand (an int
// seed is not spread by init_by_array here, unlike CPython's `random`), bounded integers by masked rejection. Same
// seed, same draws as NumPy's RandomState, so a bootstrap that NeMo Gym runs with `np.random.seed(42)` resamples
// the same rows here.
const N = 624;
const M = 397;

export class NumpyRandomState {
  private readonly mt = new Uint32Array(N);
  private index = N;

  constructor(seed: number) {
    this.seed(seed);
  }

  /** `np.random.seed(n)` for an int 0 <= n < 2**32. */
  seed(seed: number): void {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError("Seed must be between 0 and 2**32 - 1");
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) mt[i] = (Math.imul(1812433253, mt[i - 1]! ^ (mt[i - 1]! >>> 30)) + i) >>> 0;
    this.index = N;
  }

  /** One 32-bit output of MT19937 (genrand_int32). */
  nextUint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `randint(low, high, size)` (high exclusive) for ranges below 2**32, as RandomState draws it. */
  randint(low: number, high: number, size: number): number[] {
    const range = high - 1 - low;
    if (!Number.isInteger(range) || range < 0) throw new RangeError(`randint: low >= high (${low}, ${high})`);
    if (range > 0xffffffff) throw new RangeError("randint: ranges of 2**32 or more are not implemented");
    const out: number[] = [];
    if (range === 0) {
      for (let i = 0; i < size; i++) out.push(low);
      return out;
    }
    if (range === 0xffffffff) {
      for (let i = 0; i < size; i++) out.push(low + this.nextUint32());
      return out;
    }
    // The smallest all-ones mask covering the range; draws above the range are rejected.
    let mask = range;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    mask >>>= 0;
    for (let i = 0; i < size; i++) {
      let value: number;
      do value = (this.nextUint32() & mask) >>> 0;
      while (value > range);
      out.push(low + value);
    }
    return out;
  }

  private twist(): void {
    const mt = this.mt;
    for (let i = 0; i < N; i++) {
      const y = (mt[i]! & 0x80000000) | (mt[(i + 1) % N]! & 0x7fffffff);
      mt[i] = (mt[(i + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0)) >>> 0;
    }
    this.index = 0;
  }
}

/** `np.percentile(values, q)` with the default (linear) method, as NumPy computes it. */
export function numpyPercentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const quantile = q / 100;
  // NumPy's _compute_virtual_index(n, q, alpha=1, beta=1), kept in its floating-point form.
  const virtual = n * quantile + (1 + quantile * (1 - 1 - 1)) - 1;
  const previous = Math.min(Math.max(Math.floor(virtual), 0), n - 1);
  const next = Math.min(previous + 1, n - 1);
  const gamma = virtual - Math.floor(virtual);
  const a = sorted[previous]!;
  const b = sorted[next]!;
  const diff = b - a;
  // NumPy's _lerp: from the nearer end, so t = 1 gives b exactly.
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}
