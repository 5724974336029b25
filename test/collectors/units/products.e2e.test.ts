/**
 * Yield per product, end to end: the exporter polls the simulator's realistic plant (2 to 4
 * products a line) with `products.label` on, and its `station_unit_records` by `unit_type` must
 * equal a count made here, independently of the exporter's code, from the simulator's own unit
 * records of the same window: each record once, a type on the allow-list as itself, any other
 * type as `other`, a null one as `unknown`; the yield per product (pass share of the output
 * records) follows and must match too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../src/simulator/index.ts';
import type { SimulatorOptions } from '../../../src/simulator/types.ts';
import { dataExposition, FIXED_NOW, type Harness, startHarness } from '../../helpers/harness.ts';

const HOUR = 3_600_000;
const WINDOW_MS = 8 * HOUR;
const SIM: SimulatorOptions = {
  seed: 11,
  plant: 'realistic',
  scale: { sites: 1, linesPerSite: 2, stationsPerLine: 4, measurementNames: 2, unitsPerHour: 60 },
};

/** `station|direction|result|product` -> records. */
type Counts = Map<string, number>;

const add = (m: Counts, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** The counts of the simulator's records in [from, to), with the allow-list applied by hand. */
function truthCounts(allow: ReadonlySet<string>, from: number, to: number): Counts {
  const truth = createSimulator({ ...SIM, now: () => FIXED_NOW });
  const ids = truth.plant.stations.map((s) => s.id);
  const out: Counts = new Map();
  for (const r of truth.unitsBetween(ids, new Date(from - HOUR), new Date(to + HOUR))) {
    const t = Date.parse(r.time_created);
    if (t < from || t >= to) continue;
    const product = r.unit_type === null ? 'unknown' : allow.has(r.unit_type) ? r.unit_type : 'other';
    add(out, `${r.station_id}|${r.direction}|${r.result ?? 'unknown'}|${product}`);
  }
  return out;
}

/** The exported `station_unit_records` of one window, by the same key. */
function exportedCounts(text: string, window: string): Counts {
  const out: Counts = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('station_unit_records{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (labels.window !== window || value === 0) continue;
    add(out, `${labels.station_id}|${labels.direction}|${labels.result}|${labels.unit_type}`, value);
  }
  return out;
}

/** Yield per product: passes over output records, summed over the stations. */
function yieldByProduct(counts: Counts): Map<string, number> {
  const pass: Counts = new Map();
  const all: Counts = new Map();
  for (const [k, n] of counts) {
    const [, direction, result, product] = k.split('|') as [string, string, string, string];
    if (direction !== 'output') continue;
    add(all, product, n);
    if (result === 'pass') add(pass, product, n);
  }
  return new Map([...all].map(([p, n]) => [p, (pass.get(p) ?? 0) / n]));
}

describe('units: unit_type as a label on the realistic plant', () => {
  let h: Harness | undefined;
  let allow: Set<string>;
  let text = '';

  beforeAll(async () => {
    const probe = createSimulator({ ...SIM, now: () => FIXED_NOW });
    const types = new Set<string>();
    for (const r of probe.unitsBetween(
      probe.plant.stations.map((s) => s.id),
      new Date(FIXED_NOW - WINDOW_MS),
      new Date(FIXED_NOW),
    ))
      if (r.unit_type !== null) types.add(r.unit_type);
    // Every product but one on the list, so that `other` is exercised too.
    allow = new Set([...types].sort().slice(1));
    h = await startHarness({
      sim: SIM,
      config: {
        windows: ['8h'],
        summary: { enabled: false },
        measurements: { enabled: false },
        products: { label: true, allow: [...allow] },
      },
    });
    await h.exporter.scheduler.pollOnce();
    text = await dataExposition(h.exporter);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('counts the records of each product as the simulator made them', () => {
    const expected = truthCounts(allow, FIXED_NOW - WINDOW_MS, FIXED_NOW);
    expect(expected.size).toBeGreaterThan(20);
    const products = new Set([...expected.keys()].map((k) => k.split('|')[3]));
    // The plant makes several products, some off the list, and some units have no type.
    expect(products.size).toBeGreaterThanOrEqual(3);
    expect(products.has('other')).toBe(true);
    expect(products.has('unknown')).toBe(true);
    expect(exportedCounts(text, '8h')).toEqual(expected);
  });

  it('gives the yield of each product', () => {
    const expected = yieldByProduct(truthCounts(allow, FIXED_NOW - WINDOW_MS, FIXED_NOW));
    const exported = yieldByProduct(exportedCounts(text, '8h'));
    expect([...exported.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [p, y] of expected) expect(exported.get(p)).toBeCloseTo(y, 12);
  });

  it('labels the serials and the cumulative counter by product, and nothing else', () => {
    const serials = text.split('\n').filter((l) => l.startsWith('station_unit_serials{'));
    expect(serials.length).toBeGreaterThan(0);
    expect(serials.every((l) => l.includes('unit_type="'))).toBe(true);
    const total = text.split('\n').filter((l) => l.startsWith('station_units_total{'));
    expect(total.every((l) => l.includes('unit_type="'))).toBe(true);
    const last = text.split('\n').filter((l) => l.startsWith('station_last_unit_timestamp_seconds{'));
    expect(last.some((l) => l.includes('unit_type'))).toBe(false);
  });
});
