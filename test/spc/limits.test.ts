/**
 * Phase I limits against values worked out by hand, the baseline ranges, and the cases that
 * must give no limits at all.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { Ar1, standardDraw } from '../../src/simulator/shapes.ts';
import { AUTOCORRELATION_FLAG } from '../../src/spc/autocorrelation.ts';
import { BaselineBuckets, BaselineCollector, BUCKETS_PER_BASELINE } from '../../src/spc/baseline.ts';
import { fastLongRunFactor, tailWidening } from '../../src/spc/calibration.ts';
import {
  type DetectorParams,
  detectorValue,
  effectiveParams,
  FAST_CUSUM,
} from '../../src/spc/detector-state.ts';
import {
  type ChartSpec,
  ControlChart,
  givenLimits,
  MAX_COMPENSATED_PHI,
  NELSON_RULES,
  QUANTIZATION_FLAG,
} from '../../src/spc/index.ts';
import { type ControlLimits, limitsFromSums } from '../../src/spc/limits.ts';
import { limitsFromBaseline } from '../helpers/limits.ts';

describe('limits from a baseline', () => {
  it('match the I-MR formulas worked out by hand', () => {
    // x = 10, 12, 11, 13, 9: sum 55, mean 11.
    // Moving ranges |12-10| = 2, |11-12| = 1, |13-11| = 2, |9-13| = 4: sum 9, MR-bar 9 / 4 = 2.25.
    // sigma = 2.25 / 1.128: 1.128 * 2 = 2.256 is 0.006 too much, 0.006 / 1.128 = 0.0053191489...,
    // so sigma = 1.9946808510638...; 3 sigma = 5.9840425531914...
    // UCL = 11 + 5.98404255... = 16.98404255...; LCL = 11 - 5.98404255... = 5.01595744...
    // MR UCL = 3.267 * 2.25 = 6.534 + 0.81675 = 7.35075.
    const r = limitsFromBaseline(
      [10, 12, 11, 13, 9],
      { start: 0, end: 5 },
      { minSamples: 5, kind: 'rolling' },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const l = r.limits;
    expect(l.center).toBe(11);
    expect(l.mrBar).toBe(2.25);
    expect(l.sigma).toBeCloseTo(1.99468085106383, 12);
    expect(l.ucl).toBeCloseTo(16.98404255319149, 12);
    expect(l.lcl).toBeCloseTo(5.01595744680851, 12);
    expect(l.mrUcl).toBeCloseTo(7.35075, 12);
    expect(l.samples).toBe(5);
    expect(l.kind).toBe('rolling');
  });

  it('use only the points of the range, in their time order', () => {
    // Baseline 1..4 of [100, 2, 4, 6, 8, -100]: mean 5; moving ranges 2, 2, 2 so MR-bar 2.
    const r = limitsFromBaseline(
      [100, 2, 4, 6, 8, -100],
      { start: 1, end: 5 },
      { minSamples: 4, kind: 'frozen' },
    );
    expect(r.ok && r.limits.center).toBe(5);
    expect(r.ok && r.limits.mrBar).toBe(2);
    // The same values in another order: 2, 6, 4, 8 has moving ranges 4, 2, 4: MR-bar 10/3.
    const s = limitsFromBaseline([2, 6, 4, 8], { start: 0, end: 4 }, { minSamples: 4, kind: 'frozen' });
    expect(s.ok && s.limits.mrBar).toBeCloseTo(10 / 3, 14);
  });

  it('need min_samples points', () => {
    const values = Array.from({ length: 24 }, (_, i) => i % 3);
    expect(limitsFromBaseline(values, { start: 0, end: 24 }, { minSamples: 25, kind: 'rolling' })).toEqual({
      ok: false,
      reason: 'too_few_samples',
      samples: 24,
    });
    expect(
      limitsFromBaseline([...values, 1], { start: 0, end: 25 }, { minSamples: 25, kind: 'rolling' }).ok,
    ).toBe(true);
    expect(limitsFromBaseline([1], { start: 0, end: 1 }, { minSamples: 1, kind: 'rolling' })).toMatchObject({
      reason: 'too_few_samples',
    });
  });

  it('give no limits when all values are equal', () => {
    const r = limitsFromBaseline(
      Array(30).fill(4.2),
      { start: 0, end: 30 },
      { minSamples: 25, kind: 'rolling' },
    );
    expect(r).toEqual({ ok: false, reason: 'zero_sigma', samples: 30 });
    expect(
      limitsFromBaseline(Array(30).fill(0), { start: 0, end: 30 }, { minSamples: 25, kind: 'rolling' }),
    ).toMatchObject({
      reason: 'zero_sigma',
    });
  });

  it('give no limits when the values differ only in their last bits', () => {
    // 0.1 + 0.2 is 0.30000000000000004, one ulp above 0.3: a constant process in practice.
    const nearly = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 0.3 : 0.1 + 0.2));
    expect(
      limitsFromBaseline(nearly, { start: 0, end: 30 }, { minSamples: 25, kind: 'rolling' }),
    ).toMatchObject({ reason: 'zero_sigma' });
    // Around 1e9 the ulp is 2^-23; alternating values one ulp apart are constant too.
    const big = Array.from({ length: 30 }, (_, i) => 1e9 + (i % 2) * 2 ** -23);
    expect(big[1]).not.toBe(big[0]);
    expect(limitsFromBaseline(big, { start: 0, end: 30 }, { minSamples: 25, kind: 'rolling' })).toMatchObject(
      { reason: 'zero_sigma' },
    );
  });

  it('keep a small but real spread, large offset or tiny unit alike', () => {
    // 1e9 + 0, 1, 0, 1, ...: every moving range is 1, sigma 1 / 1.128.
    const offset = Array.from({ length: 30 }, (_, i) => 1e9 + (i % 2));
    const r = limitsFromBaseline(offset, { start: 0, end: 30 }, { minSamples: 25, kind: 'rolling' });
    expect(r.ok && r.limits.sigma).toBeCloseTo(1 / 1.128, 9);
    // Values in the 1e-20 range (tiny units) with moving ranges of 1e-21.
    const tiny = Array.from({ length: 30 }, (_, i) => 1e-20 + (i % 2) * 1e-21);
    expect(limitsFromBaseline(tiny, { start: 0, end: 30 }, { minSamples: 25, kind: 'rolling' }).ok).toBe(
      true,
    );
  });

  it('keep a spread of 0.001 at an offset of 1e12, with the centre to a small share of sigma', () => {
    // Parsed as the upstream writes them: 1000000000000.001, .003, .002, ...
    const steps = Array.from({ length: 720 }, (_, i) => [1, 3, 2, 5, 4][i % 5]!);
    const values = steps.map((k) => Number(`1000000000000.00${k}`));
    const r = limitsFromBaseline(
      values,
      { start: 0, end: values.length },
      { minSamples: 25, kind: 'rolling' },
    );
    expect(r.ok).toBe(true);
    // Expected here from the parsed doubles' deviations from 1e12, which are exact.
    const devs = values.map((v) => v - 1e12);
    const meanDev = devs.reduce((a, d) => a + d, 0) / devs.length;
    let mr = 0;
    for (let i = 1; i < devs.length; i++) mr += Math.abs(devs[i]! - devs[i - 1]!);
    const sigma = mr / (devs.length - 1) / 1.128;
    if (!r.ok) return;
    expect(Math.abs(r.limits.sigma - sigma) / sigma).toBeLessThan(1e-9);
    // A double near 1e12 resolves 1.2e-4: the centre is within an ulp of 1e12 + meanDev.
    expect(Math.abs(r.limits.center - (1e12 + meanDev))).toBeLessThanOrEqual(2 ** -13);
  });

  it('give no limits for a baseline with a non-finite value', () => {
    const values = [1, 2, Number.NaN, 3, 4];
    expect(
      limitsFromBaseline(values, { start: 0, end: 5 }, { minSamples: 2, kind: 'rolling' }),
    ).toMatchObject({ reason: 'non_finite' });
    expect(
      limitsFromBaseline(
        [1, Number.POSITIVE_INFINITY, 2],
        { start: 0, end: 3 },
        { minSamples: 2, kind: 'rolling' },
      ),
    ).toMatchObject({
      reason: 'non_finite',
    });
  });
});

describe('given limits', () => {
  it('derive sigma as (ucl - lcl) / 6 and the MR limit from it', () => {
    // (13 - 7) / 6 = 1; MR-bar implied = 1.128 * 1; MR UCL = 3.267 * 1.128 = 3.685176.
    const r = givenLimits({ center: 10, ucl: 13, lcl: 7 });
    expect(r).toEqual({
      ok: true,
      limits: {
        kind: 'given',
        center: 10,
        sigma: 1,
        ucl: 13,
        lcl: 7,
        mrBar: 1.128,
        mrUcl: expect.any(Number),
        samples: 0,
      },
    });
    expect(r.ok && r.limits.mrUcl).toBeCloseTo(3.685176, 12);
  });

  it('refuse limits that are equal, crossed, or have the centre outside', () => {
    expect(givenLimits({ center: 5, ucl: 5, lcl: 5 })).toMatchObject({ reason: 'zero_sigma' });
    expect(givenLimits({ center: 5, ucl: 4, lcl: 6 })).toMatchObject({ reason: 'invalid_limits' });
    expect(givenLimits({ center: 7, ucl: 6, lcl: 4 })).toMatchObject({ reason: 'invalid_limits' });
  });

  it('keep the sigma of an approved study, with the MR limit from it', () => {
    // Sigma 0.5 given, not (13 - 7) / 6 = 1: MR-bar 1.128 * 0.5 = 0.564, MR UCL 3.267 * 0.564.
    const r = givenLimits({ center: 10, ucl: 13, lcl: 7, sigma: 0.5 });
    expect(r.ok && r.limits.sigma).toBe(0.5);
    expect(r.ok && r.limits.mrBar).toBeCloseTo(0.564, 12);
    expect(r.ok && r.limits.mrUcl).toBeCloseTo(1.842588, 12);
    expect(r.ok && [r.limits.ucl, r.limits.lcl]).toEqual([13, 7]);
    expect(givenLimits({ center: 10, ucl: 13, lcl: 7, sigma: -1 })).toMatchObject({
      reason: 'invalid_limits',
    });
    expect(givenLimits({ center: 10, ucl: 13, lcl: 7, sigma: Number.NaN })).toMatchObject({
      reason: 'invalid_limits',
    });
  });
});

describe('given limits with the shape of their study', () => {
  const PARAMS: DetectorParams = {
    cusum: { enabled: true, k: 0.625, h: 10, cap: 2.5, fir: true },
    ewma: { enabled: true, lambda: 0.1, L: 3 },
  };

  /** A rolling 7-day baseline of skewed AR(1) points every 2 minutes, through its buckets. */
  function rollingLimits(seed: number): ControlLimits {
    const r = splitmix64Fast(seed);
    const ar = new Ar1(0.3);
    const buckets = new BaselineBuckets(
      { originMs: 0, widthMs: (7 * 86_400_000) / BUCKETS_PER_BASELINE, capacity: BUCKETS_PER_BASELINE + 3 },
      10,
    );
    for (let i = 0; i < 5040; i++)
      buckets.push(i * 120_000, 10 + 0.5 * ar.next(standardDraw({ kind: 'lognormal', sigma: 0.5 }, r)));
    const into = new BaselineCollector(10);
    buckets.collect(0, into);
    const result = limitsFromSums(into.sums, { minSamples: 25, kind: 'rolling', anchor: 10 });
    if (!result.ok) throw new Error(result.reason);
    return result.limits;
  }

  it('calibrate the detectors exactly as the rolling baseline whose statistics they carry', () => {
    const rolling = rollingLimits(31);
    const c = rolling.calibration!;
    // The shape is there to carry: widening, transform and (maybe) tails all in play.
    expect(c.phi).toBeGreaterThan(0.2);
    expect(c.skewness).toBeGreaterThan(0.5);
    const { center, ucl, lcl, sigma } = rolling;
    const shape = { sigma: c.sigma, phi: c.phi, skewness: c.skewness, excessKurtosis: c.excessKurtosis ?? 0 };
    const approved = givenLimits({ center, ucl, lcl, sigma, shape });
    if (!approved.ok) throw new Error(approved.reason);
    expect(approved.limits.calibration).toEqual(c);
    expect(effectiveParams(PARAMS, approved.limits)).toEqual(effectiveParams(PARAMS, rolling));
    for (const x of [8.5, 9.6, 10, 10.4, 11.2, 12.5])
      expect(detectorValue(approved.limits, x)).toBe(detectorValue(rolling, x));
    // Without the shape: the settings as given, values standardized by the limits' sigma.
    const bare = givenLimits({ center, ucl, lcl, sigma });
    expect(bare.ok && effectiveParams(PARAMS, bare.limits)).toBe(PARAMS);
    expect(bare.ok && detectorValue(bare.limits, 11)).toBeCloseTo((11 - center) / sigma, 12);
  });

  it('widen by the long-run factor and map skewed values by the lognormal of their skewness', () => {
    const shape = { sigma: 2, phi: 0.3, skewness: 1, excessKurtosis: 0.5 };
    const r = givenLimits({ center: 10, ucl: 13, lcl: 7, sigma: 1, shape });
    if (!r.ok) throw new Error(r.reason);
    const p = effectiveParams(PARAMS, r.limits);
    // (1 + 0.3) / (1 - 0.3) to the power 0.875 for the configured CUSUM; the EWMA's L by
    // sqrt((1 + c) / (1 - c)), c = 0.3 (1 - 0.1) = 0.27.
    expect(p.cusum.h).toBeCloseTo(10 * (1.3 / 0.7) ** 0.875, 12);
    expect(p.ewma.L).toBeCloseTo(3 * Math.sqrt(1.27 / 0.73), 12);
    // The fast CUSUM: its own power of the factor and the tail widening (src/spc/calibration.ts).
    expect(p.fast?.h).toBeCloseTo(FAST_CUSUM.h * fastLongRunFactor(0.3) * tailWidening(0.5), 12);
    expect(tailWidening(0.5)).toBeGreaterThan(1);
    // Skewness 1: u = sqrt(ω - 1) solves u³ + 3u - 1 = 0 (Cardano), s² = ln ω; a value x is
    // ln(sqrt(ω) + sqrt((ω - 1) ω) (x - 10) / 2) / s, the standard deviation the study's 2.
    const u = Math.cbrt(0.5 + Math.sqrt(1.25)) + Math.cbrt(0.5 - Math.sqrt(1.25));
    const w = 1 + u * u;
    for (const x of [7, 9, 10, 12, 16]) {
      const expected =
        Math.log(Math.sqrt(w) + Math.sqrt((w - 1) * w) * ((x - 10) / 2)) / Math.sqrt(Math.log(w));
      expect(detectorValue(r.limits, x)).toBeCloseTo(expected, 9);
    }
  });

  it('refuse a shape without spread', () => {
    const shape = { sigma: 0, phi: 0, skewness: 0, excessKurtosis: 0 };
    expect(givenLimits({ center: 10, ucl: 13, lcl: 7, shape })).toMatchObject({ reason: 'invalid_limits' });
  });
});

describe('a chart over time', () => {
  const MIN = 60_000;
  const t0 = Date.UTC(2025, 2, 3, 8, 0, 0);
  // One point a minute for 100 minutes: 0, 1, 0, 1, ... then the newest 10 minutes at 5.
  const times = Array.from({ length: 100 }, (_, i) => t0 + i * MIN);
  const values = times.map((_, i) => (i >= 90 ? 5 : i % 2));
  const now = t0 + 99 * MIN;
  const spec: ChartSpec = {
    baseline: { kind: 'rolling', durationMs: 60 * MIN },
    minSamples: 25,
    evaluationWindowMs: 10 * MIN,
    rules: NELSON_RULES,
    compensate: true,
  };

  /** The chart production uses, rules only (no CUSUM or EWMA), fed the points and evaluated at `nowMs`. */
  const evaluate = (chartSpec: ChartSpec, nowMs: number) => {
    const chart = new ControlChart({
      spec: chartSpec,
      detectors: {
        cusum: { enabled: false, k: 0.5, h: 5, fir: false },
        ewma: { enabled: false, lambda: 0.1, L: 3 },
      },
      holdMs: 0,
      overlapMs: 0,
    });
    for (const [i, t] of times.entries()) chart.add(t, values[i]!);
    return chart.evaluate({ nowMs, complete: true });
  };

  it('a rolling baseline is the duration before the evaluation window', () => {
    // Evaluation (now - 10m, now]: minutes 90..99. Baseline (now - 70m, now - 10m]: minutes 30..89.
    const o = evaluate(spec, now);
    expect({ baseline: o.limits?.samples, evaluated: o.evaluated }).toEqual({ baseline: 60, evaluated: 10 });
  });

  it('a frozen baseline is [from, to), and points after now are left out', () => {
    const frozen: ChartSpec = {
      ...spec,
      baseline: { kind: 'frozen', fromMs: t0 + 10 * MIN, toMs: t0 + 40 * MIN },
    };
    // Baseline minutes 10..39; evaluation minutes 86..95.
    const o = evaluate(frozen, t0 + 95 * MIN);
    expect({ baseline: o.limits?.samples, evaluated: o.evaluated }).toEqual({ baseline: 30, evaluated: 10 });
  });

  it('evaluates the shifted points against the baseline limits', () => {
    // Baseline minutes 30..89: thirty 0s and thirty 1s, mean 0.5; every moving range is 1,
    // so sigma = 1 / 1.128 = 0.8865 and UCL = 0.5 + 2.6596 = 3.1596. Minutes 90..99 are 5,
    // beyond the UCL: rule 1 counts 10, last at minute 99. Minute 89 (value 1) is above the
    // centre too and serves as context, so eleven points 89..99 lie on one side: rule 2 (9 in a
    // row) completes at minutes 97, 98, 99, counting 3. Minute 89 is within 1 sigma; ten
    // in a row beyond 1 sigma (rule 8 needs 8: minutes 97, 98, 99, counting 3); rule 5 (2 of 3
    // beyond 2 sigma) completes at minutes 91..99 (9), rule 6 (4 of 5 beyond 1 sigma) at 93..99 (7).
    const o = evaluate(spec, now);
    expect(o.limits?.center).toBe(0.5);
    expect(o.limits?.ucl).toBeCloseTo(0.5 + 3 / 1.128, 12);
    expect([...Array.from(o.counts)]).toEqual([10, 3, 0, 0, 9, 7, 0, 3]);
    expect(Array.from(o.counts).some((c) => c > 0)).toBe(true);
    expect(o.lastTimes[0]).toBe(now);
    expect(o.lastTimes[2]).toBeNaN();
  });

  it('evaluates nothing without limits', () => {
    const o = evaluate({ ...spec, minSamples: 61 }, now);
    expect(o.result).toEqual({ ok: false, reason: 'too_few_samples', samples: 60 });
    expect(o.limits).toBeUndefined();
    expect(Array.from(o.counts)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('given limits need no baseline points', () => {
    const given: ChartSpec = { ...spec, baseline: { kind: 'given', center: 0, ucl: 6, lcl: -6 } };
    const o = evaluate(given, now);
    // Sigma 2: 5 is beyond 2 sigma (4) but not beyond 3 sigma (6).
    expect(o.counts[0]).toBe(0);
    expect(o.counts[4]).toBe(9);
  });
});

describe('baseline autocorrelation', () => {
  /** φ by the textbook two-pass formula. */
  const naive = (xs: readonly number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    let num = 0;
    let den = 0;
    xs.forEach((x, i) => {
      den += (x - m) ** 2;
      if (i > 0) num += (x - m) * ((xs[i - 1] ?? 0) - m);
    });
    return num / den;
  };
  /** `n` points of an AR(1) process with lag-1 coefficient `phi` and unit variance, around `offset`. */
  const ar1 = (phi: number, n: number, opts: { readonly seed: number; readonly offset?: number }) => {
    const { seed, offset = 0 } = opts;
    const r = splitmix64Fast(seed);
    let e = 0;
    return Array.from({ length: n }, () => {
      e = phi * e + Math.sqrt(1 - phi * phi) * r.normal();
      return offset + e;
    });
  };

  it('equals the two-pass formula, also at a large offset', () => {
    for (const values of [
      ar1(0.3, 720, { seed: 5 }),
      ar1(-0.2, 500, { seed: 6 }),
      ar1(0.5, 300, { seed: 7, offset: 1e6 }),
    ]) {
      const r = limitsFromBaseline(
        values,
        { start: 0, end: values.length },
        { minSamples: 25, kind: 'rolling' },
      );
      expect(r.ok).toBe(true);
      if (r.ok) expect(Math.abs((r.limits.autocorrelation ?? Number.NaN) - naive(values))).toBeLessThan(1e-6);
    }
  });

  it('flags a baseline of AR(1) data with phi = 0.3, not one of independent points', () => {
    // Standard error of the estimate about sqrt((1 - phi^2) / n) = 0.036 at n = 720.
    const flagged = limitsFromBaseline(
      ar1(0.3, 720, { seed: 11 }),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    const quiet = limitsFromBaseline(
      ar1(0, 720, { seed: 12 }),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    expect(flagged.ok && Math.abs((flagged.limits.autocorrelation ?? 0) - 0.3)).toBeLessThan(0.15);
    expect(flagged.ok && (flagged.limits.autocorrelation ?? 0) > AUTOCORRELATION_FLAG).toBe(true);
    expect(quiet.ok && Math.abs(quiet.limits.autocorrelation ?? 1) < AUTOCORRELATION_FLAG).toBe(true);
  });

  it('compensates sigma for a positive phi beyond the flag: MR-bar / d2 / sqrt(1 - phi)', () => {
    const values = ar1(0.3, 720, { seed: 11 });
    const r = limitsFromBaseline(values, { start: 0, end: 720 }, { minSamples: 25, kind: 'rolling' });
    if (!r.ok) throw new Error('no limits');
    const phi = naive(values);
    let mr = 0;
    for (let i = 1; i < values.length; i++) mr += Math.abs((values[i] ?? 0) - (values[i - 1] ?? 0));
    const within = mr / 719 / 1.128;
    expect(r.limits.compensatedPhi).toBeCloseTo(phi, 6);
    expect(r.limits.sigma).toBeCloseTo(within / Math.sqrt(1 - phi), 9);
    expect(r.limits.ucl - r.limits.center).toBeCloseTo(3 * r.limits.sigma, 9);
    // The process sigma is 1: the compensated estimate is near it, the moving range's is not.
    expect(Math.abs(r.limits.sigma - 1)).toBeLessThan(0.08);
    expect(within).toBeLessThan(0.9);
  });

  it('does not compensate independent points, nor a negative phi, and caps phi', () => {
    const quiet = limitsFromBaseline(
      ar1(0, 720, { seed: 12 }),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    const negative = limitsFromBaseline(
      ar1(-0.4, 720, { seed: 13 }),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    const slow = limitsFromBaseline(
      ar1(0.97, 720, { seed: 14 }),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    expect(quiet.ok && quiet.limits.compensatedPhi).toBeUndefined();
    expect(negative.ok && negative.limits.autocorrelation).toBeLessThan(-AUTOCORRELATION_FLAG);
    expect(negative.ok && negative.limits.compensatedPhi).toBeUndefined();
    expect(slow.ok && slow.limits.compensatedPhi).toBe(MAX_COMPENSATED_PHI);
  });
});

describe('baseline resolution', () => {
  const normal = (n: number, seed: number, step: number) => {
    const r = splitmix64Fast(seed);
    return Array.from({ length: n }, () => 50 + Math.round(r.normal() / step) * step);
  };

  it('is the finest step between neighbours, and flags steps coarser than half a sigma', () => {
    // A gauge reading in steps of 0.6 sigma, and one in steps of 0.1 sigma.
    const coarse = limitsFromBaseline(
      normal(720, 21, 0.6),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    const fine = limitsFromBaseline(
      normal(720, 22, 0.1),
      { start: 0, end: 720 },
      { minSamples: 25, kind: 'rolling' },
    );
    if (!coarse.ok || !fine.ok) throw new Error('no limits');
    expect(coarse.limits.resolution).toBeCloseTo(0.6, 9);
    expect(coarse.limits.resolution! / coarse.limits.sigma).toBeGreaterThan(QUANTIZATION_FLAG);
    expect(coarse.limits.quantized).toBe(true);
    expect(fine.limits.resolution).toBeCloseTo(0.1, 9);
    expect(fine.limits.quantized).toBe(false);
  });

  it('is computed by hand for a short baseline', () => {
    // Moving ranges 2, 0, 2, 4: the finest non-zero one is 2; MR-bar 2, sigma 2 / 1.128 = 1.773,
    // so a step of 2 is coarser than half a sigma.
    const r = limitsFromBaseline(
      [10, 12, 12, 14, 10],
      { start: 0, end: 5 },
      { minSamples: 5, kind: 'rolling' },
    );
    expect(r.ok && r.limits.resolution).toBe(2);
    expect(r.ok && r.limits.quantized).toBe(true);
  });
});

describe('baseline gaps', () => {
  it("leave the gap's points out, and no moving range spans a gap", () => {
    // Points 0..9 with 100, 101 (indexes 4, 5) left out: segments 1, 3, 2, 4 and 2, 5, 3, 4.
    const values = [1, 3, 2, 4, 100, 101, 2, 5, 3, 4];
    const r = limitsFromBaseline(
      values,
      { start: 0, end: 10 },
      { minSamples: 2, kind: 'rolling', gaps: [{ start: 4, end: 6 }] },
    );
    if (!r.ok) throw new Error('no limits');
    // Mean (1+3+2+4+2+5+3+4) / 8 = 3; moving ranges 2, 1, 2 and 3, 2, 1: MR-bar 11 / 6.
    expect(r.limits.samples).toBe(8);
    expect(r.limits.center).toBe(3);
    expect(r.limits.mrBar).toBeCloseTo(11 / 6, 12);
  });

  it('may start the baseline or cover all of it', () => {
    const values = [100, 1, 3, 2, 4];
    const r = limitsFromBaseline(
      values,
      { start: 0, end: 5 },
      { minSamples: 2, kind: 'rolling', gaps: [{ start: 0, end: 1 }] },
    );
    expect(r.ok && r.limits.center).toBe(2.5);
    expect(
      limitsFromBaseline(
        values,
        { start: 0, end: 5 },
        { minSamples: 2, kind: 'rolling', gaps: [{ start: 0, end: 5 }] },
      ),
    ).toMatchObject({
      ok: false,
      reason: 'too_few_samples',
    });
  });
});
