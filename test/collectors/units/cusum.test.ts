/**
 * The yield and retry CUSUMs of the units collector: trials from unit records (a retest, a first
 * result, a final result after `settle`), signals counted as events only from the exporter's
 * start (history replayed at start warms up, never re-pages), per line and station.
 */
import { describe, expect, it, vi } from 'vitest';
import { splitmix64Fast } from '../../../bench/spc/splitmix-fast.ts';
import { turnsDuring } from '../../helpers/loop-turns.ts';
import { MIN, START, unitCusumsRig as setup } from '../../helpers/unit-cusums.ts';

describe('UnitCusums', () => {
  it('counts a run of failed units at a station and on its line, once per signal', async () => {
    const { topology, a, cusums, u, value } = setup();
    // Final yield target 0.95: a run of failures crosses H within a few units and restarts.
    for (let i = 0; i < 40; i++) cusums.offer(u(i, { result: 'fail' }));
    await cusums.update(topology, START + 100 * MIN);
    const station = value('station_unit_cusum_events_total', 'final_yield', a.id)!;
    expect(station).toBeGreaterThanOrEqual(2);
    expect(value('station_line_unit_cusum_events_total', 'final_yield')).toBe(station);
    // Retry ratio: every serial is new, so not a single retest.
    expect(value('station_unit_cusum_events_total', 'retry_ratio', a.id)).toBe(0);
    expect(value('station_unit_cusum_ratio', 'retry_ratio', a.id)).toBe(0);
  });

  it('judges a line against its own level: days at 0.90 against a target of 0.95 are no standing alert', async () => {
    const { topology, cusums, u, value } = setup();
    const events = () => value('station_line_unit_cusum_events_total', 'final_yield')!;
    // A unit every 2 minutes (30 an hour), each failing with probability 0.10 (seeded): final yield
    // 0.90 for 10 days. Until it has history older than baseline_lag (3 days) the chart judges
    // against its target; from then on against its own 0.90. Judged against the target 0.05 it
    // signalled about every 1,200 units: 8 times in days 4 to 10 with this seed when a prior of 10^6
    // trials pins p0 to the target.
    const random = splitmix64Fast(49);
    const day = 720;
    let fromDay4 = 0;
    for (let d = 0; d < 10; d++) {
      if (d === 4) fromDay4 = events();
      for (let i = d * day; i < (d + 1) * day; i++)
        cusums.offer(u(2 * i, { serial: `W${i}`, result: random.uniform() < 0.1 ? 'fail' : 'pass' }));
      await cusums.update(topology, START + 2 * (d + 1) * day * MIN);
    }
    expect(events() - fromDay4).toBe(0);
    const settled = events();
    // Then a drop from its own 0.90 to 0.60: found within a few hours.
    const from = 10 * day;
    for (let i = from; i < from + 90; i++)
      cusums.offer(u(2 * i, { serial: `D${i}`, result: i % 5 < 2 ? 'fail' : 'pass' }));
    await cusums.update(topology, START + 2 * (from + 90) * MIN + 30 * MIN);
    expect(events()).toBeGreaterThan(settled);
  });

  it('charts stations only when lines are off (a sharded replica sees part of each line)', async () => {
    const { topology, a, cusums, u, value } = setup({ lineCharts: 'off' });
    for (let i = 0; i < 40; i++) cusums.offer(u(i, { result: 'fail' }));
    await cusums.update(topology, START + 100 * MIN);
    expect(value('station_unit_cusum_events_total', 'final_yield', a.id)).toBeGreaterThanOrEqual(2);
    const lineFamilies = cusums.families().filter((f) => f.desc.name.startsWith('station_line_unit_cusum_'));
    expect(lineFamilies.flatMap((f) => f.samples)).toEqual([]);
  });

  it('decides a unit only after settle, and a retest that passes is final pass and one retry', async () => {
    const { topology, a, cusums, u, value } = setup();
    cusums.offer(u(0, { serial: 'X', result: 'fail' }));
    cusums.offer(u(3, { serial: 'X', result: 'pass' }));
    await cusums.update(topology, START + 10 * MIN);
    // Not settled yet (settle 20m): the yields have evaluated nothing; the retest was a bad trial.
    expect(value('station_unit_cusum_ratio', 'final_yield', a.id)).toBe(0);
    expect(value('station_unit_cusum_ratio', 'retry_ratio', a.id)).toBeGreaterThan(0);
    await cusums.update(topology, START + 30 * MIN);
    expect(value('station_unit_cusum_ratio', 'first_pass_yield', a.id)).toBeGreaterThan(0);
    expect(value('station_unit_cusum_ratio', 'final_yield', a.id)).toBe(0);
  });

  it('counts no signal found in the history replayed at start (a restart never re-pages)', async () => {
    const { topology, a, cusums, u, value } = setup();
    for (let i = -60; i < 0; i++) cusums.offer(u(i, { result: 'fail' }));
    await cusums.update(topology, START + 30 * MIN);
    expect(value('station_unit_cusum_events_total', 'final_yield', a.id)).toBe(0);
    expect(value('station_line_unit_cusum_events_total', 'final_yield')).toBe(0);
    // The history warmed the chart up: the statistic shows the failures.
    expect(value('station_unit_cusum_ratio', 'final_yield', a.id)).toBeGreaterThan(0);
  });

  it('exports every station and line at 0 before any unit, and ignores inputs and null results', async () => {
    const { topology, b, cusums, u, value } = setup();
    cusums.offer(u(1, { direction: 'input', result: 'fail' }));
    cusums.offer(u(2, { result: null }));
    await cusums.update(topology, START + 60 * MIN);
    expect(value('station_unit_cusum_events_total', 'first_pass_yield', b.id)).toBe(0);
    expect(value('station_unit_cusum_ratio', 'final_yield', b.id)).toBe(0);
    const events = cusums.families().find((f) => f.desc.name === 'station_unit_cusum_events_total')!;
    expect(events.samples).toHaveLength(2 * 3);
    expect(events.createdMs).toBe(START);
  });

  it('exports by default the retry charts of stations and every chart of lines, without statistics', async () => {
    const { topology, cusums, u } = setup({ cusum: {} });
    for (let i = 0; i < 40; i++) cusums.offer(u(i, { result: 'fail' }));
    await cusums.update(topology, START + 120 * MIN);
    const families = cusums.families();
    const kinds = (name: string) =>
      families
        .find((f) => f.desc.name === name)
        ?.samples.map((s) => /kind="([^"]+)"/.exec(s.labels.text)?.[1]);
    expect(kinds('station_unit_cusum_events_total')).toEqual(['retry_ratio', 'retry_ratio']);
    expect(kinds('station_line_unit_cusum_events_total')).toEqual([
      'first_pass_yield',
      'final_yield',
      'retry_ratio',
    ]);
    expect(families.map((f) => f.desc.name).filter((n) => n.endsWith('_ratio'))).toEqual([]);
    // 40 failed units in a row: the line's final-yield chart signals.
    const line = families.find((f) => f.desc.name === 'station_line_unit_cusum_events_total')!;
    expect(line.samples.find((s) => s.labels.text.includes('kind="final_yield"'))?.value).toBeGreaterThan(0);
  });

  it('designs a new target on a turn of its own and evaluates a long replay in slices of the event loop', async () => {
    const { topology, a, b, cusums, u, value } = setup();
    // Three designs (first-pass yield, final yield, retry ratio: one target each).
    expect(await turnsDuring(cusums.update(topology, START))).toBeGreaterThanOrEqual(3);
    // 20,000 records, as a first poll replays (240,000 at 1,000 stations): several slices.
    for (let i = 0; i < 10_000; i++) {
      cusums.offer(u(i / 100, { serial: `A${i}`, result: i % 7 === 0 ? 'fail' : 'pass' }));
      cusums.offer(u(i / 100, { stationId: b.id, serial: `B${i}` }));
    }
    expect(await turnsDuring(cusums.update(topology, START + 200 * MIN))).toBeGreaterThanOrEqual(4);
    expect(value('station_unit_cusum_ratio', 'final_yield', a.id)).toBeGreaterThan(0);
    expect(value('station_unit_cusum_ratio', 'final_yield', b.id)).toBe(0);
  });

  it('sorts a long replay in slices, in the order one sort gives', async () => {
    // 20,000 records offered newest first, with repeated times and retests: the replay must sort them.
    const offer = (c: ReturnType<typeof setup>, order: 'newest first' | 'oldest first') => {
      const minutes = Array.from({ length: 20_000 }, (_, i) => Math.floor(i / 3) / 50);
      if (order === 'newest first') minutes.reverse();
      for (const m of minutes) {
        const serial = `S${Math.floor(m * 10) % 997}`;
        c.cusums.offer(c.u(m, { serial, result: Math.round(m * 50) % 11 === 0 ? 'fail' : 'pass' }));
      }
    };
    const sorted = setup();
    offer(sorted, 'oldest first');
    await sorted.cusums.update(sorted.topology, START + 600 * MIN);
    const shuffled = setup();
    offer(shuffled, 'newest first');
    const sort = vi.spyOn(Array.prototype, 'sort');
    try {
      await shuffled.cusums.update(shuffled.topology, START + 600 * MIN);
      // No single sort of the whole replay: each blocks the event loop for a slice at most.
      const longest = Math.max(0, ...sort.mock.contexts.map((a) => (a as unknown[]).length));
      expect(longest).toBeGreaterThan(0);
      expect(longest).toBeLessThanOrEqual(4_000);
    } finally {
      sort.mockRestore();
    }
    const samples = (c: ReturnType<typeof setup>) =>
      c.cusums.families().map((f) => f.samples.map((x) => `${x.labels.text} ${x.value}`));
    expect(samples(shuffled)).toEqual(samples(sorted));
  });

  it('forgets a station that leaves the topology', async () => {
    const { topology, b, cusums } = setup();
    await cusums.update(topology, START);
    await cusums.update({ ...topology, stations: topology.stations.filter((s) => s.id !== b.id) }, START);
    const events = cusums.families().find((f) => f.desc.name === 'station_unit_cusum_events_total')!;
    expect(events.samples).toHaveLength(3);
    expect(events.samples.some((s) => s.labels.text.includes(b.id))).toBe(false);
  });
});
