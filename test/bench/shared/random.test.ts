import { describe, expect, it } from 'vitest';
import { splitmix32, splitmix64 } from '../../../bench/shared/random.ts';

describe('splitmix64', () => {
  it('gives the reference outputs for seed 0', () => {
    // From the reference C implementation (Vigna, prng.di.unimi.it/splitmix64.c), seed 0.
    const r = splitmix64(0);
    expect([r.nextUint64(), r.nextUint64(), r.nextUint64()]).toEqual([
      0xe220a8397b1dcdafn,
      0x6e789e6aa1b965f4n,
      0x06c45d188009454fn,
    ]);
  });

  it('is deterministic for a seed, and different seeds give different streams', () => {
    const a = splitmix64(42);
    const b = splitmix64(42);
    const c = splitmix64(43);
    const xs = Array.from({ length: 5 }, () => a.uniform());
    expect(Array.from({ length: 5 }, () => b.uniform())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.uniform())).not.toEqual(xs);
  });

  // Tolerances: 5 standard errors of each estimate, so a sound generator fails about once in
  // 3.5 million runs; a biased or correlated one (the old LCG's lost bits) fails at once.
  const N = 400_000;

  /** N draws, and their mean and variance. */
  function sample(draw: () => number) {
    const xs = Float64Array.from({ length: N }, draw);
    let sum = 0;
    let squares = 0;
    for (const x of xs) {
      sum += x;
      squares += x * x;
    }
    const mean = sum / N;
    return { xs, mean, variance: squares / N - mean * mean };
  }

  it('has uniform variates with mean 1/2 and variance 1/12', () => {
    const r = splitmix64(7);
    const { xs, mean, variance } = sample(() => r.uniform());
    expect(Math.abs(mean - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / N));
    // Var of u^2 is 4/45; the variance estimate's standard error is about sqrt(1/180 / N).
    expect(Math.abs(variance - 1 / 12)).toBeLessThan(5 * Math.sqrt(1 / 180 / N));
    expect(xs.every((u) => u >= 0 && u < 1)).toBe(true);
  });

  it('has normal variates with mean 0, variance 1 and the 3-sigma tail of a normal', () => {
    const r = splitmix64(11);
    const { xs, mean, variance } = sample(() => r.normal());
    const beyond3 = xs.filter((z) => Math.abs(z) > 3).length;
    expect(Math.abs(mean)).toBeLessThan(5 / Math.sqrt(N));
    // Var of z^2 is 2.
    expect(Math.abs(variance - 1)).toBeLessThan(5 * Math.sqrt(2 / N));
    // P(|z| > 3) = 0.0026998; binomial standard error sqrt(p (1 - p) / N).
    const p = 0.0026998;
    expect(Math.abs(beyond3 / N - p)).toBeLessThan(5 * Math.sqrt((p * (1 - p)) / N));
  });
});

describe('splitmix32', () => {
  it('gives the outputs the record tests and bench were written with, in [0, 1)', () => {
    const r = splitmix32(7);
    expect([r(), r(), r()].map((x) => x * 2 ** 32)).toEqual([588686121, 1937383562, 4286812467]);
    const s = splitmix32(7);
    const xs = Array.from({ length: 1000 }, () => s());
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBe(1000);
  });
});
