/**
 * A sound seeded random source for simulations and benchmarks: splitmix64 (Steele, Lea and
 * Flood, 2014), 64 bits of state, each output a full 64-bit mix, uniform variates with 53 bits,
 * normal variates by the Box–Muller transform. Deterministic for a seed, so every statistical
 * figure a bench reports can be reproduced. Not for cryptography.
 */

const MASK = (1n << 64n) - 1n;
const GAMMA = 0x9e3779b97f4a7c15n;
const TWO_POW_53 = 2 ** 53;

/** A seeded stream of uniform and normal variates. */
export interface Random {
  /** The next 64-bit output, as an unsigned BigInt. */
  nextUint64(): bigint;
  /** Uniform in [0, 1), 53 random bits. */
  uniform(): number;
  /** Standard normal, mean 0 and variance 1. */
  normal(): number;
}

/** splitmix64 seeded with `seed` (any integer; taken modulo 2^64). */
export function splitmix64(seed: number | bigint): Random {
  let state = BigInt.asUintN(64, BigInt(seed));
  let spare: number | undefined;
  const nextUint64 = (): bigint => {
    state = (state + GAMMA) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  };
  const uniform = (): number => Number(nextUint64() >> 11n) / TWO_POW_53;
  return {
    nextUint64,
    uniform,
    normal() {
      if (spare !== undefined) {
        const z = spare;
        spare = undefined;
        return z;
      }
      // Box–Muller: 1 - u is in (0, 1], so the logarithm is finite.
      const r = Math.sqrt(-2 * Math.log(1 - uniform()));
      const theta = 2 * Math.PI * uniform();
      spare = r * Math.sin(theta);
      return r * Math.cos(theta);
    },
  };
}

/**
 * splitmix32, a small and fast seeded source of uniform variates in [0, 1) with 32 random bits:
 * for generating the same test data on every run, not for statistics (use {@link splitmix64}).
 */
export function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}
