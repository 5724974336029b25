/**
 * Control charts keyed per product: two products of different nominals made alternately on one
 * station. Each product's chart must have its own centre and sigma, worked out here by hand from
 * its own points, not the mixture's; points wait for their unit's product and are skipped (and
 * counted) when the units job has read every unit record up to their time and none names them.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlCharts } from '../../../src/collectors/measurements/control.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([1]);
const [A] = (plant.lines[0]?.elements ?? []).map((e) => e.id) as [string];
const topology = topologyOf([plant]);

// Triangle waves of period 8: every moving range is the step, and whole periods average the
// centre exactly. Product P1 runs at 10 in steps of 0.1, product P2 at 12 in steps of 0.3.
const TRIANGLE = [0, 1, 2, 1, 0, -1, -2, -1];
const wave = (n: number, centre: number, step: number) =>
  Array.from({ length: n }, (_, i) => centre + step * (TRIANGLE[i % 8] ?? 0));

/** One record of `vbat` at station A. */
function rec(serial: string, time: number, value: number): MeasurementRecord {
  return {
    stationId: A,
    slot: null,
    serial,
    time,
    name: 'vbat',
    raw: String(value),
    value,
    unit: 'V',
    type: 'float',
    upper: undefined,
    lower: undefined,
    mode: null,
  };
}

/**
 * 32 units of each product, alternately two minutes apart, ending 61 minutes before NOW (the
 * baseline), then 8 of each in the evaluation hour.
 */
function records(): { list: MeasurementRecord[]; products: Map<string, string> } {
  const list: MeasurementRecord[] = [];
  const products = new Map<string, string>();
  const add = (product: string, values: readonly number[], firstAt: number) =>
    values.forEach((v, i) => {
      const serial = `${product}-${firstAt}-${i}`;
      products.set(serial, product);
      list.push(rec(serial, firstAt + i * 2 * MIN, v));
    });
  const start = NOW - 61 * MIN - 63 * MIN;
  add('P1', wave(32, 10, 0.1), start);
  add('P2', wave(32, 12, 0.3), start + MIN);
  add('P1', wave(8, 10, 0.1), NOW - 40 * MIN);
  add('P2', wave(8, 12, 0.3), NOW - 39 * MIN);
  return { list, products };
}

function setUp(byProduct: boolean, limitsFile?: string) {
  const ctx = jobContext({
    windows: ['1d'],
    products: { allow: ['P1', 'P2'] },
    measurements: {
      enabled: true,
      names: ['vbat'],
      control: {
        compensate_autocorrelation: false,
        names: [{ name: 'vbat', by_product: byProduct }],
        baseline: { rolling: '2h' },
        min_samples: 20,
        ...(limitsFile === undefined ? {} : { limits_file: limitsFile }),
      },
    },
  });
  const store = new MeasurementStore();
  return { ctx, store, charts: new ControlCharts(ctx, store) };
}

const sample = (s: Map<string, number>, family: string, product?: string) =>
  [...s].find(
    ([k]) => k.startsWith(`${family}{`) && (product === undefined || k.includes(`product="${product}"`)),
  )?.[1];

describe('control charts keyed per product', () => {
  it("gives each product its own chart, with the product's centre and sigma", async () => {
    const { ctx, store, charts } = setUp(true);
    const { list, products } = records();
    for (const [serial, p] of products) ctx.products.set(serial, p);
    ctx.products.cover({ from: NOW - 24 * HOUR, to: NOW });
    store.add(list);
    charts.retainFrom(NOW, NOW - 24 * HOUR);
    const s = samplesOf(await charts.families(topology, { nowMs: NOW, complete: true }));
    const centres = [...s].filter(([k]) => k.startsWith('station_measurement_control_center{'));
    expect(centres.map(([k]) => /product="([^"]*)"/.exec(k)?.[1]).sort()).toEqual(['P1', 'P2']);
    // By hand: each product's own MR-bar is its step, sigma = step / 1.128.
    for (const [p, centre, step] of [
      ['P1', 10, 0.1],
      ['P2', 12, 0.3],
    ] as const) {
      expect(sample(s, 'station_measurement_control_center', p)).toBeCloseTo(centre, 12);
      expect(sample(s, 'station_measurement_control_ucl', p)).toBeCloseTo(centre + (3 * step) / 1.128, 12);
    }
    expect(charts.takeSkipped().size).toBe(0);
  });

  it("charts the mixture's sigma without the product key (what the key is for)", async () => {
    const { store, charts } = setUp(false);
    store.add(records().list);
    charts.retainFrom(NOW, NOW - 24 * HOUR);
    const s = samplesOf(await charts.families(topology, { nowMs: NOW, complete: true }));
    const sigma =
      ((sample(s, 'station_measurement_control_ucl') ?? 0) -
        (sample(s, 'station_measurement_control_center') ?? 0)) /
      3;
    // Alternating products make every moving range about 2 apart: some 20 times P1's sigma.
    expect(sigma).toBeGreaterThan((10 * 0.1) / 1.128);
    expect(sample(s, 'station_measurement_control_center', 'P1')).toBeUndefined();
  });

  it('holds points newer than what the units job has read, and skips those of unknown units', async () => {
    const { ctx, store, charts } = setUp(true);
    const { list, products } = records();
    const cut = NOW - 30 * MIN;
    // Unknown units: the first of each baseline run (read already), the last of each evaluation
    // run (dated after what the units job has read: they wait).
    const unknown = new Set(
      [...products.keys()].filter(
        (k) => /-0$/.test(k) && !k.includes(`-${NOW - 40 * MIN}-`) && !k.includes(`-${NOW - 39 * MIN}-`),
      ),
    );
    for (const r of list) if (r.time > cut && r.serial.endsWith('-7')) unknown.add(r.serial);
    expect(unknown.size).toBe(4);
    for (const [serial, p] of products) if (!unknown.has(serial)) ctx.products.set(serial, p);
    ctx.products.cover({ from: NOW - 24 * HOUR, to: cut });
    store.add(list);
    charts.retainFrom(NOW, NOW - 24 * HOUR);
    await charts.families(topology, { nowMs: NOW, complete: true });
    expect(charts.takeSkipped()).toEqual(new Map([['product_unknown', 2]]));
    const held = charts.history().bytes;
    ctx.products.cover({ from: NOW - 24 * HOUR, to: NOW });
    await charts.families(topology, { nowMs: NOW + MIN, complete: true });
    // The waiting points are released: two of unknown units skipped, the others charted.
    expect(charts.takeSkipped()).toEqual(new Map([['product_unknown', 2]]));
    expect(charts.history().charts).toBe(2);
    expect(held).toBeGreaterThan(0);
  });

  it('refills a product’s chart with its own points when its approved limits change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'product-limits-'));
    try {
      const file = join(dir, 'limits.yaml');
      // An approved entry for P1's chart at `center`, limits ± 0.3; a new modification time each write.
      const approve = (center: number, second: number) => {
        writeFileSync(
          file,
          `version: 1\ncharts:\n  - { station: "${A}", metric: vbat, product: P1, center: ${center}, sigma: 0.1, ucl: ${center + 0.3}, lcl: ${center - 0.3}, approved_by: j.doe, approved_at: 2026-03-01T09:00:00Z, reason: study }\n`,
        );
        utimesSync(file, NOW / 1000 + second, NOW / 1000 + second);
      };
      approve(10, 1);
      const { ctx, store, charts } = setUp(true, file);
      const { list, products } = records();
      for (const [serial, p] of products) ctx.products.set(serial, p);
      ctx.products.cover({ from: NOW - 24 * HOUR, to: NOW });
      expect(await charts.refreshLimits()).toBe('loaded');
      store.add(list);
      charts.retainFrom(NOW, NOW - 24 * HOUR);
      const before = samplesOf(await charts.families(topology, { nowMs: NOW, complete: true }));
      expect(sample(before, 'station_measurement_control_center', 'P1')).toBe(10);
      // Every P1 point lies in 10 ± 0.2, inside 10 ± 0.3: no rule 1 point in the window.
      const rule1 = (s: Map<string, number>) =>
        [...s].find(
          ([k]) =>
            k.startsWith('station_measurement_control_window_violations{') &&
            k.includes('product="P1"') &&
            k.includes('rule="1"'),
        )?.[1];
      expect(rule1(before)).toBeUndefined();
      // Re-established at 9.4: every P1 point lies above 9.7 now. The new chart must be fed the
      // points it needs again, as a chart without products is from the store: then each P1 point
      // of its evaluation window (the last hour) is a rule 1 point at once.
      approve(9.4, 2);
      expect(await charts.refreshLimits()).toBe('loaded');
      charts.retainFrom(NOW + MIN, NOW + MIN - 24 * HOUR);
      const after = samplesOf(await charts.families(topology, { nowMs: NOW + MIN, complete: true }));
      expect(sample(after, 'station_measurement_control_center', 'P1')).toBe(9.4);
      const inWindow = list.filter((r) => r.serial.startsWith('P1-') && r.time > NOW + MIN - HOUR).length;
      expect(inWindow).toBe(8);
      expect(rule1(after)).toBe(inWindow);
      // P2's chart, not in the file, kept its rolling limits and its points.
      expect(sample(after, 'station_measurement_control_center', 'P2')).toBeCloseTo(12, 12);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
