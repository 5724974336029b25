/** A wall-clock date and time in some time zone; `month` is 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when the runtime's ICU data knows the IANA zone name (e.g. `Europe/Berlin`). */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone === '') return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `timeZone` at the instant `epochMs`. */
export function wallTimeAt(epochMs: number, timeZone: string): WallTime {
  const wall: WallTime = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timeZone).formatToParts(epochMs)) {
    if (part.type in wall) wall[part.type as keyof WallTime] = Number(part.value);
  }
  // Some ICU versions render midnight as hour 24 even with h23.
  if (wall.hour === 24) wall.hour = 0;
  return wall;
}

function wallAsUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

/** Offset of `timeZone` from UTC at `epochMs`, in milliseconds (positive east of Greenwich). */
function offsetAt(epochMs: number, timeZone: string): number {
  const wholeSecond = Math.floor(epochMs / 1000) * 1000;
  return wallAsUtc(wallTimeAt(wholeSecond, timeZone)) - wholeSecond;
}

/**
 * The instant at which `timeZone` shows the wall time `wall`.
 * Ambiguous times (clocks going back) resolve to the earlier instant; times skipped by clocks going
 * forward resolve to the same distance past the gap, like Temporal's "compatible" disambiguation.
 */
export function zonedTimeToEpoch(wall: WallTime, timeZone: string): number {
  const local = wallAsUtc(wall);
  // Offsets a day either side cover any single transition near `local`.
  const before = offsetAt(local - DAY_MS, timeZone);
  const after = offsetAt(local + DAY_MS, timeZone);
  const candidates = [local - before, local - after].filter((t) => offsetAt(t, timeZone) === local - t);
  if (candidates.length > 0) return Math.min(...candidates);
  return local - before;
}

/** The calendar date `days` away from `wall`'s date (time fields are zeroed). */
export function addDays(wall: WallTime, days: number): WallTime {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: 0,
    minute: 0,
    second: 0,
  };
}

/** The ISO 8601 day of the week of `wall`'s date: 1 is Monday, 7 is Sunday. */
export function isoWeekday(wall: WallTime): number {
  const sundayFirst = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
  return sundayFirst === 0 ? 7 : sundayFirst;
}
