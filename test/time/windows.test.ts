import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/config/schema.ts';
import { longestWindowMs, windowBounds } from '../../src/time/windows.ts';

const at = (iso: string) => new Date(iso);
const from = (spec: WindowSpec, now: string) => windowBounds(spec, at(now)).from.toISOString();

const berlinToday: WindowSpec = { name: 'today', kind: 'today', timezone: 'Europe/Berlin' };
const chicagoToday: WindowSpec = { name: 'today', kind: 'today', timezone: 'America/Chicago' };
const berlinShifts: WindowSpec = {
  name: 'shift',
  kind: 'shift',
  timezone: 'Europe/Berlin',
  shiftStarts: ['06:00', '14:00', '22:00'],
};
const chicagoShifts = (...shiftStarts: string[]): WindowSpec => ({
  name: 'shift',
  kind: 'shift',
  timezone: 'America/Chicago',
  shiftStarts,
});

describe('windowBounds', () => {
  it('rolling: the last duration up to now', () => {
    const bounds = windowBounds(
      { name: '1h', kind: 'rolling', durationMs: 3_600_000 },
      at('2024-06-01T12:34:56.789Z'),
    );
    expect(bounds.from.toISOString()).toBe('2024-06-01T11:34:56.789Z');
    expect(bounds.to.toISOString()).toBe('2024-06-01T12:34:56.789Z');
  });

  it('today: local midnight in summer and winter', () => {
    expect(from(berlinToday, '2024-06-01T12:00:00Z')).toBe('2024-05-31T22:00:00.000Z');
    expect(from(berlinToday, '2024-01-15T12:00:00Z')).toBe('2024-01-14T23:00:00.000Z');
    expect(from(chicagoToday, '2024-01-15T12:00:00Z')).toBe('2024-01-15T06:00:00.000Z');
    // 00:30 on 2 June in Berlin is still 1 June in UTC.
    expect(from(berlinToday, '2024-06-01T22:30:00Z')).toBe('2024-06-01T22:00:00.000Z');
    // 20:00 on 14 January in Chicago is already 15 January in UTC.
    expect(from(chicagoToday, '2024-01-15T02:00:00Z')).toBe('2024-01-14T06:00:00.000Z');
  });

  it('today: days on which DST starts or ends use the offset at midnight', () => {
    // Berlin springs forward on 2024-03-31: midnight is still CET (+1), so the day so far is 13h at 14:00 CEST.
    expect(from(berlinToday, '2024-03-31T12:00:00Z')).toBe('2024-03-30T23:00:00.000Z');
    // Berlin falls back on 2024-10-27: midnight was CEST (+2).
    expect(from(berlinToday, '2024-10-27T12:00:00Z')).toBe('2024-10-26T22:00:00.000Z');
    expect(from(chicagoToday, '2024-03-10T12:00:00Z')).toBe('2024-03-10T06:00:00.000Z');
    expect(from(chicagoToday, '2024-11-03T12:00:00Z')).toBe('2024-11-03T05:00:00.000Z');
  });

  it('today: exactly at midnight the window is empty', () => {
    const bounds = windowBounds(berlinToday, at('2024-05-31T22:00:00Z'));
    expect(bounds.from.getTime()).toBe(bounds.to.getTime());
  });

  it('shift: the latest shift start at or before now', () => {
    expect(from(berlinShifts, '2024-06-01T10:00:00Z')).toBe('2024-06-01T04:00:00.000Z');
    expect(from(berlinShifts, '2024-06-01T12:00:00Z')).toBe('2024-06-01T12:00:00.000Z');
    expect(from(berlinShifts, '2024-06-01T11:59:59Z')).toBe('2024-06-01T04:00:00.000Z');
  });

  it('shift: a night shift crossing midnight started yesterday', () => {
    // 05:00 CEST on 1 June: the shift began at 22:00 CEST on 31 May.
    expect(from(berlinShifts, '2024-06-01T03:00:00Z')).toBe('2024-05-31T20:00:00.000Z');
    // 23:30 CEST, the same night shift but before midnight.
    expect(from(berlinShifts, '2024-05-31T21:30:00Z')).toBe('2024-05-31T20:00:00.000Z');
    // 04:00 CST in Chicago on 3 November: the shift began at 19:00 CDT on 2 November.
    expect(from(chicagoShifts('07:00', '19:00'), '2024-11-03T10:00:00Z')).toBe('2024-11-03T00:00:00.000Z');
  });

  it('shift: night shifts spanning a DST change are an hour shorter or longer', () => {
    // Spring: 22:00 CET to 05:00 CEST is 6 hours, not 7.
    const spring = windowBounds(berlinShifts, at('2024-03-31T03:00:00Z'));
    expect(spring.from.toISOString()).toBe('2024-03-30T21:00:00.000Z');
    expect(spring.to.getTime() - spring.from.getTime()).toBe(6 * 3_600_000);
    // Autumn: 22:00 CEST to 05:30 CET is 8.5 hours.
    const autumn = windowBounds(berlinShifts, at('2024-10-27T04:30:00Z'));
    expect(autumn.from.toISOString()).toBe('2024-10-26T20:00:00.000Z');
    expect(autumn.to.getTime() - autumn.from.getTime()).toBe(8.5 * 3_600_000);
    // The first shift after the change starts at 06:00 of the new offset.
    expect(from(berlinShifts, '2024-03-31T04:30:00Z')).toBe('2024-03-31T04:00:00.000Z');
    expect(from(berlinShifts, '2024-10-27T05:30:00Z')).toBe('2024-10-27T05:00:00.000Z');
  });

  it('shift: a start inside the spring-forward gap begins when the gap ends', () => {
    // 02:30 does not exist in Chicago on 2024-03-10; it is taken as 03:30 CDT (08:30Z).
    expect(from(chicagoShifts('02:30', '14:30'), '2024-03-10T09:00:00Z')).toBe('2024-03-10T08:30:00.000Z');
    // At 03:15 CDT that start has not happened yet, so the previous day's 14:30 CST shift is current.
    expect(from(chicagoShifts('02:30', '14:30'), '2024-03-10T08:15:00Z')).toBe('2024-03-09T20:30:00.000Z');
  });

  it('shift: a start in the repeated hour of fall-back is its first occurrence', () => {
    // 01:30 happens at 06:30Z (CDT) and again at 07:30Z (CST) on 2024-11-03.
    expect(from(chicagoShifts('01:30'), '2024-11-03T08:00:00Z')).toBe('2024-11-03T06:30:00.000Z');
  });

  it('works for UTC', () => {
    expect(from({ name: 't', kind: 'today', timezone: 'UTC' }, '2024-02-29T23:59:59Z')).toBe(
      '2024-02-29T00:00:00.000Z',
    );
  });
});

describe('longestWindowMs', () => {
  it('is the longest span among the windows at that moment', () => {
    const windows: WindowSpec[] = [
      { name: '1h', kind: 'rolling', durationMs: 3_600_000 },
      berlinToday,
      berlinShifts,
    ];
    // 14:00 CEST: today is 14h long, the 14:00 shift has just begun.
    expect(longestWindowMs(windows, at('2024-06-01T12:00:00Z'))).toBe(14 * 3_600_000);
    // 00:30 CEST: the night shift (2h30m) is longer than today and 1h.
    expect(longestWindowMs(windows, at('2024-06-01T22:30:00Z'))).toBe(2.5 * 3_600_000);
    expect(longestWindowMs([], at('2024-06-01T12:00:00Z'))).toBe(0);
  });
});
