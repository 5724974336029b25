import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { Ar1, ar1At, type Shape, shapeSkewness, standardDraw } from '../../src/simulator/shapes.ts';

const N = 200_000;

function moments(xs: Float64Array) {
  let m = 0;
  for (const x of xs) m += x;
  m /= xs.length;
  let v = 0;
  let s = 0;
  for (const x of xs) {
    v += (x - m) ** 2;
    s += (x - m) ** 3;
  }
  v /= xs.length;
  s /= xs.length;
  return { mean: m, variance: v, skewness: s / v ** 1.5 };
}

describe('standardised shapes', () => {
  const shapes: Shape[] = [
    { kind: 'normal' },
    { kind: 'gamma', skewness: 1 },
    { kind: 'gamma', skewness: 2.5 },
    { kind: 'lognormal', sigma: 0.3 },
    { kind: 't', df: 5 },
  ];
  for (const shape of shapes) {
    it(`${JSON.stringify(shape)} has mean 0, variance 1 and its skewness`, () => {
      const r = splitmix64Fast(11);
      const xs = Float64Array.from({ length: N }, () => standardDraw(shape, r));
      const m = moments(xs);
      // 5 standard errors of the mean (1/sqrt(N)); variance and skewness looser, as their
      // standard errors grow with the tails (t5 has no finite fourth moment).
      expect(Math.abs(m.mean)).toBeLessThan(5 / Math.sqrt(N));
      expect(Math.abs(m.variance - 1)).toBeLessThan(shape.kind === 't' ? 0.08 : 0.03);
      if (shape.kind !== 't') expect(Math.abs(m.skewness - shapeSkewness(shape))).toBeLessThan(0.12);
    });
  }

  it('lognormal skewness follows (e^s² + 2)·sqrt(e^s² − 1)', () => {
    expect(shapeSkewness({ kind: 'lognormal', sigma: 0.3 })).toBeCloseTo(0.9495, 3);
  });

  it('refuses a t without a finite variance', () => {
    expect(() => standardDraw({ kind: 't', df: 2 }, splitmix64Fast(1))).toThrow();
  });
});

describe('AR(1)', () => {
  function lag1(xs: Float64Array): number {
    const { mean, variance } = moments(xs);
    let c = 0;
    for (let i = 1; i < xs.length; i++) c += (xs[i]! - mean) * (xs[i - 1]! - mean);
    return c / (xs.length - 1) / variance;
  }

  it('has variance 1 and lag-1 correlation phi', () => {
    for (const phi of [0.1, 0.3]) {
      const r = splitmix64Fast(5);
      const ar = new Ar1(phi);
      const xs = Float64Array.from({ length: N }, () => ar.next(r.normal()));
      expect(Math.abs(moments(xs).variance - 1)).toBeLessThan(0.03);
      expect(Math.abs(lag1(xs) - phi)).toBeLessThan(0.01);
    }
  });

  it('computes the same value without state from the innovations before it', () => {
    const r = splitmix64Fast(9);
    const e = Float64Array.from({ length: 200 }, () => r.normal());
    const ar = new Ar1(0.3);
    // Start the stateful filter 100 steps early so its start is forgotten.
    let last = 0;
    for (let n = 0; n < 200; n++) last = ar.next(e[n]!);
    const stateless = ar1At(0.3, (k) => e[199 - k]!);
    expect(stateless).toBeCloseTo(last, 8);
    expect(ar1At(0, (k) => (k === 0 ? 1.5 : 99))).toBe(1.5);
  });

  it('refuses a non-stationary phi', () => {
    expect(() => new Ar1(1)).toThrow();
  });
});
