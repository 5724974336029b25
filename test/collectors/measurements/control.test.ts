/**
 * Control charts of the measurements collector over a real store filled by hand. Expected
 * limits and rule hits are worked out here from the sequences themselves (by hand or with
 * naive loops), not with the engine.
 */
import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';
import { ControlCharts } from '../../../src/collectors/measurements/control.ts';
import { controlSeriesByFamily } from '../../../src/collectors/measurements/control-families.ts';
import { measurementsCosts } from '../../../src/collectors/measurements/costs.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([2]);
const [A, B] = (plant.lines[0]?.elements ?? []).map((e) => e.id) as [string, string];
const topology = topologyOf([plant]);

// A triangle wave of period 8 and step 0.1 around 10: every moving range is 0.1 and each
// period sums to 80, so a whole number of periods has mean 10 and MR-bar 0.1 exactly.
const TRIANGLE = [10, 10.1, 10.2, 10.1, 10, 9.9, 9.8, 9.9];
/**
 * The wave is strongly autocorrelated (lag-1 about 0.7): the tests whose limits are worked out
 * from MR-bar alone switch the compensation off; one test below checks it on.
 */
const RAW = { compensate_autocorrelation: false };
const wave = (n: number, shift = 0) => Array.from({ length: n }, (_, i) => (TRIANGLE[i % 8] ?? 0) + shift);
/**
 * The sequential detectors' sigma on a baseline of 32 wave points: their standard deviation
 * (src/spc/calibration.ts), sqrt(Σ d² / 31) with Σ d² = 4 × 0.12 over four periods, not the
 * I chart's MR-bar / d2; the wave is symmetric (no skew transform) and RAW sets φ to 0.
 */
const DETECTOR_SIGMA = Math.sqrt((4 * 0.12) / 31);

/** Records of one series, one every `stepMs`, the last `endAgoMs` before NOW. */
function series(
  station: string,
  values: readonly number[],
  opts: { stepMs?: number; endAgoMs?: number; name?: string; upper?: (i: number) => number } = {},
): MeasurementRecord[] {
  const step = opts.stepMs ?? MIN;
  const end = NOW - (opts.endAgoMs ?? 0);
  return values.map((value, i) => ({
    stationId: station,
    slot: null,
    serial: `SN${i}`,
    time: end - (values.length - 1 - i) * step,
    name: opts.name ?? 'vbat',
    raw: String(value),
    value,
    unit: 'V',
    type: 'float',
    upper: opts.upper ? opts.upper(i) : 12,
    lower: 8,
    mode: null,
  }));
}

/** Charts over an existing store, as a restarted exporter would build them. */
function chartsOver(store: MeasurementStore, control: Record<string, unknown>) {
  const ctx = jobContext({ windows: ['1h'], measurements: { enabled: true, names: ['vbat'], control } });
  return new ControlCharts({ ...ctx, yielder: new LoopYielder() }, store);
}

function charts(control: Record<string, unknown>, yielder: LoopYielder = new LoopYielder()) {
  const ctx = jobContext({
    windows: ['1h'],
    measurements: { enabled: true, names: ['vbat', 'other'], control },
  });
  const store = new MeasurementStore();
  return { store, charts: new ControlCharts({ ...ctx, yielder }, store), config: ctx.config };
}

/** Steady series per chart: the planner's per-family figures, summed. */
const seriesPerChart = (config: Parameters<typeof controlSeriesByFamily>[0]) =>
  [...controlSeriesByFamily(config).perChart.values()].reduce((a, n) => a + n, 0);

const value = (s: Map<string, number>, family: string, station: string, rule?: number | string) =>
  [...s].find(
    ([k]) =>
      k.startsWith(`${family}{`) &&
      k.includes(`station_id="${station}"`) &&
      (rule === undefined || k.includes(`rule="${rule}"`)),
  )?.[1];

/** A per-name setting's value (labels: `metric` only). */
const setting = (s: Map<string, number>, family: string, metric: string) =>
  s.get(`${family}{metric="${metric}"}`);

/** Naive rule 1 and rule 2 over the evaluated points, the run of rule 2 may start in the context. */
function naive(all: readonly number[], evaluatedFrom: number, center: number, ucl: number, lcl: number) {
  let r1 = 0;
  let r2 = 0;
  for (let i = evaluatedFrom; i < all.length; i++) {
    const x = all[i] ?? 0;
    if (x > ucl || x < lcl) r1++;
    const last9 = all.slice(Math.max(0, i - 8), i + 1);
    if (last9.length === 9 && (last9.every((y) => y > center) || last9.every((y) => y < center))) r2++;
  }
  return { r1, r2 };
}

describe('control charts in the measurements collector', () => {
  it('charts a rolling baseline and flags a mean shift on one station only', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
    });
    // 32 baseline points (4 periods) a minute apart ending 61 minutes ago, then 12 points in
    // the evaluation hour: station A shifted up by 0.3, station B not.
    const baseline = wave(32);
    const shifted = wave(12, 0.3);
    store.add([
      ...series(A, baseline, { endAgoMs: 61 * MIN }),
      ...series(A, shifted, { stepMs: 4 * MIN }),
      ...series(B, baseline, { endAgoMs: 61 * MIN }),
      ...series(B, wave(12), { stepMs: 4 * MIN }),
    ]);
    c.retainFrom(NOW, NOW - HOUR);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    // By hand: centre 10, sigma = 0.1 / 1.128, limits 10 ± 0.3 / 1.128, MR limit 3.267 x 0.1.
    const sigma = 0.1 / 1.128;
    expect(value(s, 'station_measurement_control_center', A)).toBeCloseTo(10, 12);
    expect(value(s, 'station_measurement_control_ucl', A)).toBeCloseTo(10 + 3 * sigma, 12);
    expect(value(s, 'station_measurement_control_lcl', A)).toBeCloseTo(10 - 3 * sigma, 12);
    // Sigma, the MR limit and the baseline's size are not exported per chart any more.
    for (const gone of [
      'sigma',
      'mr_ucl',
      'baseline_samples',
      'baseline_autocorrelation',
      'baseline_resolution',
    ])
      expect([...s.keys()].some((k) => k.startsWith(`station_measurement_control_${gone}{`))).toBe(false);
    const expected = naive([...baseline, ...shifted], 32, 10, 10 + 3 * sigma, 10 - 3 * sigma);
    expect(expected).toEqual({ r1: 9, r2: 4 });
    expect(value(s, 'station_measurement_control_window_violations', A, 1)).toBe(expected.r1);
    expect(value(s, 'station_measurement_control_window_violations', A, 2)).toBe(expected.r2);
    expect(value(s, 'station_measurement_control_state', A)).toBe(1);
    // Issue 29: no last violation time per Nelson rule any more (ten series per chart once each
    // rule had fired); the window gauge dates nothing, the counters count.
    expect(value(s, 'station_measurement_control_last_violation_timestamp_seconds', A, 1)).toBeUndefined();
    // B continues its own pattern: in control, and no violation series at all (sparse); its
    // event counters exist at 0: rule 1, rules 2-8, the CUSUM and the EWMA.
    expect(value(s, 'station_measurement_control_state', B)).toBe(0);
    const ruled = [...s].filter(([k]) => k.includes(B) && k.includes('rule='));
    expect(ruled.every(([k]) => k.startsWith('station_measurement_control_violations_total{'))).toBe(true);
    expect(ruled.map(([k, v]) => [/rule="([^"]*)"/.exec(k)?.[1], v])).toEqual([
      ['1', 0],
      ['2-8', 0],
      ['cusum', 0],
      ['ewma', 0],
    ]);
  });

  /** A vbat chart on a 2h rolling baseline: a 32-point wave, then 12 points shifted by 0.3. */
  function shiftedVbat(upper?: (i: number) => number) {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
    });
    store.add([
      ...series(A, wave(32), { endAgoMs: 61 * MIN, upper }),
      ...series(A, wave(12, 0.3), { stepMs: 4 * MIN, upper }),
    ]);
    c.retainFrom(NOW, NOW - HOUR);
    return c;
  }

  it('uses the label sets of its window violations again at the next poll', async () => {
    const c = shiftedVbat();
    const windowLabels = async () => {
      const families = await c.families(topology, { nowMs: NOW, complete: true });
      return (
        families
          .find((f) => f.desc.name === 'station_measurement_control_window_violations')
          ?.samples.map((x) => x.labels) ?? []
      );
    };
    const first = await windowLabels();
    expect(first.length).toBeGreaterThan(0);
    // Built once per chart (while the station's labels stay), not at every poll.
    const again = await windowLabels();
    expect(again.length).toBe(first.length);
    for (const [i, labels] of again.entries()) expect(labels).toBe(first[i]);
  });

  it('does not reset on a change of spec limits', async () => {
    const run = async (upper: (i: number) => number) =>
      samplesOf(await shiftedVbat(upper).families(topology, { nowMs: NOW, complete: true }));
    const steady = await run(() => 12);
    const changed = await run((i) => (i < 20 ? 12 : 11));
    expect(changed).toEqual(steady);
    expect(value(changed, 'station_measurement_control_state', A)).toBe(1);
  });

  it('exports only its event counters, at 0, without enough baseline points', async () => {
    const { store, charts: c } = charts({ names: ['vbat'], baseline: { rolling: '2h' }, min_samples: 40 });
    store.add([
      ...series(A, wave(32), { endAgoMs: 61 * MIN }),
      ...series(A, wave(12, 5), { stepMs: 4 * MIN }),
    ]);
    c.retainFrom(NOW, NOW - HOUR);
    const families = await c.families(topology, { nowMs: NOW, complete: true });
    const present = families.filter((f) => f.samples.length > 0);
    // Issue 29: the late points counter exists only once a point came late (none here); the
    // detectors' settings come once per name.
    expect(present.map((f) => f.desc.name)).toEqual([
      'station_measurement_control_violations_total',
      'station_measurement_control_cusum_decision_interval',
      'station_measurement_control_cusum_reference_value',
      'station_measurement_control_ewma_lambda',
      'station_measurement_control_ewma_limit_sigmas',
      'station_measurement_control_limits_info',
    ]);
    // Rule 1, rules 2-8, the CUSUM and the EWMA.
    expect(present[0]?.samples.map((x) => x.value)).toEqual([0, 0, 0, 0]);
  });

  it('evaluates against given limits, asymmetric ones as given', async () => {
    const { store, charts: c } = charts({
      names: [{ name: 'vb.*', limits: { center: 10, ucl: 10.25, lcl: 9.5 } }],
    });
    // Given: sigma = (10.25 - 9.5) / 6 = 0.125; rule 1 uses the plan's own 10.25 and 9.5.
    store.add(series(A, [10, 10.3, 10, 9.6, 9.4, 10], { stepMs: 5 * MIN }));
    c.retainFrom(NOW, NOW - HOUR);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    const width =
      (value(s, 'station_measurement_control_ucl', A) ?? 0) -
      (value(s, 'station_measurement_control_lcl', A) ?? 0);
    expect(width / 6).toBeCloseTo(0.125, 12);
    // 10.3 > 10.25 and 9.4 < 9.5: two points; 9.6 is inside.
    expect(value(s, 'station_measurement_control_window_violations', A, 1)).toBe(2);
  });

  it('fetches charted names back to their baseline, but keeps only their recent points and other names for the longest window', async () => {
    const { store, charts: c } = charts({ names: ['vbat'], baseline: { rolling: '3h' } });
    const from = c.retainFrom(NOW, NOW - HOUR);
    // Rolling: fetched from the 3 hours before the 1h evaluation window.
    expect(from).toBe(NOW - 4 * HOUR);
    c.store.retainStations(new Set([A]));
    c.store.add([
      ...series(A, [1, 2, 3, 4, 5], { stepMs: HOUR, name: 'vbat' }),
      ...series(A, [1, 2, 3, 4, 5], { stepMs: HOUR, name: 'other' }),
    ]);
    c.store.evictBefore(from);
    const held = Object.fromEntries(store.seriesOf(A).map((s) => [s.name, s.rows.length]));
    // vbat: the charts' recent points, the evaluation window and the 5m overlap (-1h, 0h); the
    // baseline lives in the chart. other: only those inside the 1h window (-1h, 0h).
    expect(held).toEqual({ other: 2, vbat: 2 });
  });

  it('computes a frozen baseline once, evaluates only points after it, then lets its records go', async () => {
    const to = NOW - 2 * HOUR;
    const frozen = {
      names: ['vbat'],
      baseline: { from: new Date(to - HOUR).toISOString(), to: new Date(to).toISOString() },
      min_samples: 20,
    };
    const { store, charts: c } = charts(frozen);
    expect(c.retainFrom(NOW, NOW - HOUR)).toBe(to - HOUR);
    // 32 points in the frozen hour, then 12 in the evaluation hour shifted by 0.3.
    store.add([
      ...series(A, wave(32), { endAgoMs: 2 * HOUR + MIN }),
      ...series(A, wave(12, 0.3), { stepMs: 4 * MIN }),
    ]);
    const first = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    expect(value(first, 'station_measurement_control_center', A)).toBeCloseTo(10, 12);
    expect(value(first, 'station_measurement_control_window_violations', A, 2)).toBe(4);
    // Done: the name now keeps one extra evaluation window of context only; the limits stay.
    const later = NOW + 10 * MIN;
    const from = c.retainFrom(later, later - HOUR);
    expect(from).toBe(later - 2 * HOUR);
    c.store.retainStations(new Set([A, B]));
    c.store.evictBefore(from);
    const second = samplesOf(await c.families(topology, { nowMs: later, complete: true }));
    expect(value(second, 'station_measurement_control_center', A)).toBeCloseTo(10, 12);
    // The same 32 baseline points: the same limits.
    expect(value(second, 'station_measurement_control_ucl', A)).toBe(
      value(first, 'station_measurement_control_ucl', A),
    );
  });

  it('counts a violating point once, as an event, when it is first evaluated; history and a restart count none', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
    });
    // Limits by hand: centre 10, sigma 0.1 / 1.128, UCL = 10.266; 10.4 is beyond it (rule 1).
    const ucl = 10 + (3 * 0.1) / 1.128;
    expect(10.4).toBeGreaterThan(ucl);
    const first = NOW - 30 * MIN;
    const at = (t: number, value: number, serial: string): MeasurementRecord => ({
      ...series(A, [value])[0]!,
      time: t,
      serial,
    });
    let lastSamples = new Map<string, number>();
    const late = () => value(lastSamples, 'station_measurement_control_late_points_total', A);
    // Baseline ending 61 minutes before the first poll; a violating point in the history.
    store.add([...series(A, wave(32), { endAgoMs: 91 * MIN }), at(first - 10 * MIN, 10.4, 'H')]);
    const events = async (now: number) => {
      c.retainFrom(now, now - HOUR);
      const s = samplesOf(await c.families(topology, { nowMs: now, complete: true }));
      lastSamples = s;
      return {
        r1: value(s, 'station_measurement_control_violations_total', A, 1),
        window: value(s, 'station_measurement_control_window_violations', A, 1),
      };
    };
    // The history's violation shows in the window gauge, not as an event.
    expect(await events(first)).toEqual({ r1: 0, window: 1 });
    store.add([at(first + 5 * MIN, 10.4, 'N1')]);
    expect(await events(first + 10 * MIN)).toEqual({ r1: 1, window: 2 });
    // The window slides and the baseline moves: no new point, no new event.
    expect((await events(first + 20 * MIN)).r1).toBe(1);
    expect((await events(first + 30 * MIN)).r1).toBe(1);
    // A late point older than the last evaluated one is not evaluated, but counted as late (the
    // counter exists from the first late point: issue 29).
    expect(late()).toBeUndefined();
    store.add([at(first + 3 * MIN, 10.4, 'LATE')]);
    expect((await events(first + 40 * MIN)).r1).toBe(1);
    expect(late()).toBe(1);
    store.add([at(first + 45 * MIN, 10.4, 'N2')]);
    expect((await events(first + 50 * MIN)).r1).toBe(2);
    // A restarted exporter replays the same history: every counter starts at 0.
    const restarted = chartsOver(store, {
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
    });
    restarted.retainFrom(first + 50 * MIN, first - 10 * MIN);
    const after = samplesOf(await restarted.families(topology, { nowMs: first + 50 * MIN, complete: true }));
    for (const rule of ['1', '2-8']) {
      expect(value(after, 'station_measurement_control_violations_total', A, rule)).toBe(0);
    }
  });

  it('runs a CUSUM and an EWMA per series: history rebuilds them, new points signal as events', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 4, fast_initial_response: false },
      ewma: { lambda: 0.2, l: 3 },
    });
    // Centre 10, the detectors' sigma the baseline's standard deviation (0.1244).
    const sigma = DETECTOR_SIGMA;
    const first = NOW - 30 * MIN;
    store.add(series(A, wave(32), { endAgoMs: 91 * MIN }));
    const poll = async (now: number) => {
      c.retainFrom(now, now - HOUR);
      return samplesOf(await c.families(topology, { nowMs: now, complete: true }));
    };
    const s0 = await poll(first);
    expect(value(s0, 'station_measurement_control_cusum_upper', A)).toBe(0);
    expect(value(s0, 'station_measurement_control_violations_total', A, 'cusum')).toBe(0);
    // Then 20 points a minute apart, all 1.6 sigma above the centre.
    const shifted = Array.from({ length: 20 }, () => 10 + 1.6 * sigma);
    store.add(series(A, shifted, { endAgoMs: NOW - (first + 20 * MIN) }));
    const s1 = await poll(first + 20 * MIN);
    // By hand: each point adds z - k = 1.6 - 0.5 = 1.1 to C+; C+ is 4.4 > 4 at the 4th point and
    // restarts at 0, so 20 points give signals at the 4th, 8th, 12th, 16th and 20th point.
    expect(value(s1, 'station_measurement_control_violations_total', A, 'cusum')).toBe(5);
    // Issue 30: the 20th point signalled, so the gauge shows the sum that crossed h (4.4), not
    // the restarted 0, until the next point; h is a per-name series.
    expect(value(s1, 'station_measurement_control_cusum_upper', A)).toBeCloseTo(4.4, 9);
    expect(setting(s1, 'station_measurement_control_cusum_decision_interval', 'vbat')).toBe(4);
    // The EWMA, by a naive loop over the same standardized points, restarting after a signal.
    // The gauges show the statistic after the last point, before a restart it caused (issue 30).
    let z = 0;
    let t = 0;
    let shown = { z, t };
    let ewmaSignals = 0;
    for (let i = 0; i < 20; i++) {
      z = 0.2 * 1.6 + 0.8 * z;
      t++;
      shown = { z, t };
      const limit = 3 * Math.sqrt((0.2 / 1.8) * (1 - 0.8 ** (2 * t)));
      if (Math.abs(z) > limit) {
        ewmaSignals++;
        z = 0;
        t = 0;
      }
    }
    expect(ewmaSignals).toBeGreaterThan(0);
    expect(value(s1, 'station_measurement_control_violations_total', A, 'ewma')).toBe(ewmaSignals);
    expect(value(s1, 'station_measurement_control_ewma', A)).toBeCloseTo(10 + shown.z * sigma, 9);
    const half = 3 * sigma * Math.sqrt((0.2 / 1.8) * (1 - 0.8 ** (2 * shown.t)));
    // One half-width instead of an upper and a lower limit (issue 29): the limits are centre ± it.
    expect(value(s1, 'station_measurement_control_ewma_half_width', A)).toBeCloseTo(half, 9);
    // A restart replays the same points: the detectors are rebuilt, no event is counted.
    const restarted = chartsOver(store, {
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 4, fast_initial_response: false },
    });
    restarted.retainFrom(first + 20 * MIN, first - 40 * MIN);
    const after = samplesOf(await restarted.families(topology, { nowMs: first + 20 * MIN, complete: true }));
    expect(value(after, 'station_measurement_control_violations_total', A, 'cusum')).toBe(0);
    expect(value(after, 'station_measurement_control_cusum_upper', A)).toBeDefined();
  });

  it('gives the event loop turns on long series', async () => {
    let turns = 0;
    const counting = new (class extends LoopYielder {
      override yieldToLoop() {
        turns++;
        return super.yieldToLoop();
      }
    })();
    const { store, charts: c } = charts({ names: ['vbat'], baseline: { rolling: '7d' } }, counting);
    // 60,000 points a second apart, on each of two stations: at least two slices.
    store.add([...series(A, wave(60_000), { stepMs: 1000 }), ...series(B, wave(60_000), { stepMs: 1000 })]);
    c.retainFrom(NOW, NOW - HOUR);
    await c.families(topology, { nowMs: NOW, complete: true });
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('folds the history into the baseline as it arrives, not all at the first poll', async () => {
    const { charts: c } = charts({ ...RAW, names: ['vbat'], baseline: { rolling: '7d' } });
    c.retainFrom(NOW, NOW - HOUR);
    // A week and an hour of records 2 minutes apart (5,070), in half-hour answers, oldest first.
    const all = series(A, wave(5070), { stepMs: 2 * MIN });
    let most = 0;
    for (let i = 0; i < all.length; i += 15) {
      c.store.add(all.slice(i, i + 15));
      most = Math.max(most, c.history().bytes);
    }
    // Held raw, the history would be 20 bytes a point (time, value, key): 100 KB. Folded, the
    // chart holds its buckets and a few hundred points.
    expect(most).toBeLessThan(87 * 14 * 8 + 1024 * 20);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    // Every whole period of the wave: centre 10 exactly as far as the sums go.
    expect(value(s, 'station_measurement_control_center', A)).toBeCloseTo(10, 2);
  });

  it('bounds the series per charted series for the planner', () => {
    const { config } = charts({ names: ['vbat'], rules: { 4: { enabled: false }, 7: { enabled: false } } });
    // 5 steady (state, centre, UCL, LCL, the limits' source) + the counters of rule 1 and of
    // rules 2-8 (any enabled) + CUSUM (2 sums, counter) + EWMA (statistic, half-width, counter): 13.
    expect(seriesPerChart(config)).toBe(5 + 2 + 3 + 3);
  });

  it('has 13 series per chart in steady state with every detector on, as the estimate says', async () => {
    // A healthy chart (independent normal points every 2 minutes, sigma 0.1) polled every 10
    // minutes for 8 hours after a day of history, every rule, the CUSUM and the EWMA on.
    const { store, charts: c, config } = charts({ names: ['vbat'], baseline: { rolling: '24h' } });
    const step = 2 * MIN;
    const rng = splitmix64Fast(29);
    const all = Array.from({ length: (33 * HOUR) / step }, () => 10 + 0.1 * rng.normal());
    store.add(series(A, all, { stepMs: step, endAgoMs: -(8 * HOUR - step) }).filter((r) => r.time < NOW));
    const steady = new Map<string, number>();
    for (let now = NOW, i = 0; now <= NOW + 8 * HOUR; now += 10 * MIN, i++) {
      const fresh = series(A, all, { stepMs: step, endAgoMs: -(8 * HOUR - step) }).filter(
        (r) => r.time >= now - 10 * MIN && r.time < now && now > NOW,
      );
      store.add(fresh);
      c.retainFrom(now, now - HOUR);
      const s = samplesOf(await c.families(topology, { nowMs: now, complete: true }));
      const ofA = [...s.keys()].filter((k) => k.includes(`station_id="${A}"`));
      // The sparse ones come and go: a rule's window violations, a raised flag, late points.
      const kept = ofA.filter(
        (k) => !/window_violations|baseline_flag|late_points_total|last_violation_timestamp/.test(k),
      );
      // The same steady series at every poll.
      if (i > 0) expect(kept.length, new Date(now).toISOString()).toBe(steady.size);
      for (const k of kept) steady.set(k, (steady.get(k) ?? 0) + 1);
    }
    const byFamily = new Map<string, number>();
    for (const k of steady.keys()) {
      const f = k.slice(0, k.indexOf('{'));
      byFamily.set(f, (byFamily.get(f) ?? 0) + 1);
    }
    expect(Object.fromEntries(byFamily)).toEqual({
      station_measurement_control_state: 1,
      station_measurement_control_violations_total: 4,
      station_measurement_control_center: 1,
      station_measurement_control_ucl: 1,
      station_measurement_control_lcl: 1,
      station_measurement_control_cusum_upper: 1,
      station_measurement_control_cusum_lower: 1,
      station_measurement_control_ewma: 1,
      station_measurement_control_ewma_half_width: 1,
      station_measurement_control_limits_info: 1,
    });
    expect(steady.size).toBe(13);
    expect(seriesPerChart(config)).toBe(13);
    // check-config's estimate for one station and this one charted name: the same 13 per chart,
    // family by family, and the name's 4 settings once.
    const { perChart, perName } = controlSeriesByFamily(config);
    const rows = measurementsCosts.series(config, { stations: 1, groups: 0, lines: 1, sites: 1 });
    const estimated = (families: ReadonlyMap<string, number>) =>
      rows.filter((r) => families.has(r.family)).reduce((n, r) => n + r.series, 0);
    expect(estimated(perChart)).toBe(13);
    expect(Object.fromEntries(perChart)).toEqual(Object.fromEntries(byFamily));
    expect(estimated(perName)).toBe(4);
  });

  it('compensates an autocorrelated baseline and flags it, and flags a coarse resolution', async () => {
    const { store, charts: c } = charts({
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { h: 9 },
    });
    const baseline = wave(32);
    store.add([...series(A, baseline, { endAgoMs: 61 * MIN }), ...series(A, wave(12), { stepMs: 4 * MIN })]);
    c.retainFrom(NOW, NOW - HOUR);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    // Lag-1 autocorrelation by the two-pass formula over the 32 baseline points.
    const m = baseline.reduce((a, b) => a + b, 0) / baseline.length;
    let num = 0;
    let den = 0;
    baseline.forEach((x, i) => {
      den += (x - m) ** 2;
      if (i > 0) num += (x - m) * ((baseline[i - 1] ?? 0) - m);
    });
    const phi = num / den;
    expect(phi).toBeGreaterThan(0.5);
    const width =
      (value(s, 'station_measurement_control_ucl', A) ?? 0) -
      (value(s, 'station_measurement_control_lcl', A) ?? 0);
    expect(width / 6).toBeCloseTo(0.1 / 1.128 / Math.sqrt(1 - phi), 9);
    // h is per name (issue 29): the configured 9. This chart's h in force is 9 (1 + phi) / (1 - phi),
    // so its sums are exported divided by that factor: they cross 9 where the chart signals.
    expect(setting(s, 'station_measurement_control_cusum_decision_interval', 'vbat')).toBe(9);
    const flag = (f: string) =>
      [...s].find(
        ([k]) => k.startsWith('station_measurement_control_baseline_flag{') && k.includes(`flag="${f}"`),
      )?.[1];
    expect(flag('autocorrelated')).toBe(1);
    // Every step of the wave is 0.1, more than half the moving-range sigma 0.0887.
    expect(flag('quantized')).toBe(1);
    // The same, for the status page: one chart, both flags.
    const station = topology.stations.find((st) => st.id === A);
    expect(c.flagged()).toEqual([
      {
        site: station?.site.name,
        line: station?.line.name,
        station: station?.name,
        stationId: A,
        metric: 'vbat',
        slot: null,
        autocorrelation: { phi: expect.closeTo(phi, 9), compensated: true },
        quantized: {
          resolution: expect.closeTo(0.1, 12),
          sigma: expect.closeTo(0.1 / 1.128 / Math.sqrt(1 - phi), 9),
        },
      },
    ]);
  });

  it('takes CUSUM k and h per name, over the plant-wide defaults', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: [{ name: 'vbat', cusum: { h: 5 } }],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 7 },
    });
    store.add([...series(A, wave(32), { endAgoMs: 61 * MIN }), ...series(A, wave(12), { stepMs: 4 * MIN })]);
    c.retainFrom(NOW, NOW - HOUR);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    expect(setting(s, 'station_measurement_control_cusum_decision_interval', 'vbat')).toBe(5);
    expect(setting(s, 'station_measurement_control_cusum_reference_value', 'vbat')).toBe(0.5);
  });

  it('holds a rolling baseline after a CUSUM signal, then leaves the shift out of it', async () => {
    // A point every 2 minutes from 6 hours before NOW; +0.5 (5.6 sigma) from NOW for 90 minutes.
    const step = 2 * MIN;
    const start = NOW - 6 * HOUR;
    const n = (10 * HOUR) / step;
    const all = Array.from({ length: n }, (_, i) => {
      const t = start + i * step;
      return (TRIANGLE[i % 8] ?? 0) + (t >= NOW && t < NOW + 90 * MIN ? 0.5 : 0);
    });
    const run = async (hold: string | false) => {
      const { store, charts: c } = charts({ ...RAW, names: ['vbat'], baseline: { rolling: '2h' }, hold });
      store.add(series(A, all, { stepMs: step, endAgoMs: -(4 * HOUR - step) }));
      const centres = new Map<number, number | undefined>();
      let signals: number | undefined;
      for (let now = NOW - 10 * MIN; now <= NOW + 4 * HOUR; now += 10 * MIN) {
        c.retainFrom(now, now - HOUR);
        const s = samplesOf(await c.families(topology, { nowMs: now, complete: true }));
        centres.set(now, value(s, 'station_measurement_control_center', A));
        signals = value(s, 'station_measurement_control_violations_total', A, 'cusum');
      }
      return { centres, signals };
    };
    const held = await run('1h');
    const free = await run(false);
    expect(held.signals).toBeGreaterThan(0);
    // 80 minutes in, the free baseline has learnt 20 minutes of the shift (10 of its 60 points,
    // +0.083); the held one keeps the limits of the signal's poll.
    expect(Math.abs((held.centres.get(NOW + 80 * MIN) ?? 0) - 10)).toBeLessThan(0.03);
    expect((free.centres.get(NOW + 80 * MIN) ?? 0) - 10).toBeGreaterThan(0.06);
    // 4 hours in, the baseline [NOW + 1h, NOW + 3h) holds 30 minutes of the shift: the free one
    // learnt it (+0.125), the held one left it out once the hold ended.
    expect(Math.abs((held.centres.get(NOW + 4 * HOUR) ?? 0) - 10)).toBeLessThan(0.03);
    expect((free.centres.get(NOW + 4 * HOUR) ?? 0) - 10).toBeGreaterThan(0.1);
  });

  it('holds nothing before the first signal: without signals a held rolling baseline rolls like a free one', async () => {
    // A slow drift of 0.0005 a point (2 minutes apart) that no detector signals on; the baseline
    // follows it. (Before the first signal the last signal time is NaN, which must not count as new.)
    const step = 2 * MIN;
    const all = Array.from({ length: 180 }, (_, i) => (TRIANGLE[i % 8] ?? 0) + 0.0005 * i);
    const run = async (hold: string | false) => {
      const { store, charts: c } = charts({ ...RAW, names: ['vbat'], baseline: { rolling: '2h' }, hold });
      store.add(series(A, all, { stepMs: step, endAgoMs: -3 * HOUR }));
      const centres: Array<number | undefined> = [];
      let signals: number | undefined;
      for (let now = NOW; now <= NOW + 3 * HOUR; now += 10 * MIN) {
        c.retainFrom(now, now - HOUR);
        const s = samplesOf(await c.families(topology, { nowMs: now, complete: true }));
        centres.push(value(s, 'station_measurement_control_center', A));
        signals =
          (value(s, 'station_measurement_control_violations_total', A, 'cusum') ?? 0) +
          (value(s, 'station_measurement_control_violations_total', A, 'ewma') ?? 0);
      }
      return { centres, signals };
    };
    const held = await run('1h');
    const free = await run(false);
    expect(held.signals).toBe(0);
    expect(new Set(free.centres).size).toBeGreaterThan(10);
    expect(held.centres).toEqual(free.centres);
  });

  it('exports the last CUSUM signal time', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 4, fast_initial_response: false },
    });
    store.add(series(A, wave(32), { endAgoMs: 91 * MIN }));
    c.retainFrom(NOW - 30 * MIN, NOW - 90 * MIN);
    await c.families(topology, { nowMs: NOW - 30 * MIN, complete: true });
    // Five points of +1.6 sigma a minute apart: C+ passes 4 at the 4th (1.1 each), NOW - MIN.
    store.add(series(A, Array(5).fill(10 + 1.6 * DETECTOR_SIGMA)));
    c.retainFrom(NOW, NOW - HOUR);
    const s = samplesOf(await c.families(topology, { nowMs: NOW, complete: true }));
    expect(value(s, 'station_measurement_control_last_violation_timestamp_seconds', A, 'cusum')).toBe(
      (NOW - MIN) / 1000,
    );
    // A restarted exporter replays that signal as history: it counts no event and sets no time
    // an alert or an annotation could read again (issue 30).
    const restarted = chartsOver(store, {
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 4, fast_initial_response: false },
    });
    restarted.retainFrom(NOW, NOW - 2 * HOUR);
    const after = samplesOf(await restarted.families(topology, { nowMs: NOW, complete: true }));
    expect(value(after, 'station_measurement_control_violations_total', A, 'cusum')).toBe(0);
    expect(
      value(after, 'station_measurement_control_last_violation_timestamp_seconds', A, 'cusum'),
    ).toBeUndefined();
  });

  it('puts a late point inside the overlap in its place for the CUSUM; an older one is only counted late', async () => {
    const { store, charts: c } = charts({
      ...RAW,
      names: ['vbat'],
      baseline: { rolling: '2h' },
      min_samples: 20,
      cusum: { k: 0.5, h: 4, fast_initial_response: false },
      ewma: { enabled: false },
    });
    const high = 10 + 1.6 * DETECTOR_SIGMA;
    const at = (agoMin: number, serial: string): MeasurementRecord => ({
      ...series(A, [high])[0]!,
      time: NOW - agoMin * MIN,
      serial,
    });
    store.add(series(A, wave(32), { endAgoMs: 91 * MIN }));
    const poll = async (now: number) => {
      c.retainFrom(now, now - HOUR);
      const s = samplesOf(await c.families(topology, { nowMs: now, complete: true }));
      return {
        cusum: value(s, 'station_measurement_control_violations_total', A, 'cusum'),
        upper: value(s, 'station_measurement_control_cusum_upper', A),
        late: value(s, 'station_measurement_control_late_points_total', A),
        last: value(s, 'station_measurement_control_last_violation_timestamp_seconds', A, 'cusum'),
      };
    };
    await poll(NOW - 30 * MIN);
    // Three points 1.6 sigma high (z - k = 1.1 each): C+ = 3.3, no signal yet (h = 4). No point
    // came late: no late counter yet (issue 29).
    store.add([at(10, 'a'), at(8, 'b'), at(2, 'c')]);
    expect(await poll(NOW)).toMatchObject({ cusum: 0, late: undefined });
    // A fourth arrives late, recorded 4 minutes before NOW: inside the 5-minute overlap of the
    // next poll. In time order it is the third point, and the point at -2 min is the fourth:
    // C+ = 4.4 > 4 there, one event, dated at that point; the sums restart at 0, and the gauge
    // shows the 4.4 that crossed until the next point (issue 30).
    store.add([at(4, 'late')]);
    const placed = await poll(NOW + MIN);
    expect(placed).toMatchObject({
      cusum: 1,
      upper: expect.closeTo(4.4, 9),
      late: undefined,
      last: (NOW - 2 * MIN) / 1000,
    });
    // One recorded 9 minutes before NOW arrives after that: older than the overlap, never evaluated
    // (no new point: the gauge still shows the crossing).
    store.add([at(9, 'older')]);
    expect(await poll(NOW + 2 * MIN)).toMatchObject({ cusum: 1, upper: expect.closeTo(4.4, 9), late: 1 });
  });
});
