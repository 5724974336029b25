/**
 * The chart of one series over time (src/spc/chart.ts): its bucketed baseline against a
 * recompute from every point, its memory, and how it takes history and late points.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { type ChartSpec, ControlChart, NELSON_RULES } from '../../src/spc/index.ts';
import { limitsFromBaseline } from '../helpers/limits.ts';

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
  const rng = splitmix64Fast(seed);
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
    // 87 buckets of 16 numbers, and the recent points' columns (a few dozen points).
    expect(most).toBeLessThanOrEqual(87 * 16 * 8 + 2 * 64 * 8);
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
    // Recorded 62 minutes ago: still among the recent points, it enters the baseline in its place.
    expect(chart.add(now - 62 * MIN + 1, 10)).toBe(true);
    const o = chart.evaluate({ nowMs: now, complete: true });
    expect(o.limits?.samples).toBe(32);
  });
});

describe('work per poll', () => {
  it('keeps the limits while the baseline is the same, and computes them again when it changes', () => {
    const p = points(3, 2);
    const chart = chartOf(rolling(DAY));
    const now = T0 + DAY + 2 * HOUR;
    let next = 0;
    for (; p.times[next]! <= now; next++) chart.add(p.times[next]!, p.values[next]!);
    chart.evaluate({ nowMs: now, complete: true });
    // Polled again with nothing new: the same limits, not computed again.
    const first = chart.evaluate({ nowMs: now, complete: true });
    const same = chart.evaluate({ nowMs: now, complete: true });
    expect(same.limits).toBe(first.limits);
    // Two minutes on: the oldest window point entered the baseline, which now has one more.
    chart.add(p.times[next]!, p.values[next]!);
    const moved = chart.evaluate({ nowMs: now + 2 * MIN, complete: true });
    expect(moved.limits).not.toBe(first.limits);
    expect(moved.limits?.samples).toBe((first.limits?.samples ?? 0) + 1);
  });
});

describe('history folded as it loads', () => {
  const duration = 7 * DAY;
  const now = T0 + 8 * DAY;
  const p = points(13, 8);
  const recentFrom = ControlChart.recentFrom({ spec: rolling(duration), overlapMs: 5 * MIN, nowMs: now });
  /** A chart given the history before `recentFrom` as history (keys from 1), then the recent points. */
  function loaded(fold: boolean) {
    const chart = chartOf(rolling(duration));
    if (fold) chart.foldHistoryBefore(recentFrom);
    let most = 0;
    let i = 0;
    for (; p.times[i]! < recentFrom; i++) {
      chart.addHistory(p.times[i]!, p.values[i]!, i + 1);
      most = Math.max(most, chart.historyBytes);
    }
    for (; p.times[i]! <= now; i++) chart.add(p.times[i]!, p.values[i]!, i + 1);
    return { chart, most, next: i };
  }

  it('never holds the whole history, and is the same chart from the second poll on', () => {
    const folded = loaded(true);
    const whole = loaded(false);
    // A week of points every 2 minutes is 16 bytes x 5,000 points; folded, the chart holds the
    // buckets and under 256 points of 20 bytes (time, value, key): the 4h it waits for history
    // out of order (120 points) and a batch of 64 between folds.
    expect(folded.most).toBeLessThanOrEqual(87 * 16 * 8 + 256 * 20);
    expect(whole.most).toBeGreaterThan(5000 * 16);
    const a = folded.chart.evaluate({ nowMs: now, complete: true });
    const b = whole.chart.evaluate({ nowMs: now, complete: true });
    // The first poll: the baseline's start on a bucket's edge, not exact among all points.
    expect(Math.abs((a.limits?.samples ?? 0) - (b.limits?.samples ?? 0))).toBeLessThanOrEqual(31);
    for (let k = 1; k <= 5; k++) {
      const t = now + k * STEP;
      folded.chart.add(p.times[folded.next]! + (k - 1) * STEP, 100);
      whole.chart.add(p.times[whole.next]! + (k - 1) * STEP, 100);
      const x = folded.chart.evaluate({ nowMs: t, complete: true }).limits;
      const y = whole.chart.evaluate({ nowMs: t, complete: true }).limits;
      expect(x?.samples).toBe(y?.samples);
      expect(x?.center).toBe(y?.center);
      expect(x?.sigma).toBe(y?.sigma);
      expect(x?.autocorrelation).toBe(y?.autocorrelation);
    }
  });

  it('folds nothing when the history comes newest first, and loses none of it', () => {
    const chart = chartOf(rolling(duration));
    chart.foldHistoryBefore(recentFrom);
    let last = 0;
    while (p.times[last]! < recentFrom) last++;
    for (let i = last - 1; i >= 0; i--) chart.addHistory(p.times[i]!, p.values[i]!, i + 1);
    for (let i = last; p.times[i]! <= now; i++) chart.add(p.times[i]!, p.values[i]!, i + 1);
    const whole = loaded(false).chart;
    const a = chart.evaluate({ nowMs: now, complete: true }).limits;
    const b = whole.evaluate({ nowMs: now, complete: true }).limits;
    expect(a?.samples).toBe(b?.samples);
    expect(a?.center).toBeCloseTo(b?.center ?? 0, 10);
    expect(a?.sigma).toBeCloseTo(b?.sigma ?? 0, 12);
  });

  it('recognises history fetched again after it was folded', () => {
    const once = loaded(true);
    const twice = loaded(true);
    // The whole history again (a first poll that failed part-way reads it again).
    let taken = 0;
    for (let i = 0; p.times[i]! < recentFrom; i++)
      if (twice.chart.addHistory(p.times[i]!, p.values[i]!, i + 1)) taken++;
    // Only the points not folded yet were taken again, and recognised by their keys at the merge.
    expect(taken).toBeLessThan(1000);
    const a = once.chart.evaluate({ nowMs: now, complete: true }).limits;
    const b = twice.chart.evaluate({ nowMs: now, complete: true }).limits;
    // Nothing taken twice; the sums only add in another order (more of them were in buckets).
    expect(b?.samples).toBe(a?.samples);
    expect(b?.center).toBeCloseTo(a?.center ?? 0, 10);
    expect(b?.sigma).toBeCloseTo(a?.sigma ?? 0, 12);
    expect(b?.autocorrelation).toBeCloseTo(a?.autocorrelation ?? 0, 12);
  });
});
