/**
 * The Phase I study of one chart on the realistic plant, with one assignable cause injected (a
 * 3 sigma shift of one station's vcc_3v3 for two hours of a day): the study flags it, and
 * excluding it gives the limits an independent computation gives for the kept points, which are
 * closer to those of the same day without the shift.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { Ar1, createSimulator, standardDraw } from '../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../src/simulator/types.ts';
import { createRuleResults, NELSON_RULES } from '../../src/spc/rules.ts';
import { type StudySettings, type StudySpan, studyChart } from '../../src/spc/study.ts';
import { evaluateRules } from '../helpers/nelson-rules.ts';

const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);
const HOUR = 3_600_000;
const FROM = NOW - 24 * HOUR;
const NAME = 'vcc_3v3';
const FAULT: StudySpan = { fromMs: FROM + 10 * HOUR, toMs: FROM + 12 * HOUR };
const PLANT: SimulatorOptions['plant'] = { kind: 'realistic', stops: false };

const SETTINGS: StudySettings = {
  rules: NELSON_RULES,
  detectors: {
    cusum: { enabled: true, k: 0.625, h: 10, cap: 2.5, fir: true },
    ewma: { enabled: true, lambda: 0.1, L: 4.5 },
  },
  compensate: true,
  minSamples: 25,
};

/** The first station measuring NAME, and its slot-1 series over the day, with and without the shift. */
function series() {
  const probe = createSimulator({ now: () => NOW, plant: PLANT, process: { drift: false } });
  const span = { from: new Date(NOW - HOUR), to: new Date(NOW), names: [NAME] };
  const station = probe.plant.stations.find((s) => probe.metricsBetween([s.id], span).length > 0)!;
  const read = (opts: SimulatorOptions) => {
    const sim = createSimulator({ now: () => NOW, plant: PLANT, ...opts });
    const records = sim
      .metricsBetween([station.id], { from: new Date(FROM), to: new Date(NOW), names: [NAME] })
      .filter((r) => r.value !== '' && r.slot === '1')
      .map((r) => ({ t: Date.parse(r.time_created), v: Number(r.value) }))
      .sort((a, b) => a.t - b.t);
    return { times: records.map((r) => r.t), values: records.map((r) => r.v) };
  };
  const shift = { kind: 'shift', stationId: station.id, name: NAME, sigmas: 3, ...FAULT } as const;
  return {
    faulty: read({ process: { drift: false, events: [shift] } }),
    clean: read({ process: { drift: false } }),
  };
}

/**
 * I-MR limits computed plainly: the mean, the mean moving range of neighbours (none across an
 * excluded span) over d2 = 1.128, widened by 1/sqrt(1 - phi) for a lag-1 autocorrelation phi
 * above 0.1 (at most 0.8), as docs/measurements.md defines them.
 */
function plainLimits(s: { times: number[]; values: number[] }, excluded: readonly StudySpan[]) {
  const out = (t: number) => excluded.some((e) => t >= e.fromMs && t < e.toMs);
  const kept: number[] = [];
  const pairs: Array<[number, number]> = [];
  let prev: number | undefined;
  s.times.forEach((t, i) => {
    if (out(t)) {
      prev = undefined;
      return;
    }
    const x = s.values[i]!;
    if (prev !== undefined) pairs.push([prev, x]);
    kept.push(x);
    prev = x;
  });
  const mean = kept.reduce((a, b) => a + b, 0) / kept.length;
  const mr = pairs.reduce((a, [x, y]) => a + Math.abs(y - x), 0) / pairs.length;
  const ss = kept.reduce((a, x) => a + (x - mean) ** 2, 0);
  const phi = pairs.reduce((a, [x, y]) => a + (x - mean) * (y - mean), 0) / ss;
  const within = mr / 1.128;
  const sigma = phi > 0.1 ? within / Math.sqrt(1 - Math.min(phi, 0.8)) : within;
  return { mean, sigma, n: kept.length };
}

describe('studyChart', () => {
  const { faulty, clean } = series();

  it('flags the injected shift as the strongest stretch to look at', () => {
    const study = studyChart(faulty, { settings: SETTINGS, excluded: [] });
    expect(study.points).toBe(faulty.times.length);
    expect(study.points).toBeGreaterThan(200);
    const top = study.episodes[0]!;
    // The stretch overlaps the shift, and the CUSUM and rule 1 both see it.
    expect(top.fromMs).toBeLessThan(FAULT.toMs);
    expect(top.lastMs).toBeGreaterThanOrEqual(FAULT.fromMs);
    expect(top.sources).toContain('cusum');
    expect(top.sources).toContain('rule 1');
    expect(top.extreme).toBeGreaterThan(3);
    expect(study.cusumHits.some((t) => t >= FAULT.fromMs && t < FAULT.toMs + HOUR)).toBe(true);
  });

  it('flags per point what the rules evaluated rule by rule count', () => {
    const study = studyChart(faulty, { settings: SETTINGS, excluded: [] });
    if (!study.result.ok) throw new Error('no limits');
    const independent = evaluateRules(
      faulty.values,
      { evalStart: 0, end: faulty.values.length },
      { limits: study.result.limits, rules: NELSON_RULES, out: createRuleResults() },
    );
    expect(study.ruleHits.map((h) => h.length)).toEqual([...independent.count]);
    expect(study.ruleHits[0]!.length).toBeGreaterThan(0);
  });

  it('excluding the shift gives the kept points’ limits, nearer the clean day’s', () => {
    const all = studyChart(faulty, { settings: SETTINGS, excluded: [] });
    const without = studyChart(faulty, { settings: SETTINGS, excluded: [FAULT] });
    if (!all.result.ok || !without.result.ok) throw new Error('no limits');
    const plain = plainLimits(faulty, [FAULT]);
    expect(without.points).toBe(plain.n);
    expect(without.excludedPoints).toBe(faulty.times.length - plain.n);
    expect(without.result.limits.center).toBeCloseTo(plain.mean, 10);
    expect(without.result.limits.sigma / plain.sigma).toBeCloseTo(1, 9);
    const truth = plainLimits(clean, []);
    const [a, b] = [all.result.limits, without.result.limits];
    expect(Math.abs(b.center - truth.mean)).toBeLessThan(Math.abs(a.center - truth.mean) / 2);
    expect(Math.abs(b.sigma - truth.sigma)).toBeLessThan(Math.abs(a.sigma - truth.sigma));
    // The shift's stretch is gone from what to look at.
    expect(without.episodes.every((e) => e.flags < all.episodes[0]!.flags / 2)).toBe(true);
  });

  it('tests normality with Anderson-Darling: skewed data fail it, normal data pass', () => {
    const n = 400;
    const times = Array.from({ length: n }, (_, i) => i * 60_000);
    // Deterministic normal quantiles (a perfect normal sample) and their exponentials.
    const normal = times.map((_, i) => {
      const p = (i + 0.5) / n;
      const t = Math.sqrt(-2 * Math.log(Math.min(p, 1 - p)));
      const z =
        t -
        (2.515517 + 0.802853 * t + 0.010328 * t * t) /
          (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3);
      return p < 0.5 ? -z : z;
    });
    // Interleaved, so that the series has no trend for the rules.
    const order = times.map((_, i) => (i % 2 === 0 ? i / 2 : n - 1 - (i - 1) / 2));
    const shuffled = order.map((k) => normal[k]!);
    const a = studyChart({ times, values: shuffled }, { settings: SETTINGS, excluded: [] });
    const b = studyChart(
      { times, values: shuffled.map((z) => Math.exp(z)) },
      { settings: SETTINGS, excluded: [] },
    );
    expect(a.normality!.pValue).toBeGreaterThan(0.5);
    expect(b.normality!.pValue).toBeLessThan(0.001);
  });

  it('measures the kept points’ shape with the rolling baseline’s estimators', () => {
    // A week of skewed AR(1) points every 2 minutes, one afternoon excluded.
    const week = 7 * 24 * HOUR;
    const r = splitmix64Fast(41);
    const ar = new Ar1(0.3);
    const times = Array.from({ length: 5040 }, (_, i) => i * 120_000);
    const values = times.map(() => 5 + 0.2 * ar.next(standardDraw({ kind: 'lognormal', sigma: 0.5 }, r)));
    const cut: StudySpan = { fromMs: 50 * HOUR, toMs: 56 * HOUR };
    const study = studyChart(
      { times, values },
      { settings: SETTINGS, excluded: [cut], period: { fromMs: 0, toMs: week } },
    );
    if (!study.result.ok) throw new Error('no limits');
    const c = study.result.limits.calibration!;
    const shape = plainShape({ times, values }, { cut, bucketMs: week / 84 });
    expect(c.center).toBeCloseTo(shape.mean, 10);
    expect(c.sigma / shape.sd).toBeCloseTo(1, 10);
    expect(c.phi).toBeCloseTo(shape.phi, 10);
    expect(c.skewness).toBeCloseTo(shape.skewness, 10);
    expect(c.skewness).toBeGreaterThan(0.5);
  });
});

/**
 * The calibration's inputs computed plainly from the kept points (docs/measurements.md,
 * "Calibration of the detectors on the baseline"): mean, standard deviation (n - 1), lag-1
 * autocorrelation over neighbour pairs not across the cut, and the median skewness of the time
 * buckets of 20 points or more but the last, shrunk by 2 × 1.2533 sqrt(6 / n) and 0.15.
 */
function plainShape(s: { times: number[]; values: number[] }, at: { cut: StudySpan; bucketMs: number }) {
  const kept: number[] = [];
  const buckets = new Map<number, number[]>();
  let lag = 0;
  let prev: number | undefined;
  const pairs: Array<[number, number]> = [];
  s.times.forEach((t, i) => {
    if (t >= at.cut.fromMs && t < at.cut.toMs) {
      prev = undefined;
      return;
    }
    const x = s.values[i]!;
    kept.push(x);
    const k = Math.floor(t / at.bucketMs);
    const bucket = buckets.get(k);
    if (bucket === undefined) buckets.set(k, [x]);
    else bucket.push(x);
    if (prev !== undefined) pairs.push([prev, x]);
    prev = x;
  });
  const n = kept.length;
  const mean = kept.reduce((a, b) => a + b, 0) / n;
  const ss = kept.reduce((a, x) => a + (x - mean) ** 2, 0);
  for (const [x, y] of pairs) lag += (x - mean) * (y - mean);
  const last = Math.max(...buckets.keys());
  const skews = [...buckets]
    .filter(([k, xs]) => k < last && xs.length >= 20)
    .map(([, xs]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const m2 = xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length;
      const m3 = xs.reduce((a, x) => a + (x - m) ** 3, 0) / xs.length;
      return m3 / m2 ** 1.5;
    })
    .sort((a, b) => a - b);
  const mid = skews.length >> 1;
  const median = skews.length % 2 === 1 ? skews[mid]! : (skews[mid - 1]! + skews[mid]!) / 2;
  const kept2 = Math.max(0, Math.abs(median) - 2 * 1.2533 * Math.sqrt(6 / n) - 0.15);
  return { mean, sd: Math.sqrt(ss / (n - 1)), phi: lag / ss, skewness: Math.sign(median) * kept2 };
}
