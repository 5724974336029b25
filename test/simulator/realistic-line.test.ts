/**
 * The realistic plant's lines: rates designed for a final yield at the target ± 1 point and retry
 * ratios near theirs, checked against what the simulator's summaries measure over a long window;
 * 2-4 products; parallel groups.
 */
import { describe, expect, it } from 'vitest';
import {
  FINAL_YIELD_BAND,
  FINAL_YIELD_TARGET,
  RETRY_RATIO_RANGE,
  ratesFor,
} from '../../src/simulator/realistic-line.ts';
import type { UnitRecordWire } from '../../src/simulator/types.ts';
import { fixedSim, HOUR, NOW } from './helpers.ts';

describe('ratesFor', () => {
  it('gives the retry ratio and scrap share asked for', () => {
    for (const retry of [0.05, 0.07, 0.1, 0.11]) {
      for (const scrap of [0.002, 0.005, 0.01]) {
        const r = ratesFor(retry, scrap);
        expect(r.designRetryRatio).toBeCloseTo(retry, 10);
        expect(r.designScrap).toBeCloseTo(scrap, 10);
        // Independently: a unit's outputs at the station are 1 + p0 + p0·r, its retests p0 + p0·r.
        const p0 = r.firstFailRate + 0.004;
        const pr = r.retestFailRate + 0.004;
        const retests = p0 + p0 * pr;
        expect(retests / (1 + retests)).toBeCloseTo(retry, 10);
        expect(p0 * pr * pr).toBeCloseTo(scrap, 10);
      }
    }
  });

  it('caps the retest failure rate when a step must scrap more than its retries allow', () => {
    const r = ratesFor(0.02, 0.05);
    expect(r.retestFailRate + 0.004).toBeCloseTo(0.9, 10);
    expect(r.designRetryRatio).toBeCloseTo(0.02, 10);
    expect(r.designScrap).toBeLessThan(0.05);
  });
});

/** Final yield and retry ratio from unit records, as the contract defines them. */
function tally(units: readonly UnitRecordWire[]) {
  const byStation = new Map<string, { outputs: number; serials: Set<string> }>();
  // Per serial: per station, the latest result; records come in time order.
  const latest = new Map<string, Map<string, string | null>>();
  for (const u of units) {
    if (u.direction !== 'output') continue;
    const st = byStation.get(u.station_id) ?? { outputs: 0, serials: new Set<string>() };
    st.outputs++;
    st.serials.add(u.unit_serial);
    byStation.set(u.station_id, st);
    const l = latest.get(u.unit_serial) ?? new Map<string, string | null>();
    l.set(u.station_id, u.result);
    latest.set(u.unit_serial, l);
  }
  const finalPass = [...latest.values()].filter((l) => [...l.values()].every((r) => r === 'pass')).length;
  return {
    units: latest.size,
    finalYield: finalPass / latest.size,
    retry: (id: string) => {
      const st = byStation.get(id)!;
      return { ratio: (st.outputs - st.serials.size) / st.outputs, outputs: st.outputs };
    },
  };
}

describe('realistic lines over five days', () => {
  const { sim } = fixedSim({
    seed: 3,
    plant: 'realistic',
    scale: { sites: 2, linesPerSite: 2, stationsPerLine: 8 },
  });
  const from = new Date(NOW - 5 * 24 * HOUR);
  const to = new Date(NOW);
  const design = sim.realistic!;
  const lines = sim.plant.sites.flatMap((s) => s.lines);
  const byLine = new Map(
    lines.map((line) => {
      const ids = sim.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id);
      return [line.id, tally(sim.unitsBetween(ids, from, to))];
    }),
  );

  it('runs each line at its designed final yield, within the target ± 1 point', () => {
    for (const line of lines) {
      const got = byLine.get(line.id)!;
      const want = design.line(line.id).finalYield;
      expect(Math.abs(want - FINAL_YIELD_TARGET)).toBeLessThanOrEqual(FINAL_YIELD_BAND);
      // Five days are about 3,000 units: the standard error of a yield near 0.95 is 0.004.
      const se = Math.sqrt((want * (1 - want)) / got.units);
      expect(got.units).toBeGreaterThan(2500);
      expect(Math.abs(got.finalYield - want), line.name).toBeLessThan(4 * se);
    }
  });

  it('runs each station near its designed retry ratio, in 7-11 %', () => {
    const [lo, hi] = RETRY_RATIO_RANGE;
    let above = 0;
    for (const st of sim.plant.stations) {
      const got = byLine.get(st.lineId)!.retry(st.id);
      const want = design.station(st.id).designRetryRatio;
      expect(want).toBeGreaterThanOrEqual(lo - 1e-9);
      expect(want).toBeLessThanOrEqual(hi + 1e-9);
      const se = Math.sqrt((want * (1 - want)) / got.outputs);
      expect(Math.abs(got.ratio - want), st.name).toBeLessThan(4.5 * se);
      if (got.ratio > 0.1) above++;
    }
    // About a quarter of the stations above the 10 % target, as designed.
    expect(above).toBeGreaterThan(0);
    expect(above).toBeLessThan(sim.plant.stations.length);
  });

  it('makes 2 to 4 products a line, in shares that sum to 1, and every one of them', () => {
    const units = sim.unitsBetween(
      sim.plant.stations.map((s) => s.id),
      new Date(NOW - 24 * HOUR),
      to,
    );
    for (const line of lines) {
      const d = design.line(line.id);
      expect(d.products.length).toBeGreaterThanOrEqual(2);
      expect(d.products.length).toBeLessThanOrEqual(4);
      expect(d.productShares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
      const ids = new Set(sim.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id));
      const seen = new Set(units.filter((u) => ids.has(u.station_id)).map((u) => u.unit_type));
      for (const p of d.products) expect(seen.has(p), `${line.name}: ${p}`).toBe(true);
    }
  });

  it('has parallel groups: two or more stations at one step sharing its flow', () => {
    const units = sim.unitsBetween(
      sim.plant.stations.map((s) => s.id),
      new Date(NOW - 24 * HOUR),
      to,
    );
    const groups = new Map<string, string[]>();
    for (const s of sim.plant.stations) {
      if (s.groupId !== undefined) groups.set(s.groupId, [...(groups.get(s.groupId) ?? []), s.id]);
    }
    expect(groups.size).toBeGreaterThanOrEqual(lines.length);
    for (const members of groups.values()) {
      expect(members.length).toBeGreaterThanOrEqual(2);
      const counts = members.map(
        (id) => units.filter((u) => u.station_id === id && u.direction === 'output').length,
      );
      const total = counts.reduce((a, b) => a + b, 0);
      // Each member takes its share of the step's units.
      for (const c of counts) expect(c / total).toBeGreaterThan(0.5 / members.length);
    }
  });
});

describe('products in lots', () => {
  it('runs one product for 60-240 units at a time', () => {
    const { sim } = fixedSim({ seed: 5, plant: { kind: 'realistic', productMix: 'lots', stops: false } });
    const line = sim.plant.sites[0]!.lines[0]!;
    const lot = sim.realistic!.line(line.id).lotUnits!;
    expect(lot).toBeGreaterThanOrEqual(60);
    expect(lot).toBeLessThanOrEqual(240);
    const first = sim.plant.stations.find((s) => s.lineId === line.id && s.position === 0)!;
    const entries = sim
      .unitsBetween([first.id], new Date(NOW - 48 * HOUR), new Date(NOW))
      .filter((u) => u.direction === 'input' && !u.tags.includes('retest') && u.unit_type !== null);
    const lotOf = (serial: string) => Math.floor(Number(serial.split('-')[1]) / lot);
    const products = new Map<number, Set<string>>();
    for (const u of entries) {
      const k = lotOf(u.unit_serial);
      products.set(k, (products.get(k) ?? new Set()).add(u.unit_type!));
    }
    // One product within a lot; over two days (six or more lots) more than one product.
    for (const set of products.values()) expect(set.size).toBe(1);
    expect(new Set(entries.map((u) => u.unit_type)).size).toBeGreaterThan(1);
  });
});
