/**
 * The order of a first poll, and how much goes into one poll. At the request ceiling a first poll
 * is long (minutes at 1,000 stations), and families are published only when it ends; so the pairs
 * never asked yet go shortest window first, station level first, only as many as fit one summary
 * interval (at least one): the shortest window is published first, longer ones in the next polls.
 */
import type { WindowSpec } from '../../config/schema.ts';
import type { Level } from '../../model/topology.ts';
import { windowBounds } from '../../time/windows.ts';
import type { SummaryWindowProgress } from '../collector.ts';
import { scheduleKey } from './schedule.ts';

/** One (window, level) of the first-poll order. */
export interface SummaryPair {
  readonly window: string;
  readonly level: Level;
}

/** Shortest window first (ties in config order), and within a window the station level first. */
export function firstPollOrder(
  windows: readonly WindowSpec[],
  levels: readonly Level[],
  now: Date,
): SummaryPair[] {
  const lengthOf = (w: WindowSpec) => {
    const { from, to } = windowBounds(w, now);
    return to.getTime() - from.getTime();
  };
  const byLength = windows.map((w) => ({ name: w.name, ms: lengthOf(w) })).sort((a, b) => a.ms - b.ms);
  const byRank = [...levels].sort((a, b) => Number(b === 'station') - Number(a === 'station'));
  return byLength.flatMap((w) => byRank.map((level) => ({ window: w.name, level })));
}

/** Which pairs have had their first requests sent: it decides what the next poll may start. */
export class WarmUp {
  private readonly started = new Set<string>();

  constructor(
    /** Requests one poll may start: the ceiling's worth of one summary interval, at least 1. */
    private readonly budget: number,
  ) {}

  /**
   * Every pair already started (a failed first answer is asked again), and, in order, new pairs
   * while their requests fit the budget (the first always does).
   */
  admit(order: readonly SummaryPair[], newRequests: (pair: SummaryPair) => number): Set<string> {
    const admitted = new Set<string>();
    let taken = 0;
    let full = false;
    for (const pair of order) {
      const key = scheduleKey(pair);
      if (this.started.has(key)) {
        admitted.add(key);
        continue;
      }
      const n = newRequests(pair);
      // The order is kept: once a pair does not fit, no later one may jump ahead of it.
      if (full || (taken > 0 && taken + n > this.budget)) {
        full = true;
        continue;
      }
      taken += n;
      admitted.add(key);
      this.started.add(key);
    }
    return admitted;
  }
}

/** Each window's progress, in first-poll order; windows the plan dropped are left out. */
export function windowProgress(
  order: readonly SummaryPair[],
  pairs: { planned: (pair: SummaryPair) => boolean; answered: (pair: SummaryPair) => boolean },
): SummaryWindowProgress[] {
  const out = new Map<string, { complete: boolean; levelsComplete: string[] }>();
  for (const pair of order) {
    if (!pairs.planned(pair)) continue;
    const row = out.get(pair.window) ?? { complete: true, levelsComplete: [] };
    if (pairs.answered(pair)) row.levelsComplete.push(pair.level);
    else row.complete = false;
    out.set(pair.window, row);
  }
  return [...out].map(([window, row]) => ({ window, ...row }));
}
