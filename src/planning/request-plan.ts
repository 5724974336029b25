/**
 * The request planner: picks a refresh for every (collector, window, level) so that the planned
 * rate fits the upstream's budget, or says what to drop. Pure: no I/O, no clock.
 * 1. Summary (window, level) entries start at their window's default refresh (refresh.ts); records
 *    collectors keep their interval, per-window overrides stay as given.
 * 2. Over the budget less the retry reserve, windows stretch together to `clamp(f × L, default,
 *    longest)` for the smallest common `f`: every window's data is the same fraction of it old.
 * 3. If the longest refreshes do not fit either, entries are dropped until they do: finest level
 *    first (station costs most and the units collector still counts per station), within a level
 *    the shortest window (costliest per minute; ties: config order), records collectors last.
 * Entities of a level with the same station set share a request; levels are counted apart (a
 * plan cannot promise they are polled together), so the plan is an upper bound.
 */
import type { DroppedEntry, PlanEntry, RecordsNeed, RefreshBasis, RequestPlan } from '../model/plan.ts';
import type { Level } from '../model/topology.ts';

export type { PlanEntry, RequestPlan };

import { DEFAULT_MAX_REFRESH_MS, defaultRefreshMs, longestRefreshMs, type PlanWindow } from './refresh.ts';

const MINUTE = 60_000;
const SECOND = 1_000;
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
    if (costAt(kept, () => 'longest') <= ceiling) break;
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
  const compare = (a: Candidate, b: Candidate): number => {
    for (let i = 0; i < a.dropKey.length; i++) {
      const d = a.dropKey[i]! - b.dropKey[i]!;
      if (d !== 0) return d;
    }
    return 0;
  };
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

function costAt(list: readonly Candidate[], at: () => 'longest' | number): number {
  return list.reduce((sum, c) => {
    const f = at();
    return sum + perMinute(c.requests, f === 'longest' ? c.longestMs : refreshAt(c, f));
  }, 0);
}

/**
 * The smallest stretch `f` at which the list costs at most `ceiling`. Between two breakpoints
 * (where some window reaches its default or its longest refresh) the cost is `A + K / f`, so `f`
 * is solved exactly on the segment where the cost crosses the ceiling.
 */
function solveStretch(list: readonly Candidate[], ceiling: number): number {
  if (costAt(list, () => 0) <= ceiling) return 0;
  const sorted = breakpoints(list);
  for (let i = 1; i < sorted.length; i++) {
    const hi = sorted[i]!;
    if (costAt(list, () => hi) <= ceiling) return solveSegment(list, ceiling, { lo: sorted[i - 1]!, hi });
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
