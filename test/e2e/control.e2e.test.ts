/**
 * Control charts end to end, in a real Prometheus. The simulator runs with its drift off, a mean
 * shift injected into one station's measurement and a yield drop into one line; the exporter polls
 * it hourly over a day of a fake clock, and every poll's exposition is backfilled into Prometheus
 * as if it had been scraped every 4 minutes. Then Prometheus is asked for the control series and
 * evaluates the shipped alert expressions (recording rules inlined): the shift must show on that
 * station only, with rule hits equal to those computed here from the simulator's own records, and
 * the p-chart of first-pass yield must show that line only below its limit.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSimulator } from '../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../src/simulator/types.ts';
import {
  type BackfilledPrometheus,
  mergeSnapshots,
  type Snapshot,
  startBackfilled,
} from '../helpers/backfill.ts';
import { dataExposition, FIXED_NOW, startHarness } from '../helpers/harness.ts';
import { prometheusPath } from '../helpers/prometheus.ts';
import { promtoolPath } from '../helpers/promtool.ts';

const enabled = Boolean(prometheusPath() && promtoolPath()) || Boolean(process.env.CI);
const MIN = 60_000;
const HOUR = 60 * MIN;
// No spec limits, so failing visits never put an out-of-spec value into it.
const NAME = 'ambient_humidity';
const EVAL_MS = 20 * MIN;
const BASELINE_MS = 4 * HOUR;
// Chance signals are real: with rules 1, 2, 3, 5 and 6 over some 40 in-control points, a series
// shows one in roughly a quarter of windows. This seed's healthy series have none at the two
// instants evaluated, which the naive computation below confirms from the simulator's records.
const SEED = 4;
const SCALE = { sites: 1, linesPerSite: 2, stationsPerLine: 10, measurementNames: 20, unitsPerHour: 120 };

/** The shipped rules of the control group, with the recording rules' names inlined. */
function controlRules(): { alerts: Map<string, string>; inline: (expr: string) => string } {
  type Doc = {
    groups: Array<{ name: string; rules: Array<{ record?: string; alert?: string; expr: string }> }>;
  };
  const read = (file: string) => parse(readFileSync(file, 'utf8')) as Doc;
  // The shipped control group, and the opt-in Nelson-rule alerts.
  const rules = [
    ...(read('prometheus/rules/station-exporter.rules.yml').groups.find(
      (g) => g.name === 'station-exporter.control',
    )?.rules ?? []),
    ...read('prometheus/rules/station-exporter.nelson.rules.yml').groups.flatMap((g) => g.rules),
  ];
  const records = new Map(rules.flatMap((r) => (r.record ? [[r.record, r.expr.trim()] as const] : [])));
  const inline = (expr: string): string =>
    expr.replace(/[a-zA-Z_:][a-zA-Z0-9_:]*/g, (name) => {
      const def = records.get(name);
      return def === undefined ? name : `(${inline(def)})`;
    });
  return { alerts: new Map(rules.flatMap((r) => (r.alert ? [[r.alert, r.expr] as const] : []))), inline };
}

/** Naive I-MR limits and rules 1 and 2 of one series, straight from the records. */
function naiveChart(points: Array<{ t: number; v: number }>, now: number) {
  const evalFrom = now - EVAL_MS;
  const base = points.filter((p) => p.t > evalFrom - BASELINE_MS && p.t <= evalFrom).map((p) => p.v);
  const evaluated = points.filter((p) => p.t > evalFrom && p.t <= now);
  if (base.length < 25) return undefined;
  const center = base.reduce((a, b) => a + b, 0) / base.length;
  let mr = 0;
  for (let i = 1; i < base.length; i++) mr += Math.abs((base[i] ?? 0) - (base[i - 1] ?? 0));
  const sigma = mr / (base.length - 1) / 1.128;
  const all = [...base, ...evaluated.map((p) => p.v)];
  let r1 = 0;
  let r2 = 0;
  for (let i = base.length; i < all.length; i++) {
    const x = all[i] ?? 0;
    if (Math.abs(x - center) > 3 * sigma) r1++;
    const run = all.slice(i - 8, i + 1);
    if (run.length === 9 && (run.every((y) => y > center) || run.every((y) => y < center))) r2++;
  }
  return { center, sigma, r1, r2 };
}

/**
 * Naive violation events of one series at a poll `now` whose previous poll was at `previous`:
 * the points in (previous, now], each evaluated once against the limits of the baseline at `now`,
 * with the points before it as context for rule 2 (what station_measurement_control_violations_total
 * adds at that poll).
 */
function naiveEvents(points: Array<{ t: number; v: number }>, now: number, previous: number) {
  const chart = naiveChart(points, now);
  if (!chart) return { r1: 0, r2: 0 };
  const sorted = points.filter((p) => p.t <= now).sort((a, b) => a.t - b.t);
  let r1 = 0;
  let r2 = 0;
  sorted.forEach((p, i) => {
    if (p.t <= previous) return;
    if (Math.abs(p.v - chart.center) > 3 * chart.sigma) r1++;
    const run = sorted.slice(Math.max(0, i - 8), i + 1).map((q) => q.v);
    if (run.length === 9 && (run.every((y) => y > chart.center) || run.every((y) => y < chart.center))) r2++;
  });
  return { r1, r2 };
}

/** The numeric points of a station's records of one name, by slot, from `truth`'s records. */
function pointsBySlot(
  records: ReadonlyArray<{ value: string; slot: string | null; time_created: string }>,
): Map<string, Array<{ t: number; v: number }>> {
  const bySlot = new Map<string, Array<{ t: number; v: number }>>();
  for (const r of records) {
    if (r.value === '') continue;
    const list = bySlot.get(r.slot ?? '') ?? [];
    list.push({ t: Date.parse(r.time_created), v: Number(r.value) });
    bySlot.set(r.slot ?? '', list);
  }
  return bySlot;
}

describe.skipIf(!enabled)('control charts in a real Prometheus', () => {
  const probe = createSimulator({ seed: SEED, scale: SCALE });
  const [shiftLine, dropLine] = probe.plant.sites[0]?.lines ?? [];
  const measuring = (lineId: string) =>
    probe.plant.stations.filter(
      (s) =>
        s.lineId === lineId &&
        probe.metricsBetween([s.id], {
          from: new Date(FIXED_NOW - HOUR),
          to: new Date(FIXED_NOW),
          names: [NAME],
        }).length > 0,
    );
  const shifted = measuring(shiftLine?.id ?? '')[0];
  const sim: SimulatorOptions = {
    seed: SEED,
    scale: SCALE,
    process: {
      drift: false,
      events: [
        { kind: 'shift', stationId: shifted?.id ?? '', name: NAME, fromMs: FIXED_NOW - 15 * MIN, sigmas: 5 },
        { kind: 'yield_drop', lineId: dropLine?.id ?? '', fromMs: FIXED_NOW - 75 * MIN, failRatio: 0.25 },
      ],
    },
  };
  let prom: BackfilledPrometheus;
  let truth: ReturnType<typeof createSimulator>;

  beforeAll(async () => {
    expect(shifted, 'a station of the first line measures the name').toBeDefined();
    const h = await startHarness({
      sim,
      config: {
        windows: ['1h'],
        // Polls are an hour apart here: every summary on every poll, not the planned share.
        planning: { refresh: { '1h': '1m' } },
        summary: { enabled: true, levels: ['line'] },
        units: { enabled: false },
        measurements: {
          enabled: true,
          names: [NAME],
          control: {
            names: [NAME],
            baseline: { rolling: '4h' },
            min_samples: 25,
            evaluation_window: '20m',
            // Rules 1 and 2 only: the ones computed naively here (the alerts read 1, 2, 3, 5, 6).
            rules: {
              3: { enabled: false },
              4: { enabled: false },
              5: { enabled: false },
              6: { enabled: false },
              7: { enabled: false },
              8: { enabled: false },
            },
          },
        },
      },
    });
    truth = createSimulator({ ...sim, now: () => FIXED_NOW });
    const snapshots: Snapshot[] = [];
    try {
      h.advance(-24 * HOUR);
      for (let k = 0; k <= 24; k++) {
        const at = h.now();
        await h.exporter.scheduler.pollOnce();
        const held = k === 24 ? [at] : Array.from({ length: 15 }, (_, i) => at + i * 4 * MIN);
        snapshots.push({ text: await dataExposition(h.exporter, 'openmetrics'), atMs: held });
        if (k < 24) h.advance(HOUR);
      }
    } finally {
      await h.close();
    }
    prom = await startBackfilled(mergeSnapshots(snapshots));
  }, 120_000);

  afterAll(async () => {
    await prom?.stop();
  });

  it('shows the shift on the shifted station only, with the rule hits of its records', async () => {
    const stations = probe.plant.stations.filter(
      (s) => s.lineId === shiftLine?.id || s.lineId === dropLine?.id,
    );
    const expected = new Map<string, { r1: number; r2: number }>();
    for (const st of stations) {
      const records = truth.metricsBetween([st.id], {
        from: new Date(FIXED_NOW - 6 * HOUR),
        to: new Date(FIXED_NOW + 1),
        names: [NAME],
      });
      const bySlot = pointsBySlot(records);
      for (const [slot, points] of bySlot) {
        const chart = naiveChart(points, FIXED_NOW);
        if (chart && (chart.r1 > 0 || chart.r2 > 0)) expected.set(`${st.id}/${slot}`, chart);
      }
    }
    // Worked out from the records: only the shifted station breaks rule 1 or 2.
    expect([...expected.keys()].map((k) => k.split('/')[0])).toEqual(
      [...expected.keys()].map(() => shifted?.id),
    );
    expect(expected.size).toBeGreaterThan(0);
    const got = new Map<string, { r1: number; r2: number }>();
    for (const rule of [1, 2]) {
      for (const r of await prom.query(
        `station_measurement_control_window_violations{rule="${rule}"}`,
        FIXED_NOW,
      )) {
        const key = `${r.metric.station_id}/${r.metric.slot ?? ''}`;
        const e = got.get(key) ?? { r1: 0, r2: 0 };
        got.set(key, { ...e, [`r${rule}`]: Number(r.value[1]) });
      }
    }
    expect(got).toEqual(new Map([...expected].map(([k, v]) => [k, { r1: v.r1, r2: v.r2 }])));
    // Every other charted series is in control; an hour earlier, all of them were.
    const state = await prom.query('station_measurement_control_state == 1', FIXED_NOW);
    expect(new Set(state.map((r) => r.metric.station_id))).toEqual(new Set([shifted?.id]));
    expect(await prom.query('station_measurement_control_state == 1', FIXED_NOW - HOUR)).toEqual([]);
    const charted = await prom.query('count(station_measurement_control_state)', FIXED_NOW);
    expect(Number(charted[0]?.value[1])).toBeGreaterThan(2);
  });

  it('fires MeasurementOutOfControl and MeasurementProcessShift on the lines with new events only', async () => {
    // Events of the last poll (an hour after the one before), worked out from the records.
    const lines = new Map<string, { r1: number; r2: number }>();
    for (const line of [shiftLine, dropLine]) {
      const sum = { r1: 0, r2: 0 };
      for (const st of probe.plant.stations.filter((s) => s.lineId === line?.id)) {
        const records = truth.metricsBetween([st.id], {
          from: new Date(FIXED_NOW - 6 * HOUR),
          to: new Date(FIXED_NOW + 1),
          names: [NAME],
        });
        const bySlot = pointsBySlot(records);
        for (const points of bySlot.values()) {
          const e = naiveEvents(points, FIXED_NOW, FIXED_NOW - HOUR);
          sum.r1 += e.r1;
          sum.r2 += e.r2;
        }
      }
      lines.set(line?.name ?? '', sum);
    }
    // The 5-sigma shift makes events on its line; this seed's other line has none.
    expect(lines.get(shiftLine?.name ?? '')?.r1).toBeGreaterThan(0);
    expect(lines.get(shiftLine?.name ?? '')?.r2).toBeGreaterThan(0);
    const { alerts } = controlRules();
    for (const [alert, rule] of [
      ['MeasurementOutOfControl', 'r1'],
      ['MeasurementProcessShift', 'r2'],
    ] as const) {
      const result = await prom.query(alerts.get(alert) ?? '', FIXED_NOW);
      const expected = [...lines].filter(([, e]) => e[rule] > 0).map(([name]) => name);
      expect(result.map((r) => r.metric.line).sort(), alert).toEqual(expected.sort());
      expect(
        result.map((r) => r.metric.line),
        alert,
      ).toContain(shiftLine?.name);
      expect(await prom.query(alerts.get(alert) ?? '', FIXED_NOW - HOUR), alert).toEqual([]);
    }
  });

  it('shows on the p-chart (dashboards) the line whose yield dropped only', async () => {
    const { inline } = controlRules();
    // The p-chart has no alert (the own-level CUSUMs find yield drops); its dashboard panel
    // compares the hour's p with the lower limit.
    const expr = inline(
      'site_line:station_line_first_pass_yield:ratio_1h < ignoring (window) site_line:station_line_first_pass_yield:lcl_1h',
    );
    const result = await prom.query(expr, FIXED_NOW);
    expect(result.map((r) => r.metric.line)).toEqual([dropLine?.name]);
    // The hour's first-pass yield, from the simulator's own summary of the line's stations.
    const ids = probe.plant.stations.filter((s) => s.lineId === dropLine?.id).map((s) => s.id);
    const hour = truth.summaryOf(ids, new Date(FIXED_NOW - HOUR), new Date(FIXED_NOW));
    expect(Number(result[0]?.value[1])).toBeLessThan(0.9);
    expect(hour.unique_output).toBeGreaterThanOrEqual(50);
    // Two hours earlier, before the drop, neither line was below its limit.
    expect(await prom.query(expr, FIXED_NOW - 2 * HOUR)).toEqual([]);
  });
});
