/**
 * A time window over which upstream statistics are requested, as config validation produces it
 * (src/config/windows-schema.ts; defined here so that time arithmetic needs nothing above it).
 */
export type WindowSpec = { readonly name: string } & (
  | { readonly kind: 'rolling'; readonly durationMs: number }
  | { readonly kind: 'shift'; readonly timezone: string; readonly shiftStarts: readonly string[] }
  | { readonly kind: 'today'; readonly timezone: string }
  | { readonly kind: 'week'; readonly timezone: string; readonly weekStarts: Weekday }
);

import { addDays, isoWeekday, type WallTime, wallTimeAt, zonedTimeToEpoch } from './zones.ts';

/** Days of the week in ISO 8601 order (Monday is day 1), as the config names them. */
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

/** A day of the week, as the config names it. */
export type Weekday = (typeof WEEKDAYS)[number];

/** The time span a window covers at some moment; `to` is always that moment. */
export interface WindowBounds {
  from: Date;
  to: Date;
}

/**
 * The span `spec` covers at `now`: the last `durationMs`; since the last local midnight (`today`),
 * the latest `weekStarts` day's midnight (`week`), or the latest shift start, maybe yesterday's.
 * Local times use the zone's offset at that moment, so a span over a DST change is as on the clock.
 */
export function windowBounds(spec: WindowSpec, now: Date): WindowBounds {
  return { from: new Date(windowStart(spec, now.getTime())), to: new Date(now.getTime()) };
}

function windowStart(spec: WindowSpec, nowMs: number): number {
  switch (spec.kind) {
    case 'rolling':
      return nowMs - spec.durationMs;
    case 'today':
      return midnightOf(wallTimeAt(nowMs, spec.timezone), spec.timezone, nowMs);
    case 'week':
      return startOfWeek(nowMs, spec.timezone, spec.weekStarts);
    case 'shift':
      return shiftStart(nowMs, spec.timezone, spec.shiftStarts);
  }
}

/** The longest span any of `windows` covers at `now`, in ms (0 without windows). */
export function longestWindowMs(windows: readonly WindowSpec[], now: Date): number {
  let longest = 0;
  for (const spec of windows) {
    const { from, to } = windowBounds(spec, now);
    longest = Math.max(longest, to.getTime() - from.getTime());
  }
  return longest;
}

function startOfWeek(nowMs: number, timeZone: string, weekStarts: Weekday): number {
  const today = wallTimeAt(nowMs, timeZone);
  // Days since the week began, counted on the local calendar so that DST never shifts the day.
  const daysIn = (isoWeekday(today) - (WEEKDAYS.indexOf(weekStarts) + 1) + 7) % 7;
  return midnightOf(addDays(today, -daysIn), timeZone, nowMs);
}

/** The instant local midnight of `date` began, never after `nowMs`. */
function midnightOf(date: WallTime, timeZone: string, nowMs: number): number {
  // A zone whose clocks jump over midnight starts that day when the jump ends.
  return Math.min(zonedTimeToEpoch({ ...date, hour: 0, minute: 0, second: 0 }, timeZone), nowMs);
}

function shiftStart(nowMs: number, timeZone: string, starts: readonly string[]): number {
  const today = wallTimeAt(nowMs, timeZone);
  let latest = Number.NEGATIVE_INFINITY;
  for (const days of [-1, 0]) {
    const date = addDays(today, days);
    for (const start of starts) {
      const at = zonedTimeToEpoch(atClock(date, start), timeZone);
      if (at <= nowMs && at > latest) latest = at;
    }
  }
  // Only possible when every start of two days fell after `now`, which the schema's at-least-one rule prevents.
  return Number.isFinite(latest) ? latest : nowMs;
}

function atClock(date: WallTime, clock: string): WallTime {
  const [hour = 0, minute = 0] = clock.split(':').map(Number);
  return { ...date, hour, minute, second: 0 };
}
