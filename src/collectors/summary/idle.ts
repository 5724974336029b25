/**
 * Idle skipping: a station with no unit entering or leaving a window since its last summary
 * cannot have a different summary for that window. The units collector's records say which
 * stations were quiet; a sample of skipped requests is re-asked to check the assumption.
 */

import type { StationSummary } from '../../upstream/types.ts';
import type { UnitActivity } from '../activity.ts';
import { SUMMARY_FIELDS } from './families.ts';
import type { SummaryRequest } from './plan.ts';

/**
 * A station counts as idle only with no unit record in this long before the window's new end, even
 * when the previous answer is more recent: a busy station between two units is not idle, and the
 * units collector's view lags the upstream by up to its interval.
 */
const IDLE_LOOKBACK_MS = 15 * 60_000;

/** Skippable requests re-asked to verify the idle assumption: one in this many (2 %). */
export const VERIFY_EVERY = 50;

/** The window bounds a kept answer was asked for, epoch ms. */
export interface AskedBounds {
  readonly from: number;
  readonly to: number;
}

/** No unit record of the request's stations entered or left the window since the last answer. */
export function quietSince(
  activity: UnitActivity,
  last: AskedBounds | undefined,
  request: SummaryRequest,
): boolean {
  if (last === undefined) return false;
  const from = request.from.getTime();
  const to = request.to.getTime();
  return activity.quiet(request.stationIds, [
    { from: Math.min(last.from, from), to: Math.max(last.from, from) },
    { from: Math.min(last.to, to - IDLE_LOOKBACK_MS), to },
  ]);
}

/** Two summaries with the same fields and values (both absent counts as the same). */
export function sameSummary(a: StationSummary | undefined, b: StationSummary | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return SUMMARY_FIELDS.every((f) => a[f.key] === b[f.key]);
}
