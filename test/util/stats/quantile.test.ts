import { describe, expect, it } from 'vitest';
import { quantilePosition, quantileSorted } from '../../../src/util/stats/quantile.ts';

describe('quantileSorted (Hyndman–Fan definition 7)', () => {
  const x = Float64Array.from([2, 4, 4, 5, 7, 9, 10, 12, 15, 21]);

  it('matches NumPy / R type 7 on a stated sample', () => {
    // numpy.quantile(x, [0, .00135, .25, .5, .9, .99865, 1]) with NumPy 2.4 (method 'linear').
    const expected = [2, 2.0243, 4.25, 8, 15.6, 20.9271, 21];
    const ps = [0, 0.00135, 0.25, 0.5, 0.9, 0.99865, 1];
    for (const [i, p] of ps.entries()) expect(quantileSorted(x, p)).toBeCloseTo(expected[i] as number, 10);
  });

  it('reads the lower order statistic and a weight', () => {
    expect(quantilePosition(10, 0.5)).toEqual({ index: 4, weight: 0.5 });
    expect(quantilePosition(11, 0.5)).toEqual({ index: 5, weight: 0 });
    expect(quantilePosition(10, 1)).toEqual({ index: 9, weight: 0 });
  });
});
