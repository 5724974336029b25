import { describe, expect, it } from 'vitest';
import type { WindowSpec } from '../../src/config/schema.ts';
import { longestWindowMs, type Weekday, windowBounds } from '../../src/time/windows.ts';

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

describe('windowBounds of a week', () => {
  const H = 3_600_000;
  const D = 24 * H;
  const week = (timezone: string, weekStarts: Weekday = 'monday'): WindowSpec => ({
    name: 'week',
    kind: 'week',
    timezone,
    weekStarts,
  });
  const lengthMs = (spec: WindowSpec, now: string) => {
    const { from, to } = windowBounds(spec, at(now));
    return to.getTime() - from.getTime();
  };
  // Expected instants are local midnights converted with the tz database by GNU date, e.g.
  // TZ=Europe/Berlin date -u -d 'TZ="Europe/Berlin" 2024-03-25 00:00'.

  it('starts at local midnight of the last Monday by default, to now', () => {
    // Wednesday 2024-06-05 14:00 CEST: the week began on Monday 3 June at 00:00 CEST.
    const bounds = windowBounds(week('Europe/Berlin'), at('2024-06-05T12:00:00Z'));
    expect(bounds.from.toISOString()).toBe('2024-06-02T22:00:00.000Z');
    expect(bounds.to.toISOString()).toBe('2024-06-05T12:00:00.000Z');
    // On Monday itself the week began that midnight.
    expect(from(week('Europe/Berlin'), '2024-06-03T08:00:00Z')).toBe('2024-06-02T22:00:00.000Z');
    // Sunday 23:59 CEST is still the same week; 00:00 CEST on Sunday is Saturday 22:00 in UTC.
    expect(from(week('Europe/Berlin'), '2024-06-09T21:59:00Z')).toBe('2024-06-02T22:00:00.000Z');
  });

  it('is empty exactly at the boundary and a whole week long just before it', () => {
    const spec = week('Europe/Berlin');
    const bounds = windowBounds(spec, at('2024-06-09T22:00:00Z'));
    expect(bounds.from.toISOString()).toBe('2024-06-09T22:00:00.000Z');
    expect(bounds.to.getTime()).toBe(bounds.from.getTime());
    expect(lengthMs(spec, '2024-06-09T21:59:59.999Z')).toBe(7 * D - 1);
  });

  it('Berlin: the week of the spring change is an hour shorter', () => {
    const spec = week('Europe/Berlin');
    // Clocks go from 02:00 CET to 03:00 CEST on Sunday 2024-03-31; Monday 25 March began in CET.
    expect(from(spec, '2024-03-31T00:59:59Z')).toBe('2024-03-24T23:00:00.000Z');
    expect(from(spec, '2024-03-31T12:00:00Z')).toBe('2024-03-24T23:00:00.000Z');
    // Monday 1 April began in CEST, so the week of the change lasted 167 hours.
    expect(from(spec, '2024-04-01T10:00:00Z')).toBe('2024-03-31T22:00:00.000Z');
    expect(lengthMs(spec, '2024-03-31T21:59:59.999Z')).toBe(167 * H - 1);
  });

  it('Berlin: the week of the autumn change is an hour longer', () => {
    const spec = week('Europe/Berlin');
    // Clocks go from 03:00 CEST back to 02:00 CET on Sunday 2024-10-27: both 02:30s are in the week.
    expect(from(spec, '2024-10-27T00:30:00Z')).toBe('2024-10-20T22:00:00.000Z');
    expect(from(spec, '2024-10-27T01:30:00Z')).toBe('2024-10-20T22:00:00.000Z');
    expect(lengthMs(spec, '2024-10-27T22:59:59.999Z')).toBe(169 * H - 1);
    expect(lengthMs(spec, '2024-10-27T23:00:00Z')).toBe(0);
  });

  it('New York, weeks starting on Sunday: the change happens on the first day', () => {
    const spec = week('America/New_York', 'sunday');
    // Saturday 23:59:59 EST still belongs to the week of Sunday 3 March.
    expect(from(spec, '2024-03-10T04:59:59Z')).toBe('2024-03-03T05:00:00.000Z');
    expect(from(spec, '2024-03-10T05:00:00Z')).toBe('2024-03-10T05:00:00.000Z');
    // 08:00 EDT on the Sunday DST begins: midnight was still EST.
    expect(from(spec, '2024-03-10T12:00:00Z')).toBe('2024-03-10T05:00:00.000Z');
    // Both 01:30s of Sunday 3 November (EDT, then EST) are in the week that began at 00:00 EDT.
    expect(from(spec, '2024-11-03T05:30:00Z')).toBe('2024-11-03T04:00:00.000Z');
    expect(from(spec, '2024-11-03T06:30:00Z')).toBe('2024-11-03T04:00:00.000Z');
    expect(lengthMs(spec, '2024-11-10T04:59:59.999Z')).toBe(169 * H - 1);
    // The same instants with ISO weeks: the week began on Monday.
    expect(from(week('America/New_York'), '2024-03-10T12:00:00Z')).toBe('2024-03-04T05:00:00.000Z');
  });

  it('any first day: the latest such day at or before today', () => {
    // Wednesday 2024-06-05 in UTC.
    const starts: [Weekday, string][] = [
      ['monday', '2024-06-03'],
      ['tuesday', '2024-06-04'],
      ['wednesday', '2024-06-05'],
      ['thursday', '2024-05-30'],
      ['friday', '2024-05-31'],
      ['saturday', '2024-06-01'],
      ['sunday', '2024-06-02'],
    ];
    for (const [day, date] of starts)
      expect(from(week('UTC', day), '2024-06-05T12:00:00Z'), day).toBe(`${date}T00:00:00.000Z`);
  });

  it('Kolkata (+05:30): the local date decides, not the UTC one', () => {
    const spec = week('Asia/Kolkata');
    // Friday 2021-01-01 05:30 IST is in ISO week 2020-W53, which began on Monday 28 December.
    expect(from(spec, '2021-01-01T00:00:00Z')).toBe('2020-12-27T18:30:00.000Z');
    // 19:00Z on Sunday 3 January is 00:30 IST on Monday 4 January: a new week in Kolkata...
    expect(from(spec, '2021-01-03T19:00:00Z')).toBe('2021-01-03T18:30:00.000Z');
    // ...while in UTC it is still week 53.
    expect(from(week('UTC'), '2021-01-03T19:00:00Z')).toBe('2020-12-28T00:00:00.000Z');
  });

  it('ISO weeks run across the year boundary', () => {
    // 2021-01-01 was a Friday: its ISO week (2020-W53) began on Monday 2020-12-28 and ended with 3 January.
    expect(from(week('UTC'), '2021-01-01T12:00:00Z')).toBe('2020-12-28T00:00:00.000Z');
    expect(from(week('UTC'), '2021-01-03T23:59:59.999Z')).toBe('2020-12-28T00:00:00.000Z');
    expect(from(week('UTC'), '2021-01-04T00:00:00Z')).toBe('2021-01-04T00:00:00.000Z');
    // A leap year: Saturday 2024-03-02 is in the week of Monday 26 February, across the 29th.
    expect(from(week('UTC'), '2024-03-02T12:00:00Z')).toBe('2024-02-26T00:00:00.000Z');
  });

  it('Lord Howe: a 30-minute DST change makes weeks 30 minutes longer or shorter', () => {
    const spec = week('Australia/Lord_Howe');
    // Sunday 2024-04-07 02:00 +11 goes back to 01:30 +10:30: Monday 1 April began at +11.
    expect(from(spec, '2024-04-07T12:00:00Z')).toBe('2024-03-31T13:00:00.000Z');
    expect(from(spec, '2024-04-07T13:30:00Z')).toBe('2024-04-07T13:30:00.000Z');
    expect(lengthMs(spec, '2024-04-07T13:29:59.999Z')).toBe(7 * D + 30 * 60_000 - 1);
    // Sunday 2024-10-06 02:00 +10:30 jumps to 02:30 +11: the week of 30 September is 30 minutes short.
    expect(from(spec, '2024-10-06T12:00:00Z')).toBe('2024-09-29T13:30:00.000Z');
    expect(lengthMs(spec, '2024-10-06T12:59:59.999Z')).toBe(7 * D - 30 * 60_000 - 1);
  });

  it('a first day whose midnight is skipped begins when the clocks jump', () => {
    // Santiago jumps from 24:00 -04 to 01:00 -03 into Sunday 2024-09-08.
    const santiago = week('America/Santiago', 'sunday');
    expect(from(santiago, '2024-09-08T03:59:59Z')).toBe('2024-09-01T04:00:00.000Z');
    expect(from(santiago, '2024-09-08T04:00:00Z')).toBe('2024-09-08T04:00:00.000Z');
    expect(from(santiago, '2024-09-08T12:00:00Z')).toBe('2024-09-08T04:00:00.000Z');
    // Samoa skipped Friday 2011-12-30 entirely: Thursday 23:59:59 -10 was followed by Saturday 00:00 +14.
    expect(from(week('Pacific/Apia', 'friday'), '2011-12-30T22:00:00Z')).toBe('2011-12-30T10:00:00.000Z');
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

  it('counts a week window at its elapsed length', () => {
    const week: WindowSpec = { name: 'week', kind: 'week', timezone: 'UTC', weekStarts: 'monday' };
    const daily: WindowSpec = { name: '24h', kind: 'rolling', durationMs: 24 * 3_600_000 };
    // Saturday 2024-06-08 12:00 UTC: 5.5 days into the week.
    expect(longestWindowMs([daily, week], at('2024-06-08T12:00:00Z'))).toBe(132 * 3_600_000);
    // Monday 06:00: the week is 6 hours old, the rolling day is longer.
    expect(longestWindowMs([daily, week], at('2024-06-10T06:00:00Z'))).toBe(24 * 3_600_000);
  });
});
