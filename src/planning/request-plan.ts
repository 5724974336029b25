/**
 * The request planner: picks a refresh for every (collector, window, level) so that the planned
 * rate fits the upstream's budget, or says what to drop. Pure: no I/O, no clock.
 * 1. Summary (window, level) entries start at their window's default refresh; records collectors
 *    keep their interval, per-window overrides stay as given.
 *    - Default `clamp(nice(√(L × 4 s)), interval, 15m)`: 15m -> 1m, 1h -> 2m, 24h -> ~10m; a longer
 *      window moves less per minute but is still watched, so its refresh grows slower than its length.
 *    - Longest `clamp(L / 5, default, 15m)`: data never planned older than a fifth of the window.
 *    A calendar window takes its default from its elapsed length and its longest from its full
 *    length, so one that has just begun never forces the plan to drop anything.
 * 2. Over the budget less the retry reserve, windows stretch together to `clamp(f × L, default,
 *    longest)` for the smallest common `f`: every window's data is the same fraction of it old.
 * 3. If the longest refreshes do not fit either, entries are dropped until they do: finest level
 *    first (station costs most and the units collector still counts per station), within a level
 *    the shortest window (costliest per minute; ties: config order), records collectors last.
 * Entities of a level with the same station set share a request; levels are counted apart (a
 * plan cannot promise they are polled together), so the plan is an upper bound.
 */
import type { WindowSpec } from '../config/schema.ts';
import type { DroppedEntry, PlanEntry, RecordsNeed, RefreshBasis, RequestPlan } from '../model/plan.ts';
import type { Level } from '../model/topology.ts';
import { windowBounds } from '../time/windows.ts';

export type { PlanEntry, RequestPlan };

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const LEVEL_ORDER: readonly Level[] = ['station', 'group', 'line', 'site'];

/** Default share of the budget kept free for retries of failed requests. */
export const DEFAULT_RETRY_RESERVE = 0.05;

/** What the planner needs to know. */
export interface PlanInput {
  /** The collector whose requests are per window and level (the summary): its name on the entries. */
  readonly windowedCollector: string;
  /** Distinct requests one window costs at each level (entities sharing a station set count once). */
  readonly summaryRequests: Readonly<Partial<Record<Level, number>>>;
  /** Summary levels enabled, in any order. */
  readonly levels: readonly Level[];
  /** Windows, with their lengths at planning time (see `planWindows`). */
  readonly windows: readonly PlanWindow[];
  /** Records collectors' needs; empty when they are disabled. */
  readonly records?: readonly RecordsNeed[];
  /** `upstream.max_requests_per_second` (divided by the shard count on a sharded replica). */
  readonly maxRequestsPerSecond: number;
  /** Share of the budget kept for retries, 0 <= r < 1; default {@link DEFAULT_RETRY_RESERVE}. */
  readonly retryReserve?: number;
  /** The summary collector's configured interval: the fastest any window is refreshed. */
  readonly baseIntervalMs: number;
  /** The slowest refresh of any window; default 15m. */
  readonly maxRefreshMs?: number;
}

interface Candidate extends Pick<PlanEntry, 'collector' | 'window' | 'level' | 'requests'> {
  /** Length used for stretching; undefined for fixed entries. */
  readonly lengthMs?: number;
  readonly defaultMs: number;
  readonly longestMs: number;
  readonly basis: 'default' | 'override' | 'interval';
  /** Sort key for dropping: [level rank, full window length, config position]. */
  readonly dropKey: readonly number[];
}

/** Plans refreshes within the budget. Throws a RangeError on nonsensical input. */
export function planRequests(input: PlanInput): RequestPlan {
  const reserve = input.retryReserve ?? DEFAULT_RETRY_RESERVE;
  checkInput(input, reserve);
  const budgetPerMinute = input.maxRequestsPerSecond * 60;
  const ceiling = budgetPerMinute * (1 - reserve);
  const kept = candidates(input);
  const dropped: DroppedEntry[] = [];
  for (const next of dropOrder(kept)) {
    if (costAt(kept, 'longest') <= ceiling) break;
    kept.splice(kept.indexOf(next), 1);
    const { collector, window, level, requests } = next;
    dropped.push({
      collector,
      window,
      level,
      requests,
      requestsPerMinute: perMinute(requests, next.longestMs),
    });
  }
  const stretch = solveStretch(kept, ceiling);
  const entries = kept.map((c) => entryAt(c, stretch));
  const total = entries.reduce((sum, e) => sum + e.requestsPerMinute, 0);
  return {
    entries,
    dropped,
    requestsPerMinute: total,
    budgetPerMinute,
    plannedCeilingPerMinute: ceiling,
    retryReserve: reserve,
    stretch,
  };
}

function checkInput(input: PlanInput, reserve: number): void {
  if (!(input.maxRequestsPerSecond > 0)) throw new RangeError('maxRequestsPerSecond must be positive');
  if (!(reserve >= 0 && reserve < 1)) throw new RangeError('retryReserve must be at least 0 and below 1');
  if (!(input.baseIntervalMs > 0)) throw new RangeError('baseIntervalMs must be positive');
  for (const [level, n] of Object.entries(input.summaryRequests)) {
    if (!(Number.isInteger(n) && n >= 0)) throw new RangeError(`summaryRequests.${level} must be a count`);
  }
  checkNeeds(input);
}

/** The windows' refresh overrides and the record collectors' needs. */
function checkNeeds(input: PlanInput): void {
  for (const w of input.windows) {
    if (w.refreshMs !== undefined && !(w.refreshMs > 0)) {
      throw new RangeError(`refresh of window ${w.name} must be positive`);
    }
  }
  for (const r of input.records ?? []) {
    if (!(r.intervalMs > 0) || !(r.requestsPerPoll >= 0)) {
      throw new RangeError(`records need of ${r.collector} must have a positive interval and a count`);
    }
  }
}

function candidates(input: PlanInput): Candidate[] {
  const limits = {
    baseIntervalMs: input.baseIntervalMs,
    maxRefreshMs: input.maxRefreshMs ?? DEFAULT_MAX_REFRESH_MS,
  };
  const levels = LEVEL_ORDER.filter((l) => input.levels.includes(l));
  const out: Candidate[] = [];
  input.windows.forEach((w, position) => {
    const fixed = w.refreshMs;
    const defaultMs = fixed ?? defaultRefreshMs(w.lengthMs, limits);
    const longestMs = fixed ?? longestRefreshMs(w, limits);
    for (const level of levels) {
      out.push({
        collector: input.windowedCollector,
        window: w.name,
        level,
        requests: input.summaryRequests[level] ?? 0,
        // A calendar window that has just begun still needs a length to stretch against.
        lengthMs: fixed === undefined ? Math.max(w.lengthMs, SECOND) : undefined,
        defaultMs,
        longestMs,
        basis: fixed === undefined ? 'default' : 'override',
        dropKey: [LEVEL_ORDER.indexOf(level), w.fullLengthMs, position],
      });
    }
  });
  (input.records ?? []).forEach((r, position) => {
    out.push({
      collector: r.collector,
      requests: r.requestsPerPoll,
      defaultMs: r.intervalMs,
      longestMs: r.intervalMs,
      basis: 'interval',
      dropKey: [LEVEL_ORDER.length, 0, position],
    });
  });
  return out;
}

function dropOrder(list: readonly Candidate[]): Candidate[] {
  const compare = (a: Candidate, b: Candidate) => a.dropKey.reduce((d, k, i) => d || k - b.dropKey[i]!, 0);
  // Dropping an entry that costs nothing frees nothing.
  return list.filter((c) => c.requests > 0).sort(compare);
}

function perMinute(requests: number, refreshMs: number): number {
  return (requests * MINUTE) / refreshMs;
}

/** Refresh of a candidate at stretch `f` (continuous; entryAt rounds it). */
function refreshAt(c: Candidate, f: number): number {
  if (c.lengthMs === undefined) return c.defaultMs;
  return Math.max(c.defaultMs, Math.min(c.longestMs, f * c.lengthMs));
}

function costAt(list: readonly Candidate[], f: 'longest' | number): number {
  return list.reduce(
    (sum, c) => sum + perMinute(c.requests, f === 'longest' ? c.longestMs : refreshAt(c, f)),
    0,
  );
}

/**
 * The smallest stretch `f` at which the list costs at most `ceiling`. Between two breakpoints
 * (where some window reaches its default or its longest refresh) the cost is `A + K / f`, so `f`
 * is solved exactly on the segment where the cost crosses the ceiling.
 */
function solveStretch(list: readonly Candidate[], ceiling: number): number {
  if (costAt(list, 0) <= ceiling) return 0;
  const sorted = breakpoints(list);
  for (let i = 1; i < sorted.length; i++) {
    const hi = sorted[i]!;
    if (costAt(list, hi) <= ceiling) return solveSegment(list, ceiling, { lo: sorted[i - 1]!, hi });
  }
  // Only reached when nothing can stretch far enough, which the drop loop has ruled out.
  return sorted.at(-1) ?? 0;
}

/** 0 and the stretches at which some window reaches its default or its longest refresh, ascending. */
function breakpoints(list: readonly Candidate[]): number[] {
  const points = new Set<number>();
  for (const c of list) {
    if (c.lengthMs === undefined || c.lengthMs <= 0) continue;
    points.add(c.defaultMs / c.lengthMs);
    points.add(c.longestMs / c.lengthMs);
  }
  return [0, ...[...points].sort((a, b) => a - b)];
}

/** The stretch in [lo, hi] at which the cost `A + K / f` meets the ceiling. */
function solveSegment(
  list: readonly Candidate[],
  ceiling: number,
  { lo, hi }: { readonly lo: number; readonly hi: number },
): number {
  const mid = (lo + hi) / 2;
  let fixed = 0;
  let k = 0;
  for (const c of list) {
    const stretching =
      c.lengthMs !== undefined && mid * c.lengthMs > c.defaultMs && mid * c.lengthMs < c.longestMs;
    if (stretching) k += (c.requests * MINUTE) / c.lengthMs!;
    else fixed += perMinute(c.requests, refreshAt(c, mid));
  }
  // A hair above the exact root, so that floating-point rounding never lands above the ceiling.
  const f = k / (ceiling - fixed);
  return Math.min(hi, Math.max(lo, f * (1 + 1e-9)));
}

function entryAt(c: Candidate, f: number): PlanEntry {
  let refreshMs = refreshAt(c, f);
  let basis: RefreshBasis = c.basis;
  if (c.basis === 'default' && refreshMs > c.defaultMs) {
    // Whole seconds, rounded up: a longer refresh only lowers the cost.
    refreshMs = Math.min(c.longestMs, Math.ceil(refreshMs / SECOND) * SECOND);
    basis = refreshMs >= c.longestMs ? 'longest' : 'stretched';
  }
  const { collector, window, level, requests } = c;
  const entry = { collector, requests, refreshMs, requestsPerMinute: perMinute(requests, refreshMs), basis };
  return { ...entry, ...(window === undefined ? {} : { window }), ...(level === undefined ? {} : { level }) };
}

/** Longest refresh of any window unless the caller says otherwise. */
const DEFAULT_MAX_REFRESH_MS = 15 * MINUTE;

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
  const distance = (step: number) => Math.abs(Math.log(step / ms));
  return NICE_STEPS_MS.reduce((best, step) => (distance(step) < distance(best) ? step : best));
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
  const gaps = minutes.map((start, i) => (minutes[i + 1] ?? minutes[0]! + 24 * 60) - start);
  return Math.max(0, ...gaps) * MINUTE;
}

/** The length `spec` reaches at its longest (a calendar window just before it starts again), ms. */
function fullLengthOf(spec: WindowSpec): number {
  switch (spec.kind) {
    case 'rolling':
      return spec.durationMs;
    case 'today':
      return DAY;
    case 'week':
      return 7 * DAY;
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
    return { name: spec.name, lengthMs, fullLengthMs, ...(refreshMs === undefined ? {} : { refreshMs }) };
  });
}
