/**
 * The autocorrelation flag (issue 30): raised only when the baseline's lag-1 autocorrelation is
 * significantly above 0.1 for its size, a one-sided test at the 1 % level, so that estimation
 * noise (standard error about 1/sqrt(n), 0.037 at n = 720) flags no healthy chart.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { AUTOCORRELATION_FLAG, autocorrelationFlagged } from '../../src/spc/autocorrelation.ts';
import { limitsFromBaseline } from '../helpers/limits.ts';
import { normalCdf } from '../helpers/run-length.ts';

/** `n` points of an AR(1) process with lag-1 coefficient `phi` and unit variance. */
function ar1(phi: number, n: number, seed: number): number[] {
  const r = splitmix64Fast(seed);
  let e = 0;
  return Array.from({ length: n }, () => {
    e = phi * e + Math.sqrt(1 - phi * phi) * r.normal();
    return e;
  });
}

const limitsOf = (values: readonly number[]) => {
  const r = limitsFromBaseline(values, { start: 0, end: values.length }, { minSamples: 25, kind: 'rolling' });
  if (!r.ok) throw new Error('no limits');
  return r.limits;
};

describe('the autocorrelation flag', () => {
  it('is a one-sided test of phi > 0.1 at the 1 % level, with the standard error at the boundary', () => {
    expect(AUTOCORRELATION_FLAG).toBe(0.1);
    // 2.326 is the standard normal quantile of 0.99: a one-sided test at the 1 % level.
    expect(1 - normalCdf(2.326)).toBeCloseTo(0.01, 4);
    // Critical phi = 0.1 + 2.326 sqrt(0.99 / n): 0.186 at n = 720, 0.133 at n = 5,040.
    const critical = (n: number) => 0.1 + 2.326 * Math.sqrt(0.99 / n);
    expect(critical(720)).toBeCloseTo(0.186, 3);
    expect(critical(5040)).toBeCloseTo(0.133, 3);
    for (const n of [32, 720, 5040]) {
      expect(autocorrelationFlagged(critical(n) - 1e-9, n)).toBe(false);
      expect(autocorrelationFlagged(critical(n) + 1e-9, n)).toBe(true);
    }
    // The phis of the healthy demo's nine flagged charts (0.10-0.14 at n = 720): noise.
    for (const phi of [0.1, 0.12, 0.14]) expect(autocorrelationFlagged(phi, 720)).toBe(false);
    // A negative phi is no evidence of phi > 0.1; no size is no evidence at all.
    expect(autocorrelationFlagged(-0.5, 720)).toBe(false);
    expect(autocorrelationFlagged(0.9, 0)).toBe(false);
  });

  it('flags no chart of 40 near the boundary for noise, and flags real autocorrelation', () => {
    // 40 baselines of 720 points with phi = 0.12: |phi-hat| > 0.1 (the flag before) on most.
    const near = Array.from({ length: 40 }, (_, i) => limitsOf(ar1(0.12, 720, i + 1)));
    const aboveOld = near.filter((l) => Math.abs(l.autocorrelation ?? 0) > AUTOCORRELATION_FLAG).length;
    expect(aboveOld).toBeGreaterThan(20);
    const flagged = near.filter((l) => l.autocorrelated === true);
    expect(flagged.length).toBeLessThanOrEqual(2);
    for (const l of flagged) expect(l.autocorrelation).toBeGreaterThan(0.186);
    // Real autocorrelation is found: phi = 0.3 and 0.2 at n = 720, 0.2 at a week (5,040 points).
    expect(limitsOf(ar1(0.3, 720, 11)).autocorrelated).toBe(true);
    expect(limitsOf(ar1(0.2, 5040, 12)).autocorrelated).toBe(true);
    // A negative one is not flagged (it errs towards fewer signals); nor independent points.
    expect(limitsOf(ar1(-0.4, 720, 13)).autocorrelated).toBe(false);
    expect(limitsOf(ar1(0, 720, 14)).autocorrelated).toBe(false);
  });

  it('leaves the compensation to the estimate: a chart with phi-hat above 0.1 is widened, flagged or not', () => {
    // Seed 8: phi-hat 0.143, not significant at n = 720; compensated all the same, as before.
    const l = limitsOf(ar1(0.12, 720, 8));
    expect(l.autocorrelation).toBeGreaterThan(0.1);
    expect(l.autocorrelated).toBe(false);
    expect(l.compensatedPhi).toBeCloseTo(l.autocorrelation ?? 0, 12);
  });
});
