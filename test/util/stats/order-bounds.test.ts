import { describe, expect, it } from 'vitest';
import { quantileBoundRanks } from '../../../src/util/stats/order-bounds.ts';

describe('quantileBoundRanks', () => {
  // Expected ranks from SciPy 1.17.1: the largest l with binom.cdf(l − 1, n, p) ≤ alpha and the
  // smallest u with binom.cdf(u − 1, n, p) ≥ 1 − alpha.
  it.each([
    [20, 0.5, 0.05, 6, 15],
    [720, 0.5, 0.0125, 330, 391],
    [720, 0.00135, 0.0125, undefined, 5],
    [720, 0.99865, 0.0125, 716, undefined],
    [100_000, 0.99865, 0.0125, 99_838, 99_891],
    [2217, 0.99865, 0.05, 2211, undefined],
    [2218, 0.99865, 0.05, 2212, 2218],
  ])('n %i, p %d, alpha %d: ranks %s and %s', (n, p, alpha, lower, upper) => {
    expect(quantileBoundRanks(n, p, alpha)).toEqual({
      ...(lower !== undefined ? { lower } : {}),
      ...(upper !== undefined ? { upper } : {}),
    });
  });

  it('the largest value bounds X99.865 from above at 95 % from 2,218 values on', () => {
    // 1 − 0.99865^n ≥ 0.95 ⇔ n ≥ ln 0.05 / ln 0.99865 = 2,217.5.
    expect(quantileBoundRanks(2218, 0.99865, 0.05).upper).toBe(2218);
    expect(quantileBoundRanks(2217, 0.99865, 0.05).upper).toBeUndefined();
  });
});
