/** The realistic plant's healthy stops: shift changes, breaks, unplanned stops, and the gap they leave. */
import { describe, expect, it } from 'vitest';
import { StopSchedule } from '../../src/simulator/line-stops.ts';
import { fixedSim, HOUR, NOW } from './helpers.ts';

const MIN = 60_000;
const DAY = 24 * HOUR;

describe('StopSchedule', () => {
  // Berlin in November is UTC+1: shifts start 05:00, 13:00 and 21:00 UTC.
  const schedule = new StopSchedule({ seed: 1, lineHash: 99, tz: 'Europe/Berlin' });
  const day = Date.UTC(2026, 10, 10);

  it('stops at every shift change and mid-shift break, local time', () => {
    const stops = schedule.stopsBetween(day, day + DAY).filter((s) => s.kind !== 'line_stop');
    const starts = (kind: string) =>
      stops.filter((s) => s.kind === kind).map((s) => new Date(s.fromMs).toISOString().slice(11, 16));
    expect(starts('shift_change')).toEqual(['05:00', '13:00', '21:00']);
    expect(starts('break')).toEqual(['01:00', '09:00', '17:00']);
    for (const s of stops) {
      const minutes = (s.toMs - s.fromMs) / MIN;
      if (s.kind === 'shift_change') expect(minutes).toBeGreaterThanOrEqual(10);
      if (s.kind === 'shift_change') expect(minutes).toBeLessThanOrEqual(20);
      if (s.kind === 'break') expect(minutes).toBeGreaterThanOrEqual(20);
      if (s.kind === 'break') expect(minutes).toBeLessThanOrEqual(30);
    }
  });

  it('follows daylight saving time: 06:00 in Berlin is 04:00 UTC in July', () => {
    const july = Date.UTC(2026, 6, 10);
    const shift = schedule.stopsBetween(july, july + DAY).find((s) => s.kind === 'shift_change')!;
    expect(new Date(shift.fromMs).toISOString().slice(11, 16)).toBe('04:00');
  });

  it('agrees with stopped(), resume() and stoppedWithin()', () => {
    const stops = schedule.stopsBetween(day, day + 3 * DAY);
    let total = 0;
    for (const s of stops) {
      expect(schedule.stopped(s.fromMs)).toBe(true);
      expect(schedule.stopped(s.fromMs - 1)).toBe(
        stops.some((o) => o !== s && o.fromMs < s.fromMs && o.toMs >= s.fromMs),
      );
      expect(schedule.resume(s.fromMs + 1)).toBeGreaterThanOrEqual(s.toMs);
      expect(schedule.stopped(schedule.resume(s.fromMs))).toBe(false);
      total += s.toMs - s.fromMs;
    }
    // Overlapping stops count once: at most the sum of their lengths.
    const within = schedule.stoppedWithin(day, day + 3 * DAY);
    expect(within).toBeLessThanOrEqual(total);
    expect(within).toBeGreaterThan(3 * 6 * 10 * MIN);
    expect(schedule.resume(day + 3 * HOUR)).toBe(day + 3 * HOUR);
  });

  it('stops a line unplanned on about one day in four, for 40-80 minutes', () => {
    const unplanned = schedule.stopsBetween(day, day + 200 * DAY).filter((s) => s.kind === 'line_stop');
    // Binomial(200, 0.25): mean 50, sd 6.1.
    expect(unplanned.length).toBeGreaterThan(32);
    expect(unplanned.length).toBeLessThan(68);
    for (const s of unplanned) {
      expect(s.toMs - s.fromMs).toBeGreaterThanOrEqual(40 * MIN);
      expect(s.toMs - s.fromMs).toBeLessThanOrEqual(80 * MIN);
    }
  });

  it('makes only the kinds asked for', () => {
    const only = new StopSchedule({
      seed: 1,
      lineHash: 99,
      tz: 'Europe/Berlin',
      kinds: { breaks: false, lineStops: false },
    });
    const kinds = new Set(only.stopsBetween(day, day + 30 * DAY).map((s) => s.kind));
    expect([...kinds]).toEqual(['shift_change']);
  });
});

describe('a stopped line in the simulator', () => {
  const { sim } = fixedSim({ seed: 42, plant: 'realistic' });
  const lines = sim.plant.sites.flatMap((s) => s.lines);
  const found = lines
    .flatMap((line) =>
      sim.realistic!.stopsBetween(line.id, new Date(NOW - 20 * DAY), new Date(NOW - DAY)).map((stop) => ({
        line,
        stop,
      })),
    )
    .find(({ stop }) => stop.kind === 'line_stop' && stop.toMs - stop.fromMs >= 50 * MIN);

  it('leaves a gap: no unit enters, no test starts, every station falls silent', () => {
    expect(found).toBeDefined();
    const { line, stop } = found!;
    const ids = sim.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id);
    const during = sim.unitsBetween(ids, new Date(stop.fromMs), new Date(stop.toMs));
    // A test under way when the line stopped finishes (a few minutes at most); nothing starts.
    expect(during.filter((u) => u.direction === 'input')).toEqual([]);
    expect(during.every((u) => Date.parse(u.time_created) < stop.fromMs + 10 * MIN)).toBe(true);
    const metrics = sim.metricsBetween(ids, {
      from: new Date(stop.fromMs + 10 * MIN),
      to: new Date(stop.toMs),
    });
    expect(metrics).toEqual([]);
    // The hour before and the hour after, the line runs: every station reports.
    for (const [a, b] of [
      [stop.fromMs - HOUR, stop.fromMs],
      [stop.toMs + 20 * MIN, stop.toMs + 80 * MIN],
    ] as const) {
      const around = sim.unitsBetween(ids, new Date(a), new Date(b));
      const stopsNear = sim.realistic!.stopsBetween(line.id, new Date(a), new Date(b)).length;
      if (stopsNear === 0) expect(new Set(around.map((u) => u.station_id)).size).toBe(ids.length);
      expect(around.length).toBeGreaterThan(0);
    }
  });

  it('produces fewer units than a line without stops, by about its stopped share', () => {
    const { line } = found!;
    const ids = sim.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id);
    const from = new Date(NOW - 3 * DAY);
    const to = new Date(NOW);
    const stopped = sim.realistic!.stopsBetween(line.id, from, to).reduce((a, s) => a + s.toMs - s.fromMs, 0);
    const running = fixedSim({ seed: 42, plant: { kind: 'realistic', stops: false } }).sim;
    const entries = (s: typeof sim) =>
      s.unitsBetween([ids[0]!], from, to).filter((u) => u.direction === 'input' && !u.tags.includes('retest'))
        .length;
    const share = entries(sim) / entries(running);
    const want = 1 - stopped / (3 * DAY);
    expect(Math.abs(share - want)).toBeLessThan(0.03);
    expect(share).toBeLessThan(0.95);
  });

  it('finds the units a stop held back when a window starts just after it', () => {
    const { line, stop } = found!;
    const ids = sim.plant.stations.filter((s) => s.lineId === line.id).map((s) => s.id);
    const wide = sim.unitsBetween(ids, new Date(stop.fromMs - 3 * HOUR), new Date(stop.toMs + HOUR));
    for (const after of [0, 2 * MIN, 10 * MIN]) {
      const from = stop.toMs + after;
      const narrow = sim.unitsBetween(ids, new Date(from), new Date(stop.toMs + HOUR));
      const want = wide.filter((u) => Date.parse(u.time_created) >= from);
      expect(narrow).toEqual(want);
      // Units that entered before the stop finish after it.
      const serials = new Set(
        wide.filter((u) => Date.parse(u.time_created) < stop.fromMs).map((u) => u.unit_serial),
      );
      if (after === 0) expect(narrow.some((u) => serials.has(u.unit_serial))).toBe(true);
    }
  });
});
