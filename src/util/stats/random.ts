/**
 * A small seeded random source for resampling: xoshiro128** (Blackman & Vigna) seeded through
 * splitmix32, doubles from 53 bits, and Gamma deviates by Marsaglia & Tsang (2000). Seeded so
 * that the same window gives the same bootstrap bound at every poll.
 */

/** splitmix32: spreads a seed over the generator's state. */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Seeded uniform, normal and gamma deviates. */
export class SeededRandom {
  readonly #s = new Uint32Array(4);

  constructor(seed: number) {
    const next = splitmix32(seed);
    for (let i = 0; i < 4; i++) this.#s[i] = next();
  }

  #next32(): number {
    const s = this.#s;
    const x = s[1] as number;
    const result = Math.imul(rotl(Math.imul(x, 5), 7), 9) >>> 0;
    const t = (x << 9) >>> 0;
    s[2] = (s[2] as number) ^ (s[0] as number);
    s[3] = (s[3] as number) ^ x;
    s[1] = x ^ (s[2] as number);
    s[0] = (s[0] as number) ^ (s[3] as number);
    s[2] = (s[2] as number) ^ t;
    s[3] = rotl(s[3] as number, 11);
    return result;
  }

  /** Uniform on [0, 1), 53 random bits. */
  uniform(): number {
    const high = this.#next32() >>> 5;
    const low = this.#next32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Standard normal, by the polar method. */
  normal(): number {
    for (;;) {
      const u = 2 * this.uniform() - 1;
      const v = 2 * this.uniform() - 1;
      const r = u * u + v * v;
      if (r > 0 && r < 1) return u * Math.sqrt((-2 * Math.log(r)) / r);
    }
  }

  /** Gamma(shape, 1) for shape ≥ 1 (Marsaglia & Tsang, ACM TOMS 26(3), 2000). */
  gamma(shape: number): number {
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      if (u < 1 - 0.0331 * x ** 4) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
