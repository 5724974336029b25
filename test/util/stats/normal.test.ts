import { describe, expect, it } from 'vitest';
import { logNormalCdf, normalCdf } from '../../../src/util/stats/normal.ts';

// Reference values: Φ in closed form through erfc, evaluated by SciPy 1.17 (scipy.stats.norm.cdf,
// .logcdf, Cephes' ndtr), and the textbook Φ(−1.96) = 0.0249979.
const CASES: ReadonlyArray<[number, number, number]> = [
  [-8, 6.22096057427174e-16, -35.01343715991456],
  [-5, 2.866515718791933e-7, -15.064998393988727],
  [-3, 0.0013498980316300933, -6.60772622151035],
  [-1.96, 0.024997895148220435, -3.6889636517296385],
  [0, 0.5, -Math.LN2],
  [1, 0.8413447460685429, -0.1727537790234499],
  [4.9, 0.9999995208167234, -4.791833913986615e-7],
  [8, 0.9999999999999993, -6.220960574271742e-16],
];

describe('normalCdf', () => {
  it.each(CASES)('Φ(%d) to 1e-12 relative, in both tails', (x, cdf, logCdf) => {
    expect(Math.abs(normalCdf(x) - cdf) / cdf).toBeLessThan(1e-12);
    expect(Math.abs(logNormalCdf(x) - logCdf) / Math.abs(logCdf)).toBeLessThan(1e-12);
  });

  it('keeps ln Φ finite where Φ underflows', () => {
    expect(normalCdf(-40)).toBe(0);
    // ln φ(40) − ln 40 − 1/40² + …: SciPy's logcdf(−40) = −804.6084420137539.
    expect(logNormalCdf(-40)).toBeCloseTo(-804.6084420137539, 10);
  });

  it('is symmetric: Φ(x) + Φ(−x) = 1', () => {
    for (const x of [0.1, 1.5, 2.49, 2.51, 3.7]) expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 15);
  });
});
