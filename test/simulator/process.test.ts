/**
 * Process scenarios: each injected change moves exactly the values (or results) it targets,
 * by the amount it says; everything else stays identical to the plant without it.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator, type ProcessScenario } from '../../src/simulator/index.ts';
import { HOUR, NOW } from './helpers.ts';

const NAME = 'vcc_3v3';
const SD = 0.02; // vcc_3v3's standard deviation in the catalog

function sims(process: ProcessScenario) {
  const base = createSimulator({ now: () => NOW, process: { drift: process.drift } });
  return { base, changed: createSimulator({ now: () => NOW, process }) };
}

/** Values of one station and name over [from, to) (`to` defaults to NOW), with their times. */
function values(
  sim: ReturnType<typeof createSimulator>,
  station: string,
  span: { readonly from: number; readonly to?: number },
) {
  const { from, to = NOW } = span;
  return sim
    .metricsBetween([station], { from: new Date(from), to: new Date(to), names: [NAME] })
    .filter((r) => r.value !== '')
    .map((r) => ({ t: Date.parse(r.time_created), v: Number(r.value), raw: r }));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};

describe('process scenarios', () => {
  const probe = createSimulator({ now: () => NOW });
  const station = probe.plant.stations.find(
    (s) =>
      probe.metricsBetween([s.id], { from: new Date(NOW - HOUR), to: new Date(NOW), names: [NAME] }).length >
      0,
  )!.id;
  const other = probe.plant.stations.filter((s) => s.id !== station).map((s) => s.id);
  const from = NOW - 6 * HOUR;

  it('shifts the mean of one station and name by the given sigmas from its start', () => {
    const { base, changed } = sims({
      drift: false,
      events: [{ kind: 'shift', stationId: station, name: NAME, fromMs: from, sigmas: 2 }],
    });
    const before = values(base, station, { from: NOW - 12 * HOUR });
    const after = values(changed, station, { from: NOW - 12 * HOUR });
    // Before the start, identical; after it, each value moved by 2 sd (0.04 V), except where
    // the simulator keeps a passing value inside its spec limits.
    const b0 = before.filter((x) => x.t < from);
    expect(after.filter((x) => x.t < from)).toEqual(b0);
    const diffs = after
      .filter((x) => x.t >= from)
      .map((x, i) => x.v - before.filter((y) => y.t >= from)[i]!.v);
    expect(diffs.length).toBeGreaterThan(20);
    expect(diffs.filter((d) => Math.abs(d - 2 * SD) < 0.0011).length / diffs.length).toBeGreaterThan(0.8);
    // Other stations and other names are untouched.
    expect(changed.metricsBetween(other, { from: new Date(from), to: new Date(NOW) })).toEqual(
      base.metricsBetween(other, { from: new Date(from), to: new Date(NOW) }),
    );
  });

  it('adds a trend that grows by the given sigmas per hour', () => {
    const { base, changed } = sims({
      drift: false,
      events: [{ kind: 'trend', stationId: station, name: NAME, fromMs: from, sigmasPerHour: 0.5 }],
    });
    const a = values(changed, station, { from });
    const b = values(base, station, { from });
    for (const [i, x] of a.entries()) {
      const expected = (0.5 * SD * (x.t - from)) / HOUR;
      // Rounded to 3 decimals (0.0005) on both sides; clamped values aside.
      if (Math.abs(x.v - b[i]!.v - expected) > 0.0011) expect(x.raw.limit_upper).not.toBeNull();
    }
    expect(mean(a.slice(-10).map((x) => x.v)) - mean(b.slice(-10).map((x) => x.v))).toBeGreaterThan(2 * SD);
  });

  it('multiplies the spread by the given factor', () => {
    const { base, changed } = sims({
      drift: false,
      events: [{ kind: 'variance', stationId: station, name: NAME, fromMs: NOW - 24 * HOUR, factor: 3 }],
    });
    const a = values(changed, station, { from: NOW - 24 * HOUR }).map((x) => x.v);
    const b = values(base, station, { from: NOW - 24 * HOUR }).map((x) => x.v);
    // Spec limits clamp the widest values, so the ratio stays below 3.
    expect(sd(a) / sd(b)).toBeGreaterThan(2);
    expect(mean(a)).toBeCloseTo(mean(b), 1);
  });

  it('drops the yields of one line from its start, exactly as the run-time yieldDrop scenario', () => {
    const line = probe.plant.sites[0]!.lines[0]!;
    const last = line.elements.at(-1)!;
    const lastIds = new Set(last.type === 'group' ? last.stations.map((s) => s.id) : [last.id]);
    const ids = probe.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id);
    const drop = { lineId: line.id, fromMs: from, failRatio: 0.3 };
    const { base, changed } = sims({ events: [{ kind: 'yield_drop', ...drop }] });
    const window = [new Date(from), new Date(NOW)] as const;
    const before = base.summaryOf(ids, ...window);
    const after = changed.summaryOf(ids, ...window);
    // About 30 % of the units fail the last step: both yields fall by about that share.
    for (const field of ['first_pass', 'final_pass'] as const) {
      expect(after[field] / before[field], field).toBeGreaterThan(0.55);
      expect(after[field] / before[field], field).toBeLessThan(0.85);
    }
    expect(after.unique_output).toBe(before.unique_output);
    // Only output records of the last step from the start changed, and only to a failure.
    const span = [new Date(NOW - 12 * HOUR), new Date(NOW)] as const;
    const b = base.unitsBetween(ids, ...span);
    const a = changed.unitsBetween(ids, ...span);
    expect(a.map(({ result: _, ...r }) => r)).toEqual(b.map(({ result: _, ...r }) => r));
    const changes = a.filter((r, i) => r.result !== b[i]!.result);
    expect(changes.length).toBeGreaterThan(10);
    for (const r of changes) {
      expect([r.result, r.direction, lastIds.has(r.station_id)]).toEqual(['fail', 'output', true]);
      expect(Date.parse(r.time_created)).toBeGreaterThanOrEqual(from);
    }
    // One mechanism: the same drop set at run time serves the same summaries.
    const runtime = createSimulator({ now: () => NOW });
    runtime.setScenario({ yieldDrop: drop });
    expect(runtime.summaryOf(ids, ...window)).toEqual(after);
    expect(runtime.summaryOf([...lastIds], ...window)).toEqual(changed.summaryOf([...lastIds], ...window));
    const others = probe.plant.stations.filter((s) => s.lineId !== line.id).map((s) => s.id);
    expect(changed.summaryOf(others, ...window)).toEqual(base.summaryOf(others, ...window));
  });

  it('silences one station from its start: no unit or measurement record, its line and the others unchanged', () => {
    const { base, changed } = sims({ events: [{ kind: 'silence', stationId: station, fromMs: from }] });
    const window = [new Date(NOW - 12 * HOUR), new Date(NOW)] as const;
    const units = (sim: ReturnType<typeof createSimulator>, ids: string[]) =>
      sim.unitsBetween(ids, ...window);
    const before = units(base, [station]);
    expect(before.some((r) => Date.parse(r.time_created) >= from)).toBe(true);
    const early = (rs: typeof before) => rs.filter((r) => Date.parse(r.time_created) < from);
    expect(early(units(changed, [station]))).toEqual(early(before));
    expect(
      units(changed, [station]).filter((r) => r.direction === 'input' && Date.parse(r.time_created) >= from),
    ).toEqual([]);
    expect(values(changed, station, { from: from + HOUR })).toEqual([]);
    expect(units(changed, other)).toEqual(units(base, other));
  });

  it("changes one station's first-attempt failure rate from its start, and with it its retries", () => {
    const { base, changed } = sims({
      events: [{ kind: 'fail_rate', stationId: station, fromMs: from, failRate: 0.5 }],
    });
    const retests = (sim: ReturnType<typeof createSimulator>, span: readonly [number, number]) =>
      sim
        .unitsBetween([station], new Date(span[0]), new Date(span[1]))
        .filter((r) => r.direction === 'output' && r.tags.includes('retest')).length;
    expect(retests(changed, [NOW - 12 * HOUR, from])).toBe(retests(base, [NOW - 12 * HOUR, from]));
    expect(retests(changed, [from, NOW])).toBeGreaterThan(3 * retests(base, [from, NOW]) + 10);
  });

  it('refuses an event for a station or line the plant does not have', () => {
    expect(() =>
      createSimulator({
        process: { events: [{ kind: 'shift', stationId: 'ff', name: NAME, fromMs: 0, sigmas: 1 }] },
      }),
    ).toThrow('no station ff');
    expect(() =>
      createSimulator({
        process: { events: [{ kind: 'yield_drop', lineId: 'a'.repeat(24), fromMs: 0, failRatio: 0.5 }] },
      }),
    ).toThrow(`no line ${'a'.repeat(24)}`);
  });
});
