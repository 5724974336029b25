/**
 * The detectors' calibration on a baseline (src/spc/calibration.ts): its scale, φ and skewness
 * against direct computations over the points, the long-run factor against the exact variance
 * of a sum of AR(1) values, and the transform against the shape it maps.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { Ar1, standardDraw } from '../../src/simulator/shapes.ts';
import { BaselineBuckets, BaselineCollector, BUCKETS_PER_BASELINE } from '../../src/spc/baseline.ts';
import {
  type Calibration,
  calibrated,
  calibrationOf,
  lognormalOfSkewness,
  longRunFactor,
  shrunkSkewness,
  tailWidening,
} from '../../src/spc/calibration.ts';

const WEEK_MS = 7 * 86_400_000;
const STEP_MS = 120_000;

/** A week of points every 2 minutes through the buckets, as a chart keeps them; the sums. */
function weekSums(values: readonly number[]) {
  const anchor = values[0]!;
  const buckets = new BaselineBuckets(
    { originMs: 0, widthMs: WEEK_MS / BUCKETS_PER_BASELINE, capacity: BUCKETS_PER_BASELINE + 3 },
    anchor,
  );
  for (const [i, x] of values.entries()) buckets.push(i * STEP_MS, x);
  const into = new BaselineCollector(anchor);
  buckets.collect(0, into);
  return { sums: into.sums, anchor };
}

function draws(n: number, next: () => number): number[] {
  return Array.from({ length: n }, next);
}

function moments(xs: readonly number[]) {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  let s2 = 0;
  let s3 = 0;
  let lag = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    s2 += d * d;
    s3 += d * d * d;
    if (i > 0) lag += d * (xs[i - 1]! - m);
  }
  return { mean: m, sd: Math.sqrt(s2 / (n - 1)), skew: s3 / n / (s2 / n) ** 1.5, phi: lag / s2 };
}

describe('the long-run factor', () => {
  it('is the variance of a long sum of AR(1) values of variance 1, per value', () => {
    // Var(x_1 + … + x_n) / n = 1 + 2 Σ_{k<n} (1 − k/n) φ^k, summed directly.
    for (const phi of [-0.3, 0.05, 0.2, 0.5]) {
      const n = 20_000;
      let v = 1;
      for (let k = 1; k < n; k++) v += 2 * (1 - k / n) * phi ** k;
      expect(longRunFactor(phi)).toBeCloseTo(v, 3);
    }
  });
});

describe('calibrationOf', () => {
  it('takes the mean, standard deviation and lag-1 autocorrelation of all the points', () => {
    const r = splitmix64Fast(11);
    const ar = new Ar1(0.2);
    const xs = draws(5040, () => 1000 + 3 * ar.next(r.normal()));
    const { sums, anchor } = weekSums(xs);
    const c = calibrationOf(sums, anchor)!;
    const want = moments(xs);
    expect(c.center).toBeCloseTo(want.mean, 9);
    expect(c.sigma).toBeCloseTo(want.sd, 9);
    // The limits' φ sums over the neighbour pairs only; the direct one here divides by all n.
    expect(c.phi).toBeCloseTo(want.phi, 3);
    expect(c.phi).toBeGreaterThan(0.15);
    expect(c.skewness).toBe(0);
    expect(calibrationOf(sums, anchor, { phi: 0 })!.phi).toBe(0);
  });

  it('finds the skew of gamma data, none in normal data, and none from one wild value', () => {
    const r = splitmix64Fast(12);
    const gamma = weekSums(draws(5040, () => standardDraw({ kind: 'gamma', skewness: 1 }, r)));
    const g = calibrationOf(gamma.sums, gamma.anchor)!;
    // The median of 2-hour buckets' skewnesses, shrunk: below 1, well above 0.
    expect(g.skewness).toBeGreaterThan(0.3);
    expect(g.skewness).toBeLessThan(1);
    const normal = weekSums(draws(5040, () => r.normal()));
    expect(calibrationOf(normal.sums, normal.anchor)!.skewness).toBe(0);
    const wild = draws(5040, () => r.normal());
    wild[2000] = 60;
    // The whole baseline's skewness is large (about 60³ / 5040)…
    expect(moments(wild).skew).toBeGreaterThan(15);
    const w = weekSums(wild);
    // …the median of the buckets' is not.
    expect(calibrationOf(w.sums, w.anchor)!.skewness).toBe(0);
  });

  it('widens the fast CUSUM for heavy tails: t5 baselines, not normal ones, not for one wild value', () => {
    const r = splitmix64Fast(14);
    const widenings = (draw: () => number, charts: number) =>
      Array.from({ length: charts }, () => {
        const { sums, anchor } = weekSums(draws(5040, draw));
        return calibrationOf(sums, anchor)!.tailWidening;
      });
    const normal = widenings(() => r.normal(), 40);
    // Noise alone: one standard error of shrinkage leaves about 1 baseline in 6 a little
    // widened, by at most a few percent.
    expect(normal.filter((w) => w > 1).length).toBeLessThan(14);
    expect(Math.max(...normal)).toBeLessThan(1.1);
    const t5 = widenings(() => standardDraw({ kind: 't', df: 5 }, r), 40);
    // What keeps the fast CUSUM's run length on t5 data (Brook–Evans: 1.32, test/spc/fast-cusum.test.ts).
    for (const w of t5) {
      expect(w).toBeGreaterThan(1.2);
      expect(w).toBeLessThanOrEqual(1.36);
    }
    const wild = draws(5040, () => r.normal());
    wild[2000] = 60;
    const w = weekSums(wild);
    expect(calibrationOf(w.sums, w.anchor)!.tailWidening).toBeLessThan(1.1);
  });

  it('does not widen for the tails of skewed baselines, which the transform maps to a normal shape', () => {
    const r = splitmix64Fast(15);
    const widenings = (draw: () => number) =>
      Array.from({ length: 30 }, () => {
        const { sums, anchor } = weekSums(draws(5040, draw));
        return calibrationOf(sums, anchor)!;
      });
    // Raw kurtosis alone would widen these by 1.25 (gamma, skewness 1; lognormal s 0.3).
    for (const shape of [
      { kind: 'gamma', skewness: 1 },
      { kind: 'lognormal', sigma: 0.3 },
    ] as const) {
      const cs = widenings(() => standardDraw(shape, r));
      const sorted = cs.map((c) => c.tailWidening).sort((a, b) => a - b);
      expect(sorted[15]!).toBeLessThan(1.08);
      expect(cs.every((c) => c.skewness > 0)).toBe(true);
    }
  });

  it('widens by 1 + 0.36 (1 − e^(−2.2 e)), none without excess kurtosis', () => {
    expect(tailWidening(0)).toBe(1);
    expect(tailWidening(-1)).toBe(1);
    expect(tailWidening(Number.NaN)).toBe(1);
    expect(tailWidening(1)).toBeCloseTo(1 + 0.36 * (1 - Math.exp(-2.2)), 12);
    expect(tailWidening(100)).toBeCloseTo(1.36, 12);
  });

  it('shrinks a whole baseline’s skewness by its standard error and the heavy-tail allowance', () => {
    expect(shrunkSkewness(0.3, 5040)).toBe(0);
    expect(shrunkSkewness(1, 5040)).toBeCloseTo(1 - 2 * Math.sqrt(6 / 5040) - 0.4, 12);
    expect(shrunkSkewness(-1, 5040)).toBeCloseTo(-(1 - 2 * Math.sqrt(6 / 5040) - 0.4), 12);
    expect(shrunkSkewness(50, 5040)).toBe(4);
  });
});

describe('the transform', () => {
  it('has the lognormal whose skewness it was given', () => {
    for (const g of [0.2, 1, 1.75, 3]) {
      const { logS } = lognormalOfSkewness(g);
      const w = Math.exp(logS * logS);
      expect((w + 2) * Math.sqrt(w - 1)).toBeCloseTo(g, 9);
    }
  });

  it('maps lognormal data of that skewness to standard normal values, either way round', () => {
    const r = splitmix64Fast(13);
    const shape = { kind: 'lognormal', sigma: 0.5 } as const;
    const g = (Math.exp(0.25) + 2) * Math.sqrt(Math.exp(0.25) - 1);
    const base = lognormalOfSkewness(g);
    const up: Calibration = {
      center: 10,
      sigma: 2,
      phi: 0,
      skewness: g,
      ...base,
      excessKurtosis: 0,
      tailWidening: 1,
    };
    const down: Calibration = { ...up, skewness: -g };
    const n = 200_000;
    const ups: number[] = [];
    const downs: number[] = [];
    for (let i = 0; i < n; i++) {
      const z = standardDraw(shape, r);
      ups.push(calibrated(up, 10 + 2 * z));
      downs.push(calibrated(down, 10 - 2 * z));
    }
    for (const xs of [ups, downs]) {
      const m = moments(xs);
      expect(Math.abs(m.mean)).toBeLessThan(0.01);
      expect(Math.abs(m.sd - 1)).toBeLessThan(0.01);
      expect(Math.abs(m.skew)).toBeLessThan(0.03);
      // The upper tail as a normal's: P(z > 3) = 0.00135.
      const beyond = xs.filter((x) => x > 3).length / n;
      expect(Math.abs(beyond - 0.00135)).toBeLessThan(0.0004);
    }
  });

  it('is the plain standardized value without skew', () => {
    const c: Calibration = {
      center: 5,
      sigma: 2,
      phi: 0,
      skewness: 0,
      ...lognormalOfSkewness(0),
      excessKurtosis: 0,
      tailWidening: 1,
    };
    expect(calibrated(c, 9)).toBe(2);
    expect(calibrated(c, 1)).toBe(-2);
  });
});
