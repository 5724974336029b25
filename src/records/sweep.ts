/**
 * The re-read sweep: records later than the overlap are found only by reading the retained range
 * again. Reading it all on one poll is a burst (~190 requests for 1,000 stations and 24h) that
 * delays every collector sharing the budget, so each poll reads, oldest first in whole spans, the
 * part the sweep passed since the last poll. The sweep moves faster than time, so it passes every
 * retained instant once per `reread_interval`. A failed range is read again; a sweep that fell
 * behind catches up at most at twice its even pace, so an outage is not followed by a burst.
 */

/** A range to read again on this poll, `[from, to)` in epoch ms. */
export interface SweepRange {
  readonly from: number;
  readonly to: number;
  /** This range ends the sweep. */
  readonly last: boolean;
}

/** The sweep of one record sync; it remembers where it is between polls. */
export class RereadSweep {
  private start: number | undefined;
  private cursor = Number.NEGATIVE_INFINITY;
  private lastCall: number | undefined;

  /**
   * @param intervalMs How long one sweep of the whole retained range takes (`reread_interval`).
   * @param spanMs The longest span of one request: the sweep reads whole spans until its last range.
   */
  constructor(
    private readonly intervalMs: number,
    private readonly spanMs: number,
  ) {
    if (!(intervalMs > 0) || !(spanMs > 0)) throw new RangeError('sweep interval and span must be positive');
  }

  /**
   * The range to read again at `now`, or undefined when there is none yet.
   * @param retainFrom The oldest time retained now (epoch ms).
   * @param end Where the incremental reads begin (the oldest watermark less the overlap): the sweep
   *   never reads what they read anyway.
   */
  next(now: number, retainFrom: number, end: number): SweepRange | undefined {
    if (this.start === undefined) this.begin(now, retainFrom);
    const gap = this.lastCall === undefined ? 0 : Math.max(0, now - this.lastCall);
    this.lastCall = now;
    const elapsed = Math.min(1, (now - this.start!) / this.intervalMs);
    const from = Math.max(this.cursor, retainFrom);
    const due = elapsed >= 1 ? end : Math.min(end, retainFrom + elapsed * (now - retainFrom));
    // At most twice a poll's even share, in whole spans.
    const share = ((now - retainFrom + this.intervalMs) * gap) / this.intervalMs;
    const cap = from + Math.max(1, 2 * Math.ceil(share / this.spanMs)) * this.spanMs;
    const reach = Math.min(due, cap);
    const last = elapsed >= 1 && reach >= end;
    // Whole spans only, until the last range: a part-span now would cost a second request later.
    const to = last ? reach : from + Math.floor((reach - from) / this.spanMs) * this.spanMs;
    if (to > from) return { from, to, last };
    if (last) this.begin(now, retainFrom);
    return undefined;
  }

  /** Moves past a range once it was read without failures; a failed range is read again next poll. */
  done(range: SweepRange, now: number, retainFrom: number): void {
    this.cursor = Math.max(this.cursor, range.to);
    if (range.last) this.begin(now, retainFrom);
  }

  private begin(now: number, retainFrom: number): void {
    this.start = now;
    this.cursor = retainFrom;
  }
}

/** Requests one sweep makes per station batch: retained length plus interval, in spans, plus one. */
export function sweepSpans(retainedMs: number, intervalMs: number, spanMs: number): number {
  return Math.ceil((retainedMs + intervalMs) / spanMs) + 1;
}
