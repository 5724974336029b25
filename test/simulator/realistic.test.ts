/**
 * The realistic plant's measurements: each name's noise has its documented lag-1 autocorrelation
 * and skewness (checked on the noise alone, then on the values the simulator serves), and
 * products' nominals differ where the design says so.
 */
import { describe, expect, it } from 'vitest';
import { measurementCatalog } from '../../src/simulator/measurements.ts';
import { HashVariates } from '../../src/simulator/random.ts';
import {
  productOffset,
  REALISTIC_BEHAVIOUR,
  type Reading,
  realisticNoise,
} from '../../src/simulator/realistic.ts';
import { shapeSkewness } from '../../src/simulator/shapes.ts';
import type { MetricRecordWire } from '../../src/simulator/types.ts';
import { fixedSim, HOUR, NOW } from './helpers.ts';

function stats(xs: readonly number[]) {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  let v = 0;
  let c = 0;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - mean;
    v += d * d;
    s += d * d * d;
    if (i > 0) c += d * (xs[i - 1]! - mean);
  }
  return { mean, variance: v / n, lag1: c / v, skewness: s / n / (v / n) ** 1.5 };
}

/**
 * The skewness of a stationary AR(1) of innovations with skewness g: its third cumulant is
 * (1 − φ²)^(3/2) · Σ φ^(3k) · g = (1 − φ²)^(3/2) / (1 − φ³) · g, its variance 1.
 */
const ar1Skewness = (g: number, phi: number) => ((1 - phi * phi) ** 1.5 / (1 - phi ** 3)) * g;

describe('HashVariates', () => {
  it('gives exact normals: mean 0, variance 1, tails beyond the Irwin-Hall bound of 3.5', () => {
    const v = new HashVariates(12345);
    const xs = Array.from({ length: 200_000 }, () => v.normal());
    const m = stats(xs);
    expect(Math.abs(m.mean)).toBeLessThan(5 / Math.sqrt(xs.length));
    expect(Math.abs(m.variance - 1)).toBeLessThan(0.02);
    // P(|Z| > 3.7) = 2.2e-4: about 43 of 200,000; the bounded approximation gives none.
    const wild = xs.filter((x) => Math.abs(x) > 3.7).length;
    expect(wild).toBeGreaterThan(20);
    expect(wild).toBeLessThan(80);
  });

  it('starts over from the same hash with the same draws', () => {
    const v = new HashVariates(7);
    const a = [v.uniform(), v.normal(), v.uniform()];
    expect([v.reset(7).uniform(), v.normal(), v.uniform()]).toEqual(a);
  });
});

describe('realistic noise per measurement name', () => {
  const N = 20_000;
  for (const [name, b] of Object.entries(REALISTIC_BEHAVIOUR)) {
    it(`${name}: lag-1 autocorrelation ${b.phi}, skewness of ${b.shape.kind}`, () => {
      const reading = (k: number): Reading => ({
        seed: 42,
        stationHash: 0xabcdef,
        nameHash: 0x123,
        unitIndex: k,
        attempt: 0,
        slot: 0,
        productHash: 0,
      });
      const xs = Array.from({ length: N }, (_, k) => realisticNoise(b, reading(k)));
      const m = stats(xs);
      // Standard error of a lag-1 estimate about 1/sqrt(N) = 0.007.
      expect(Math.abs(m.lag1 - b.phi)).toBeLessThan(0.03);
      expect(Math.abs(m.variance - 1)).toBeLessThan(b.shape.kind === 't' ? 0.12 : 0.05);
      if (b.shape.kind !== 't') {
        const want = ar1Skewness(shapeSkewness(b.shape), b.phi);
        expect(Math.abs(m.skewness - want)).toBeLessThan(0.1 + 0.1 * want);
      }
    });
  }

  it('skews the bounded-below names to the right (gamma, lognormal) and no other', () => {
    const skewed = Object.entries(REALISTIC_BEHAVIOUR)
      .filter(([, b]) => shapeSkewness(b.shape) > 0)
      .map(([n]) => n)
      .sort();
    expect(skewed).toEqual([
      'contact_resistance',
      'flatness',
      'idle_current',
      'insulation_resistance',
      'leakage_current',
    ]);
    for (const b of Object.values(REALISTIC_BEHAVIOUR)) {
      expect(b.phi).toBeGreaterThanOrEqual(0);
      expect(b.phi).toBeLessThanOrEqual(0.3);
    }
  });

  it('gives a retest the fixture state of its first attempt with a fresh reading', () => {
    const b = REALISTIC_BEHAVIOUR.board_temp!;
    const base: Reading = {
      seed: 1,
      stationHash: 5,
      nameHash: 6,
      unitIndex: 1000,
      attempt: 0,
      slot: 0,
      productHash: 0,
    };
    const first = realisticNoise(b, base);
    const retest = realisticNoise(b, { ...base, attempt: 1 });
    expect(retest).not.toBe(first);
    expect(realisticNoise(b, { ...base })).toBe(first);
  });
});

/** Values of one station and name in time order, by the unit's product (joined through the serial). */
function seriesOf(
  metrics: readonly MetricRecordWire[],
  products: ReadonlyMap<string, string | null>,
): Series {
  return metrics.flatMap((m) => {
    const value = Number(m.value);
    const lower = m.limit_lower === null ? -Infinity : Number(m.limit_lower);
    const upper = m.limit_upper === null ? Infinity : Number(m.limit_upper);
    // Failing visits put their value outside a limit: not the healthy distribution.
    if (m.value === '' || !(value >= lower && value <= upper)) return [];
    const product = products.get(m.unit_serial);
    const unit = Number(m.unit_serial.split('-')[1]);
    const retest = m.tags.includes('retest');
    return product ? [{ value, product, slot: m.slot ?? '', unit, retest }] : [];
  });
}

type Series = Array<{ value: number; product: string; slot: string; unit: number; retest: boolean }>;

/** Lag-1 autocorrelation of the values once their product's and slot's means are taken out. */
function residualLag1(series: Series): number {
  const groups = new Map<string, number[]>();
  for (const p of series) {
    const key = `${p.product}|${p.slot}`;
    const xs = groups.get(key);
    if (xs === undefined) groups.set(key, [p.value]);
    else xs.push(p.value);
  }
  const means = new Map([...groups].map(([k, xs]) => [k, xs.reduce((a, c) => a + c, 0) / xs.length]));
  return stats(series.map((p) => p.value - means.get(`${p.product}|${p.slot}`)!)).lag1;
}

describe('values served by the realistic plant', () => {
  const { sim } = fixedSim({ plant: { kind: 'realistic', stops: false }, scale: { measurementNames: 20 } });
  const from = new Date(NOW - 72 * HOUR);
  const to = new Date(NOW);
  // A station alone at its step sees every unit of its line: consecutive readings, consecutive units.
  const alone = sim.plant.stations.filter((s) => s.groupId === undefined && s.position > 1);
  const productOf = new Map(
    sim
      .unitsBetween(
        alone.map((s) => s.id),
        from,
        to,
      )
      .map((u) => [u.unit_serial, u.unit_type]),
  );
  const byName = new Map<string, Series>();
  const served = sim.metricsBetween(
    alone.map((s) => s.id),
    { from, to },
  );
  for (const station of alone) {
    const mine = served.filter((m) => m.station_id === station.id);
    for (const name of new Set(mine.map((m) => m.name))) {
      if (byName.has(name)) continue;
      byName.set(
        name,
        seriesOf(
          mine.filter((m) => m.name === name),
          productOf,
        ),
      );
    }
  }

  it('keeps each name lag-1 autocorrelated as designed from one unit to the next', () => {
    let checked = 0;
    for (const [name, series] of byName) {
      const b = REALISTIC_BEHAVIOUR[name];
      if (b === undefined || series.length < 1500) continue;
      // The fixture's state passes from unit to unit: first attempts in unit order, 4 % of
      // slots idle. Standard error about 0.025 at 1,800 readings.
      const units = series.filter((p) => !p.retest).sort((a, c) => a.unit - c.unit);
      expect(Math.abs(residualLag1(units) - 0.96 * b.phi), name).toBeLessThan(0.08);
      // In time order units overtake one another (retests, cycle times): a chart sees less.
      const inTime = residualLag1(series);
      expect(inTime, name).toBeLessThan(b.phi + 0.08);
      expect(inTime, name).toBeGreaterThan(0.4 * b.phi - 0.08);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it('skews leakage current, insulation resistance and contact resistance to the right', () => {
    for (const name of ['leakage_current', 'insulation_resistance', 'contact_resistance']) {
      const series = byName.get(name);
      if (series === undefined) continue;
      const product = series[0]!.product;
      const xs = series.filter((p) => p.product === product).map((p) => p.value);
      expect(stats(xs).skewness, name).toBeGreaterThan(0.3);
    }
    expect(
      ['leakage_current', 'insulation_resistance', 'contact_resistance'].some((n) => byName.has(n)),
    ).toBe(true);
  });

  it('gives products their own nominals where the design spreads them', () => {
    const sdOf = new Map(measurementCatalog(42, 20, { exotic: false }).map((m) => [m.name, m.sd]));
    let compared = 0;
    let apart = 0;
    for (const [name, series] of byName) {
      const b = REALISTIC_BEHAVIOUR[name];
      if (b === undefined || b.productSpread < 1) continue;
      const products = [...new Set(series.map((p) => p.product))];
      const meanOf = (product: string) => {
        const xs = series.filter((p) => p.product === product).map((p) => p.value);
        return { mean: xs.reduce((a, c) => a + c, 0) / xs.length, n: xs.length };
      };
      for (const other of products.slice(1)) {
        const [a, c] = [meanOf(products[0]!), meanOf(other)];
        if (a.n < 200 || c.n < 200) continue;
        const want =
          productOffset(b, { product: products[0]!, name }) - productOffset(b, { product: other, name });
        // In the name's sd; the standard error of a difference of two means of 200+
        // autocorrelated readings is under 0.15 sd.
        const got = (a.mean - c.mean) / sdOf.get(name)!;
        expect(Math.abs(got - want), `${name}: ${products[0]} vs ${other}`).toBeLessThan(0.3);
        compared++;
        if (Math.abs(got) > 0.5) apart++;
      }
    }
    expect(compared).toBeGreaterThan(2);
    expect(apart).toBeGreaterThan(0);
  });
});

describe('process events on the realistic plant', () => {
  it('shifts a station’s values by the asked sd, and leaves other stations alone', () => {
    const plant = { kind: 'realistic', stops: false } as const;
    const base = fixedSim({ plant }).sim;
    const station = base.plant.stations.find((s) => s.groupId === undefined && s.position > 1)!;
    const name = base
      .metricsBetween([station.id], { from: new Date(NOW - HOUR), to: new Date(NOW) })
      .map((m) => m.name)
      .find((n) => REALISTIC_BEHAVIOUR[n] !== undefined)!;
    const fromMs = NOW - 24 * HOUR;
    const shifted = fixedSim({
      plant,
      process: { events: [{ kind: 'shift', stationId: station.id, name, fromMs, sigmas: 2 }] },
    }).sim;
    const sd = measurementCatalog(42, 8, { exotic: false }).find((m) => m.name === name)!.sd;
    const span = { from: new Date(fromMs), to: new Date(NOW), names: [name] };
    const values = (s: typeof base) =>
      s.metricsBetween([station.id], span).flatMap((m) => (m.value === '' ? [] : [Number(m.value)]));
    const [a, b] = [values(base), values(shifted)];
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    // Values clamped inside the limits on passing visits keep the shift a little under 2 sd.
    expect((mean(b) - mean(a)) / sd).toBeGreaterThan(1.6);
    expect((mean(b) - mean(a)) / sd).toBeLessThan(2.1);
    const other = base.plant.stations.find((s) => s.id !== station.id)!;
    expect(shifted.metricsBetween([other.id], span)).toEqual(base.metricsBetween([other.id], span));
  });
});
