/**
 * The chart of one series over time (src/spc/chart.ts): its bucketed baseline against a
 * recompute from every point, its memory, and how it takes history and late points.
 */
import { describe, expect, it } from 'vitest';
import { type ChartSpec, ControlChart, limitsFromBaseline, NELSON_RULES } from '../../src/spc/index.ts';
import { splitmix64 } from '../../src/util/random.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const STEP = 2 * MIN;
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
const OFF = {
  cusum: { enabled: false, k: 0.5, h: 5, fir: false },
  ewma: { enabled: false, lambda: 0.1, L: 3 },
};

const rolling = (durationMs: number): ChartSpec => ({
  baseline: { kind: 'rolling', durationMs },
  minSamples: 25,
  evaluationWindowMs: HOUR,
  rules: NELSON_RULES,
  compensate: true,
});

const chartOf = (spec: ChartSpec) =>
  new ControlChart({ spec, detectors: OFF, holdMs: 0, overlapMs: 5 * MIN });

/** Points every 2 minutes from T0: AR(1) noise with phi 0.3 around 100, and a slow drift. */
function points(seed: number, days: number) {
  const rng = splitmix64(seed);
  const n = Math.floor((days * DAY) / STEP);
  const times = new Float64Array(n);
  const values = new Float64Array(n);
  let e = 0;
  for (let i = 0; i < n; i++) {
    e = 0.3 * e + Math.sqrt(1 - 0.09) * rng.normal();
    times[i] = T0 + i * STEP;
    // Rounded to 0.001: ties and a resolution, as real gauges give.
    values[i] = Math.round((100 + 0.5 * Math.sin(i / 500) + e) * 1000) / 1000;
  }
  return { times, values };
}

/** Limits from every point of `(start, end]`, by the reference pass over the points. */
function reference(p: ReturnType<typeof points>, span: { start: number; end: number; minSamples?: number }) {
  let lo = 0;
  while (lo < p.times.length && p.times[lo]! <= span.start) lo++;
  let hi = lo;
  while (hi < p.times.length && p.times[hi]! <= span.end) hi++;
  return limitsFromBaseline(
    p.values,
    { start: lo, end: hi },
    { minSamples: span.minSamples ?? 25, kind: 'rolling' },
  );
}

describe('a rolling baseline in buckets', () => {
  it('stays within the bound of a half-bucket edge of a recompute from every point, on random data', () => {
    for (const seed of [1, 2, 3]) {
      const duration = DAY;
      const p = points(seed, 3);
      const chart = chartOf(rolling(duration));
      // Half a bucket of points (84 buckets per baseline), and one more for the rounding.
      const m = Math.ceil(duration / 84 / 2 / STEP) + 1;
      let next = 0;
      let compared = 0;
      for (let now = T0 + DAY + 2 * HOUR; now <= T0 + 3 * DAY; now += 10 * MIN) {
        for (; next < p.times.length && p.times[next]! <= now; next++)
          chart.add(p.times[next]!, p.values[next]!);
        const o = chart.evaluate({ nowMs: now, complete: true });
        const evalFrom = now - HOUR;
        const ref = reference(p, { start: evalFrom - duration, end: evalFrom });
        if (!ref.ok || o.limits === undefined) throw new Error('expected limits');
        const r = ref.limits;
        const l = o.limits;
        const n = r.samples;
        expect(Math.abs(l.samples - n)).toBeLessThanOrEqual(m);
        // Moving m points of a window of n changes a mean by at most m / (n - m) of the spread
        // of the values (and of the moving ranges, for MR-bar).
        const share = m / (n - m);
        expect(Math.abs(l.center - r.center)).toBeLessThanOrEqual(share * 8 * r.sigma);
        expect(Math.abs(l.mrBar - r.mrBar)).toBeLessThanOrEqual(share * 10 * r.mrBar);
        expect(Math.abs((l.autocorrelation ?? 0) - (r.autocorrelation ?? 0))).toBeLessThanOrEqual(4 * share);
        // The finest step of values rounded to 0.001 is a multiple of it.
        expect(Math.abs((l.resolution ?? 0) * 1000 - Math.round((l.resolution ?? 0) * 1000))).toBeLessThan(
          1e-6,
        );
        compared++;
      }
      expect(compared).toBeGreaterThan(200);
    }
  });

  it('is exactly a recompute from every point while its start lies among the recent points', () => {
    // A 30-minute baseline starts after the recent points' start (the window and the overlap).
    const p = points(7, 1);
    const chart = chartOf({ ...rolling(30 * MIN), minSamples: 10 });
    for (let i = 0; i < p.times.length; i++) chart.add(p.times[i]!, p.values[i]!);
    for (let now = T0 + 6 * HOUR; now <= T0 + 12 * HOUR; now += 10 * MIN) {
      const o = chart.evaluate({ nowMs: now, complete: true });
      const evalFrom = now - HOUR;
      const ref = reference(p, { start: evalFrom - 30 * MIN, end: evalFrom, minSamples: 10 });
      if (!ref.ok || o.limits === undefined) throw new Error('expected limits');
      expect(o.limits.samples).toBe(ref.limits.samples);
      expect(o.limits.center).toBeCloseTo(ref.limits.center, 10);
      expect(o.limits.sigma).toBeCloseTo(ref.limits.sigma, 10);
      expect(o.limits.autocorrelation).toBeCloseTo(ref.limits.autocorrelation ?? 0, 10);
    }
  });

  it('a frozen baseline in buckets is exactly the recompute from its points', () => {
    const p = points(11, 2);
    const spec: ChartSpec = {
      ...rolling(DAY),
      baseline: { kind: 'frozen', fromMs: T0 + HOUR, toMs: T0 + DAY },
    };
    const chart = chartOf(spec);
    let next = 0;
    let o: ReturnType<ControlChart['evaluate']> | undefined;
    // Polled as time goes by: the baseline's points leave the recent points into its buckets.
    for (let now = T0 + 2 * HOUR; now <= T0 + 2 * DAY; now += 30 * MIN) {
      for (; next < p.times.length && p.times[next]! <= now; next++)
        chart.add(p.times[next]!, p.values[next]!);
      o = chart.evaluate({ nowMs: now, complete: true });
    }
    let lo = 0;
    while (p.times[lo]! < T0 + HOUR) lo++;
    let hi = lo;
    while (p.times[hi]! < T0 + DAY) hi++;
    const ref = limitsFromBaseline(p.values, { start: lo, end: hi }, { minSamples: 25, kind: 'frozen' });
    if (!ref.ok || o?.limits === undefined) throw new Error('expected limits');
    expect(o.limits.samples).toBe(ref.limits.samples);
    expect(o.limits.center).toBeCloseTo(ref.limits.center, 10);
    expect(o.limits.mrBar).toBeCloseTo(ref.limits.mrBar, 10);
    expect(o.limits.autocorrelation).toBeCloseTo(ref.limits.autocorrelation ?? 0, 10);
  });

  it('holds a bounded history: a week at a point every 2 minutes, about 11 KiB', () => {
    const p = points(5, 8);
    const chart = chartOf(rolling(7 * DAY));
    let next = 0;
    let most = 0;
    for (let now = T0 + HOUR; now <= T0 + 8 * DAY; now += 10 * MIN) {
      for (; next < p.times.length && p.times[next]! <= now; next++)
        chart.add(p.times[next]!, p.values[next]!);
      chart.evaluate({ nowMs: now, complete: true });
      if (now > T0 + DAY) most = Math.max(most, chart.historyBytes);
    }
    // 87 buckets of 14 numbers, and the recent points' columns (a few dozen points).
    expect(most).toBeLessThanOrEqual(87 * 14 * 8 + 2 * 64 * 8);
  });
});

describe('points into a chart', () => {
  const spec: ChartSpec = { ...rolling(2 * HOUR), minSamples: 10 };
  const now = T0 + 4 * HOUR;

  it('recognises history fetched again while it loads, and takes no history after a complete poll', () => {
    const chart = chartOf(spec);
    for (let i = 0; i < 60; i++) chart.addHistory(now - 2 * HOUR + i * STEP, 10 + (i % 3), 1000 + i);
    // The same records again (a fetch that failed part-way is read again): not taken twice.
    for (let i = 0; i < 60; i++) chart.addHistory(now - 2 * HOUR + i * STEP, 10 + (i % 3), 1000 + i);
    // The baseline (now - 3h, now - 1h] holds 31 of the 60 points.
    expect(chart.evaluate({ nowMs: now, complete: false }).limits?.samples).toBe(31);
    for (let i = 0; i < 60; i++) chart.addHistory(now - 2 * HOUR + i * STEP, 10 + (i % 3), 1000 + i);
    expect(chart.evaluate({ nowMs: now, complete: true }).limits?.samples).toBe(31);
    expect(chart.isLoading).toBe(false);
    expect(chart.addHistory(now - 90 * MIN, 11, 7)).toBe(false);
  });

  it('puts a late point among the recent ones in its place, and leaves out one older than them', () => {
    const chart = chartOf(spec);
    for (let i = 0; i < 60; i++) chart.add(now - 2 * HOUR + i * STEP, 10 + (i % 3));
    chart.evaluate({ nowMs: now, complete: true });
    // The recent points are the window and the 5m overlap, and the 14 points before the window
    // the rules may need as context: from now - 88m. One recorded 100 minutes ago is too late.
    expect(chart.add(now - 100 * MIN + 1, 50)).toBe(false);
    expect(chart.tooLatePoints).toBe(1);
    // Recorded 62 minutes ago: still among the recent points, it enters the baseline in its place.
    expect(chart.add(now - 62 * MIN + 1, 10)).toBe(true);
    const o = chart.evaluate({ nowMs: now, complete: true });
    expect(o.limits?.samples).toBe(32);
  });
});
