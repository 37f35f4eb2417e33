// Python's `random.Random(seed)` for the parts benchmark preparation uses (NeMo Gym's gpqa and supergpqa
// prepare.py shuffle answer options with it): CPython's MT19937 seeded from an int the way random_seed() does
// (init_by_array over the 32-bit words of abs(seed)), getrandbits, and shuffle with _randbelow. Same seed, same
// sequence as CPython 3.11+, so the shuffled options (and so the expected letters) match NeMo Gym's rows.
const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N;

  constructor(seed: bigint | number) {
    this.seed(seed);
  }

  /** `random.seed(n)` for an int n: the words of abs(n), least significant first (0 → [0]). */
  seed(seed: bigint | number): void {
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  /** `random.getrandbits(k)`: k random bits as a non-negative int. */
  getrandbits(k: number): bigint {
    if (k < 0) throw new RangeError("number of bits must be non-negative");
    if (k <= 32) return BigInt(this.next32() >>> (32 - k)) & ((1n << BigInt(k)) - 1n);
    let result = 0n;
    for (let shift = 0; k > 0; shift += 32, k -= 32) {
      let word = this.next32();
      if (k < 32) word >>>= 32 - k;
      result |= BigInt(word) << BigInt(shift);
    }
    return result;
  }

  /** `random._randbelow(n)`: uniform in [0, n), by rejection over n.bit_length() bits. */
  randbelow(n: number): number {
    if (n <= 0) return 0;
    const k = n.toString(2).length;
    let r = Number(this.getrandbits(k));
    while (r >= n) r = Number(this.getrandbits(k));
    return r;
  }

  /** `random.random()`: 53 random bits from two outputs (27 + 26 bits), as CPython's random_random does. */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) * (1 / 9007199254740992);
  }

  /** `random.randint(a, b)`: uniform in [a, b] (randrange(a, b + 1)), by _randbelow. */
  randint(a: number, b: number): number {
    const width = b + 1 - a;
    if (!Number.isSafeInteger(width) || width <= 0) throw new RangeError(`empty range in randrange(${a}, ${b + 1})`);
    return a + this.randbelow(width);
  }

  /** `random.choice(seq)`: one element by _randbelow(len(seq)). */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Cannot choose from an empty sequence");
    return items[this.randbelow(items.length)]!;
  }

  /**
   * `random.sample(population, k)` for populations up to CPython's set-size threshold (21 + more for k > 5), the
   * pool branch: k picks by _randbelow(n - i), each pick's slot refilled from the pool's end.
   */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError("Sample larger than population or is negative");
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n > setsize) throw new RangeError("random.sample's set branch (large populations) is not implemented");
    const pool = [...population];
    const result: T[] = [];
    for (let i = 0; i < k; i++) {
      const j = this.randbelow(n - i);
      result.push(pool[j]!);
      pool[j] = pool[n - i - 1]!;
    }
    return result;
  }

  /** An independent generator in this one's state (`random.getstate()` then `setstate` on a new Random). */
  clone(): PythonRandom {
    const copy = new PythonRandom(0);
    copy.mt.set(this.mt);
    copy.index = this.index;
    return copy;
  }

  /** `random.shuffle(x)` in place (Fisher–Yates from the end, as CPython 3.11+ does it). */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) mt[i] = (Math.imul(1812433253, mt[i - 1]! ^ (mt[i - 1]! >>> 30)) + i) >>> 0;
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      mt[i] = ((mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1664525)) >>> 0) + key[j]! + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      mt[i] = ((mt[i]! ^ Math.imul(mt[i - 1]! ^ (mt[i - 1]! >>> 30), 1566083941)) >>> 0) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private next32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[(kk + 1) % N]! & 0x7fffffff);
        mt[kk] = mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}
