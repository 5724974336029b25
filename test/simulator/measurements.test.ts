/**
 * The plant's process capability is what the docs say: every limited characteristic is capable
 * (Pp and Ppk of a day of its values at least 1.33, nothing out of spec) except solder_height,
 * deliberately incapable: it is what the failing visits of its stations point at.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../../src/simulator/index.ts';
import { failureExplainers, measurementCatalog } from '../../src/simulator/measurements.ts';
import { HOUR, NOW } from './helpers.ts';

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};

/** Pp and Ppk of values against limits (a missing limit leaves Pp out). */
function capability(xs: number[], lower: number | null, upper: number | null) {
  const m = mean(xs);
  const s = sd(xs);
  const sides = [upper === null ? Infinity : upper - m, lower === null ? Infinity : m - lower];
  return {
    ppk: Math.min(...sides) / (3 * s),
    pp: upper !== null && lower !== null ? (upper - lower) / (6 * s) : undefined,
    outOfSpec: xs.filter((x) => (upper !== null && x > upper) || (lower !== null && x < lower)).length,
  };
}

describe('measurement specs', () => {
  it('blame failures on pass/fail tests and the incapable characteristic when a station has them', () => {
    const catalog = measurementCatalog(42, 8, { exotic: false });
    const byName = (n: string) => catalog.find((m) => m.name === n)!;
    const a = ['vcc_3v3', 'idle_current', 'solder_height', 'board_temp'].map(byName);
    const b = ['test_time', 'firmware_check', 'insulation_resistance', 'rf_tx_power'].map(byName);
    const c = ['vcc_3v3', 'idle_current', 'board_temp'].map(byName);
    expect(failureExplainers(a)).toEqual([2]);
    expect(failureExplainers(b)).toEqual([1]);
    // Nothing else to blame: every limited characteristic, as before.
    expect(failureExplainers(c)).toEqual([0, 1, 2]);
  });

  it('give a healthy day Pp and Ppk of at least 1.33, except solder_height', () => {
    const sim = createSimulator({ now: () => NOW, process: { drift: false } });
    const records = sim.metricsBetween(
      sim.plant.stations.map((s) => s.id),
      { from: new Date(NOW - 24 * HOUR), to: new Date(NOW) },
    );
    const series = new Map<string, { xs: number[]; lower: number | null; upper: number | null }>();
    for (const r of records) {
      if (r.type === null && r.name !== 'solder_height') continue;
      if (r.value === '' || Number.isNaN(Number(r.value))) continue;
      if (r.limit_lower === null && r.limit_upper === null) continue;
      const key = `${r.station_id}/${r.name}/${r.slot}`;
      const s = series.get(key) ?? {
        xs: [],
        lower: r.limit_lower === null ? null : Number(r.limit_lower),
        upper: r.limit_upper === null ? null : Number(r.limit_upper),
      };
      s.xs.push(Number(r.value));
      series.set(key, s);
    }
    let capable = 0;
    let incapable = 0;
    for (const [key, s] of series) {
      if (s.xs.length < 30) continue;
      const c = capability(s.xs, s.lower, s.upper);
      if (key.includes('/solder_height/')) {
        expect(c.ppk, key).toBeLessThan(1);
        expect(c.outOfSpec, key).toBeGreaterThan(0);
        incapable++;
      } else {
        expect(c.ppk, key).toBeGreaterThanOrEqual(1.33);
        if (c.pp !== undefined) expect(c.pp, key).toBeGreaterThanOrEqual(1.33);
        expect(c.outOfSpec, key).toBe(0);
        capable++;
      }
    }
    expect(capable).toBeGreaterThan(40);
    expect(incapable).toBeGreaterThan(10);
  }, 60_000);
});
