/**
 * How often each window is refreshed by default, and how far the planner may stretch it.
 * - Default `clamp(nice(√(L × 4 s)), interval, 15m)`: 15m -> 1m, 1h -> 2m, 24h -> ~10m; a longer
 *   window moves less per minute but is still watched, so its refresh grows slower than its length.
 * - Longest `clamp(L / 5, default, 15m)`: data never planned older than a fifth of the window.
 * A calendar window takes its default from its elapsed length and its longest from its full length,
 * so one that has just begun never forces the plan to drop anything.
 */
import type { WindowSpec } from '../config/schema.ts';
import { windowBounds } from '../time/windows.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const WEEK = 7 * DAY;

/** Longest refresh of any window unless the caller says otherwise. */
export const DEFAULT_MAX_REFRESH_MS = 15 * MINUTE;

/** A window's data is never planned older than this fraction of its (full) length. */
const MAX_STALENESS_FRACTION = 1 / 5;

/** `L × REFRESH_SCALE_MS` is the square of the default refresh: 15m -> 1m. */
const REFRESH_SCALE_MS = 4 * SECOND;

/** Refresh intervals a default is rounded to (nearest on a log scale), so plans read well. */
const NICE_STEPS_MS = [15, 30, 60, 120, 180, 240, 300, 360, 600, 720, 900, 1200, 1800, 3600].map(
  (s) => s * SECOND,
);

/** A window as the planner sees it. */
export interface PlanWindow {
  readonly name: string;
  /** Length the window covers at planning time (elapsed length for a calendar window), ms. */
  readonly lengthMs: number;
  /** Length the window can reach: its duration, a day, a week, or the longest shift; ms. */
  readonly fullLengthMs: number;
  /** A configured refresh for this window; the planner keeps it as it is. */
  readonly refreshMs?: number;
}

/** The nice step nearest to `ms` on a log scale (the largest step for anything longer). */
function niceStep(ms: number): number {
  let best = NICE_STEPS_MS[0]!;
  for (const step of NICE_STEPS_MS) {
    if (Math.abs(Math.log(step / ms)) < Math.abs(Math.log(best / ms))) best = step;
  }
  return best;
}

/** Limits every refresh shares: the base interval (fastest) and the cap (slowest). */
export interface RefreshLimits {
  /** The collector's configured interval: no window is refreshed more often. */
  readonly baseIntervalMs: number;
  /** No window waits longer than this (default 15m), unless the base interval is longer still. */
  readonly maxRefreshMs: number;
}

function clamp(value: number, low: number, high: number): number {
  // The low bound wins when the bounds cross (a base interval longer than the cap).
  return Math.max(low, Math.min(high, value));
}

/** Default refresh of a window covering `lengthMs` now: `clamp(nice(√(L × 4 s)), base, cap)`. */
export function defaultRefreshMs(lengthMs: number, limits: RefreshLimits): number {
  const raw = Math.sqrt(Math.max(0, lengthMs) * REFRESH_SCALE_MS);
  return clamp(niceStep(raw), limits.baseIntervalMs, limits.maxRefreshMs);
}

/** Longest refresh the planner may give a window: `clamp(full / 5, default, cap)`. */
export function longestRefreshMs(window: PlanWindow, limits: RefreshLimits): number {
  const fallback = defaultRefreshMs(window.lengthMs, limits);
  return clamp(window.fullLengthMs * MAX_STALENESS_FRACTION, fallback, limits.maxRefreshMs);
}

/** Longest gap between consecutive shift starts (`HH:MM`), wrapping round midnight; ms. */
export function longestShiftMs(shiftStarts: readonly string[]): number {
  const minutes = shiftStarts
    .map((s) => {
      const [h = 0, m = 0] = s.split(':').map(Number);
      return h * 60 + m;
    })
    .sort((a, b) => a - b);
  let longest = 0;
  minutes.forEach((start, i) => {
    const next = i + 1 < minutes.length ? minutes[i + 1]! : minutes[0]! + 24 * 60;
    longest = Math.max(longest, next - start);
  });
  return longest * MINUTE;
}

/** The length `spec` reaches at its longest (a calendar window just before it starts again), ms. */
function fullLengthOf(spec: WindowSpec): number {
  switch (spec.kind) {
    case 'rolling':
      return spec.durationMs;
    case 'today':
      return DAY;
    case 'week':
      return WEEK;
    case 'shift':
      return longestShiftMs(spec.shiftStarts);
  }
}

/** The windows as the planner sees them at `now`, with refresh overrides by name (a day is 24 h here). */
export function planWindows(
  specs: readonly WindowSpec[],
  now: Date,
  overrides: ReadonlyMap<string, number> = new Map(),
): PlanWindow[] {
  return specs.map((spec) => {
    const { from, to } = windowBounds(spec, now);
    const lengthMs = to.getTime() - from.getTime();
    const fullLengthMs = fullLengthOf(spec);
    const refreshMs = overrides.get(spec.name);
    return refreshMs === undefined
      ? { name: spec.name, lengthMs, fullLengthMs }
      : { name: spec.name, lengthMs, fullLengthMs, refreshMs };
  });
}
