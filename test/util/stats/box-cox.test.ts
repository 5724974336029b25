import { describe, expect, it } from 'vitest';
import { boxCox, boxCoxLambda } from '../../../src/util/stats/box-cox.ts';
import { OVEN_RADIATION } from './fixtures.ts';

describe('boxCoxLambda', () => {
  it('finds the published λ of the oven radiation data', () => {
    const lambda = boxCoxLambda(OVEN_RADIATION);
    // Johnson & Wichern, Example 4.16: "λ̂ = .28" (read from a grid); SciPy 1.17.1
    // scipy.stats.boxcox_normmax(x, method='mle') = 0.2759372927832484.
    expect(lambda).toBeCloseTo(0.28, 2);
    expect(lambda).toBeCloseTo(0.2759372927832484, 5);
  });

  it('finds λ = 0 for values exp(z) of a symmetric z', () => {
    // With Σ z = 0 and z symmetric, ℓ(λ) = −(n/2)·ln var((e^{λz} − 1)/λ) is even in λ: its
    // maximum is at 0 (and ℓ falls away from it).
    const z = [-1.5, -1, -0.6, -0.3, 0, 0.3, 0.6, 1, 1.5];
    expect(boxCoxLambda(z.map((v) => Math.exp(v)))).toBeCloseTo(0, 5);
    expect(boxCoxLambda(z.map((v) => Math.exp(3 * v)))).toBeCloseTo(0, 5);
  });

  it('does not depend on the unit of measure', () => {
    const a = boxCoxLambda(OVEN_RADIATION) as number;
    expect(boxCoxLambda(OVEN_RADIATION.map((v) => v * 1e9))).toBeCloseTo(a, 6);
  });

  it('is undefined for non-positive, too few or equal values', () => {
    expect(boxCoxLambda([1, 2, 0])).toBeUndefined();
    expect(boxCoxLambda([1, 2])).toBeUndefined();
    expect(boxCoxLambda([2, 2, 2, 2])).toBeUndefined();
  });

  it('transforms with (x^λ − 1)/λ and ln x at 0', () => {
    expect(boxCox(4, 0.5)).toBeCloseTo(2, 12);
    expect(boxCox(Math.E, 0)).toBe(1);
    expect(boxCox(3, 1e-12)).toBeCloseTo(Math.log(3), 10);
  });
});
