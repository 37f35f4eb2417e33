// The randomness NewtonBench draws unseeded (np.random / random): the evaluation's test points and the measurement
// noise. The server draws from Math.random like NewtonBench draws from an unseeded generator; tests pass a seeded one.
export interface Rng {
  /** Uniform on [0, 1). */
  uniform(): number;
  /** Standard normal. */
  normal(): number;
}

function fromUniform(uniform: () => number): Rng {
  let spare: number | undefined;
  return {
    uniform,
    normal() {
      if (spare !== undefined) {
        const value = spare;
        spare = undefined;
        return value;
      }
      // Box–Muller; 1 - u keeps the logarithm finite.
      const u = 1 - uniform();
      const v = uniform();
      const radius = Math.sqrt(-2 * Math.log(u));
      spare = radius * Math.sin(2 * Math.PI * v);
      return radius * Math.cos(2 * Math.PI * v);
    },
  };
}

export const systemRng = (): Rng => fromUniform(Math.random);

/** A reproducible generator (mulberry32) for tests. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return fromUniform(() => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  });
}
