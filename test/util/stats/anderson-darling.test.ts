import { describe, expect, it } from 'vitest';
import { adPValue, andersonDarling } from '../../../src/util/stats/anderson-darling.ts';
import { OVEN_RADIATION, sorted } from './fixtures.ts';

describe('andersonDarling', () => {
  it('matches SciPy on the skewed oven radiation data and rejects normality', () => {
    const ad = andersonDarling(sorted(OVEN_RADIATION));
    // scipy.stats.anderson(x).statistic, SciPy 1.17.1 (same A², s with n − 1, as nortest::ad.test).
    expect(ad?.statistic).toBeCloseTo(2.1013975497119617, 10);
    // A*² = A²·(1 + 0.75/42 + 2.25/42²).
    expect(ad?.modified).toBeCloseTo(2.1013975497119617 * (1 + 0.75 / 42 + 2.25 / 42 ** 2), 10);
    expect(ad?.pValue).toBeLessThan(1e-4);
  });

  it('matches SciPy on evenly spread values and does not reject', () => {
    const ad = andersonDarling(sorted(Array.from({ length: 20 }, (_, i) => i + 1)));
    expect(ad?.statistic).toBeCloseTo(0.22073784165630173, 10);
    expect(ad?.pValue).toBeGreaterThan(0.5);
  });

  it('is undefined below 8 values or without spread', () => {
    expect(andersonDarling(sorted([1, 2, 3, 4, 5, 6, 7]))).toBeUndefined();
    expect(andersonDarling(sorted(Array(10).fill(3)))).toBeUndefined();
  });

  it("agrees with Stephens' published case-3 critical values of A*² (D'Agostino & Stephens 1986, Table 4.7)", () => {
    // Upper-tail points 15 %, 10 %, 5 %: 0.576, 0.656, 0.787; the Table 4.9 fit is approximate.
    expect(adPValue(0.576)).toBeCloseTo(0.15, 1);
    expect(Math.abs(adPValue(0.656) - 0.1)).toBeLessThan(0.016);
    expect(Math.abs(adPValue(0.787) - 0.05)).toBeLessThan(0.01);
    // Each branch of the fit meets the next where they join, so the p-value falls steadily.
    for (const a of [0.2, 0.34, 0.6]) expect(adPValue(a - 1e-9)).toBeCloseTo(adPValue(a + 1e-9), 2);
    expect(adPValue(12)).toBe(3.7e-24);
  });
});
