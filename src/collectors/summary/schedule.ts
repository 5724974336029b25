/**
 * Which summary slots a poll refreshes: each (window, level) every `k` polls (its planned refresh
 * over `summary.interval`, rounded up), its entities spread over them with pace.ts, so every
 * poll sends about the same number of requests instead of a burst every `k`.
 */

import type { PlanEntry, RequestPlan } from '../../model/plan.ts';
import { phaseOf, sendOffsetMs } from '../../util/pace.ts';
import type { SummarySlot } from './plan.ts';

/** One (window, level)'s schedule. */
export interface SlotSchedule {
  /** Polls per refresh. */
  readonly rounds: number;
  /** Refresh the rounds give, ms: `rounds × base interval`. */
  readonly refreshMs: number;
  readonly phase: number;
}

/** The schedule of every planned (window, level); a pair the plan dropped is absent. */
export type SummarySchedule = ReadonlyMap<string, SlotSchedule>;

/** Map key of a (window, level). */
export const scheduleKey = (p: { readonly window: string; readonly level: string }): string =>
  `${p.window}\u0000${p.level}`;

/** The schedule from a plan; without a plan every pair is refreshed on every poll. */
export function summarySchedule(
  plan: RequestPlan | undefined,
  baseIntervalMs: number,
  pairs: ReadonlyArray<{ window: string; level: string }>,
): SummarySchedule {
  const out = new Map<string, SlotSchedule>();
  if (plan === undefined) {
    for (const p of pairs) {
      out.set(scheduleKey(p), { rounds: 1, refreshMs: baseIntervalMs, phase: 0 });
    }
    return out;
  }
  const entries = plan.entries.filter(
    (e): e is PlanEntry & { window: string; level: string } =>
      e.collector === 'summary' && e.window !== undefined && e.level !== undefined,
  );
  entries.forEach((e, i) => {
    const rounds = Math.max(1, Math.ceil(e.refreshMs / baseIntervalMs - 1e-9));
    out.set(scheduleKey(e), {
      rounds,
      refreshMs: rounds * baseIntervalMs,
      phase: phaseOf(i, entries.length),
    });
  });
  return out;
}

/** The poll (0 .. rounds-1 within each refresh) in which a slot is refreshed. */
function roundOf(slot: Pick<SummarySlot, 'index' | 'count'>, s: SlotSchedule): number {
  if (s.rounds === 1) return 0;
  return sendOffsetMs(slot.index, { requests: slot.count, intervalMs: s.rounds, phase: s.phase });
}

/** True when the slot is due on poll number `poll` (counting from 0). */
export function isDue(slot: Pick<SummarySlot, 'index' | 'count'>, s: SlotSchedule, poll: number): boolean {
  return roundOf(slot, s) === poll % s.rounds;
}
