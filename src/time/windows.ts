/**
 * A time window over which upstream statistics are requested, as the config's `windows` entries
 * come out of validation (src/config/windows-schema.ts produces them; defined here, below the
 * config, so that time arithmetic needs nothing above it).
 */
export type WindowSpec =
  | { readonly name: string; readonly kind: 'rolling'; readonly durationMs: number }
  | {
      readonly name: string;
      readonly kind: 'shift';
      readonly timezone: string;
      readonly shiftStarts: readonly string[];
    }
  | { readonly name: string; readonly kind: 'today'; readonly timezone: string };

import { addDays, type WallTime, wallTimeAt, zonedTimeToEpoch } from './zones.ts';

/** The time span a window covers at some moment; `to` is always that moment. */
export interface WindowBounds {
  from: Date;
  to: Date;
}

/**
 * The span `spec` covers at `now`: a rolling window is the last `durationMs`; `today` starts at the
 * last local midnight in its time zone; `shift` starts at the latest shift start at or before `now`,
 * which may be yesterday's last shift. Local times are converted with the zone's offset at that
 * moment, so days and shifts that span a DST change are an hour shorter or longer, as on the clock.
 */
export function windowBounds(spec: WindowSpec, now: Date): WindowBounds {
  const nowMs = now.getTime();
  switch (spec.kind) {
    case 'rolling':
      return { from: new Date(nowMs - spec.durationMs), to: new Date(nowMs) };
    case 'today':
      return { from: new Date(startOfDay(nowMs, spec.timezone)), to: new Date(nowMs) };
    case 'shift':
      return { from: new Date(shiftStart(nowMs, spec.timezone, spec.shiftStarts)), to: new Date(nowMs) };
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

function startOfDay(nowMs: number, timeZone: string): number {
  const midnight = addDays(wallTimeAt(nowMs, timeZone), 0);
  // A zone whose clocks jump over midnight starts that day when the jump ends.
  return Math.min(zonedTimeToEpoch(midnight, timeZone), nowMs);
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
