/**
 * The fast CUSUM beside the configured one (src/spc/detector-state.ts): its run lengths by the
 * Brook–Evans chain as documented, the pair found faster than the configured CUSUM alone at
 * 3 sigma, wild values that cannot signal alone, and its h widened for heavy tails keeping its
 * in-control run length on Student's t data.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import {
  cusumLongRunFactor,
  fastLongRunFactor,
  lognormalOfSkewness,
  longRunFactor,
  tailWidening,
} from '../../src/spc/calibration.ts';
import { cusumAdd, cusumStart } from '../../src/spc/cusum.ts';
import {
  type DetectorParams,
  detectorValue,
  effectiveParams,
  FAST_CUSUM,
  stepCusums,
} from '../../src/spc/detector-state.ts';
import { cusumArl, t5UnitCdf } from '../helpers/run-length.ts';

const within = (got: number, want: number, rel: number) => expect(Math.abs(got / want - 1)).toBeLessThan(rel);

const PARAMS: DetectorParams = {
  cusum: { enabled: true, k: 0.625, h: 10, cap: 2.5, fir: true },
  ewma: { enabled: false, lambda: 0.1, L: 4.5 },
  fast: FAST_CUSUM,
};

describe('the fast CUSUM', () => {
  it('has the run lengths the docs give, by the chain', () => {
    within(cusumArl(FAST_CUSUM, 0), 2.3e6, 0.02);
    within(cusumArl(FAST_CUSUM, 3), 3.92, 0.02);
    within(cusumArl(FAST_CUSUM, 2), 9.27, 0.02);
    // The configured CUSUM, for the pair: 1.44 million in control, 6.5 points at 3 sigma.
    within(cusumArl(PARAMS.cusum, 0), 1.44e6, 0.02);
  });

  it('with the configured one finds a 3 sigma shift in fewer points than the configured one alone', () => {
    const r = splitmix64Fast(31);
    const runs = 4000;
    let pair = 0;
    let alone = 0;
    for (let i = 0; i < runs; i++) {
      // From rest (sums at 0), as a shift arriving in steady operation finds them.
      const main = { upper: 0, lower: 0 };
      const fast = cusumStart(FAST_CUSUM);
      const solo = { upper: 0, lower: 0 };
      let n = 0;
      let found = 0;
      let soloFound = 0;
      while ((found === 0 || soloFound === 0) && n < 100) {
        n++;
        const z = 3 + r.normal();
        if (stepCusums(main, fast, z, PARAMS) !== undefined && found === 0) found = n;
        if (cusumAdd(solo, z, PARAMS.cusum) !== undefined && soloFound === 0) soloFound = n;
      }
      pair += found;
      alone += soloFound;
    }
    // The configured one alone: at least 6 points (h / (cap − k) = 5.3), 6.5 by the chain.
    within(alone / runs, cusumArl({ ...PARAMS.cusum, fir: false }, 3), 0.03);
    // The pair: about 3.9 (the chain of the fast one alone says 3.92; the configured one takes
    // a few runs off it).
    expect(pair / runs).toBeLessThan(3.95);
    expect(pair / runs).toBeGreaterThan(3.6);
  });

  it('is not set off by one or two wild values, from rest or from the restart', () => {
    for (const wild of [5, 50, 1e6, -1e6]) {
      for (const count of [1, 2]) {
        for (const start of ['rest', 'restart'] as const) {
          const main = start === 'rest' ? { upper: 0, lower: 0 } : cusumStart(PARAMS.cusum);
          const fast = cusumStart(FAST_CUSUM);
          const values = [0, ...Array.from({ length: count }, () => wild), 0, 0];
          const signals = values.map((z) => stepCusums(main, fast, z, PARAMS)).filter((s) => s !== undefined);
          expect(signals).toEqual([]);
        }
      }
    }
  });

  it('signals on three values in a row beyond 3.5 sigma, as its cap allows', () => {
    const main = { upper: 0, lower: 0 };
    const fast = cusumStart(FAST_CUSUM);
    const got = [9, 9, 9].map((z) => stepCusums(main, fast, z, PARAMS));
    expect(got).toEqual([undefined, undefined, 'up']);
  });

  it('widened for t5 tails, signals by chance no more often on t5 data than unwidened on normal data', () => {
    // Unwidened, t5 data (variance 1) set it off 17 times as often: its signals are runs of
    // values near 3 sigma, where t5 has several times the normal's mass.
    const plain = cusumArl(FAST_CUSUM, 0);
    expect(plain / cusumArl(FAST_CUSUM, 0, t5UnitCdf)).toBeGreaterThan(10);
    // The median bucket excess kurtosis of t5 baselines (84 buckets of 60 points) is about 1.0,
    // of normal ones −0.20 (simulated): what the calibration sees beyond normal, less its noise.
    const w = tailWidening(1.0 + 0.2 - 0.086);
    const widened = { ...FAST_CUSUM, h: FAST_CUSUM.h * w };
    expect(cusumArl(widened, 0, t5UnitCdf)).toBeGreaterThan(plain);
    expect(cusumArl(widened, 0, t5UnitCdf)).toBeLessThan(1.5 * plain);
  });
});

describe('the detectors against a calibrated baseline', () => {
  it('widen both decision intervals by the long-run factor of the calibration’s phi, the fast one for tails too', () => {
    const calibration = {
      center: 5,
      sigma: 2,
      phi: 0.2,
      skewness: 0,
      ...lognormalOfSkewness(0),
      excessKurtosis: 0,
      tailWidening: 1.2,
    };
    const limits = {
      kind: 'rolling' as const,
      center: 5.1,
      sigma: 1.5,
      ucl: 9.6,
      lcl: 0.6,
      mrBar: 1.7,
      mrUcl: 5.5,
      samples: 5040,
      calibration,
    };
    const p = effectiveParams(PARAMS, limits);
    // (1 + 0.2) / (1 − 0.2) = 1.5, computed by hand: 10 × 1.5^0.875; the fast one's 4.25 × 1.5^0.75 × 1.2.
    expect(p.cusum.h).toBeCloseTo(14.258697, 5);
    expect(p.fast?.h).toBeCloseTo(6.912555, 5);
    expect(p.cusum.k).toBe(0.625);
    // The value the detectors add is the calibration's, not the I chart's centre and sigma.
    expect(detectorValue(limits, 9)).toBe(2);
    const { calibration: _, ...given } = limits;
    expect(effectiveParams(PARAMS, given)).toBe(PARAMS);
    expect(detectorValue(given, 9)).toBeCloseTo(3.9 / 1.5, 12);
  });
});

/**
 * In-control run length of a fast CUSUM of decision interval `h` on Gaussian AR(1) data of
 * marginal variance 1, by Monte Carlo over `points` points (restarting at 0 after a signal).
 */
function ar1RunLength(h: number, phi: number, points: number, seed: number, base = FAST_CUSUM): number {
  const r = splitmix64Fast(seed);
  const p = { ...base, h };
  const gain = Math.sqrt(1 - phi * phi);
  const s = cusumStart(p);
  let x = r.normal();
  let signals = 0;
  for (let i = 0; i < points; i++) {
    x = phi * x + gain * r.normal();
    if (cusumAdd(s, x, p) !== undefined) {
      signals++;
      const start = cusumStart(p);
      s.upper = start.upper;
      s.lower = start.lower;
    }
  }
  return points / Math.max(1, signals);
}

describe('the fast CUSUM on autocorrelated data', () => {
  it('keeps about its run length on independent data with h × the long-run factor^0.75', () => {
    // At h 3 (a run length of about 40,000 points, so that a test can count signals): AR(1)
    // phi 0.3 unwidened signals about 16 times as often; widened by 1.86^0.75 = 1.59 it is back
    // within a factor of 2 (about 1.4 times longer); by a power of 0.5 it would be 3 times as often.
    const points = 2_000_000;
    const independent = ar1RunLength(3, 0, points, 5);
    expect(fastLongRunFactor(0.3)).toBeCloseTo(longRunFactor(0.3) ** 0.75, 12);
    expect(fastLongRunFactor(0)).toBe(1);
    const widened = ar1RunLength(3 * fastLongRunFactor(0.3), 0.3, points, 6);
    expect(widened / independent).toBeGreaterThan(0.7);
    expect(widened / independent).toBeLessThan(2.5);
    const unwidened = ar1RunLength(3, 0.3, points, 7);
    expect(unwidened / independent).toBeLessThan(0.2);
  });

  it('widens the configured CUSUM by the long-run factor^0.875, a little less than the factor', () => {
    // Computed by hand: 1.5^0.875 = e^(0.875 × 0.405465) = 1.4259; 1.8571^0.875 = 1.7189.
    expect(cusumLongRunFactor(0.2)).toBeCloseTo(1.4259, 4);
    expect(cusumLongRunFactor(0.3)).toBeCloseTo(1.7189, 4);
    expect(cusumLongRunFactor(0)).toBe(1);
    // At h 6 (a run length of about 7,000 points): AR(1) phi 0.3 widened so is back within a
    // factor of 2 of independent data (about 1.4 times longer); by the full factor 1.86, about
    // 2.5 times longer, which costs delay for nothing.
    const points = 2_000_000;
    const independent = ar1RunLength(6, 0, points, 8, PARAMS.cusum);
    const widened = ar1RunLength(6 * cusumLongRunFactor(0.3), 0.3, points, 9, PARAMS.cusum);
    const full = ar1RunLength(6 * longRunFactor(0.3), 0.3, points, 10, PARAMS.cusum);
    expect(widened / independent).toBeGreaterThan(0.8);
    expect(widened / independent).toBeLessThan(1.9);
    expect(full / widened).toBeGreaterThan(1.3);
  });
});
