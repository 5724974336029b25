/**
 * Pacing: each planned entry sends its requests spread evenly over its refresh interval instead of
 * in a burst at the start, so the upstream sees a steady rate close to the plan's total. Pure
 * functions of the plan and of time; the scheduler turns offsets into timers with its injected clock.
 *
 * Over any span, an entry sends at most one request more than its planned rate allows, so the sum
 * can exceed the plan by one request per entry; the retry reserve leaves room for that, and the shared
 * limiter (upstream/limiter.ts) still enforces the hard ceiling on every request.
 */

/**
 * How an entry sends: `requests` per `intervalMs`, its slots shifted by `phase` (0 <= phase < 1)
 * of a slot so that entries with the same interval do not all start together.
 */
export interface Cadence {
  readonly requests: number;
  readonly intervalMs: number;
  readonly phase?: number;
}

/**
 * Offset (ms from the start of an interval) at which request `k` is sent: the interval is cut
 * into `requests` equal slots and each request starts its slot, shifted by the phase.
 */
export function sendOffsetMs(k: number, cadence: Cadence): number {
  const { requests: n, intervalMs, phase = 0 } = cadence;
  if (!(Number.isInteger(k) && Number.isInteger(n) && k >= 0 && k < n)) {
    throw new RangeError(`request ${k} of ${n} is out of range`);
  }
  return Math.floor(((k + phase) * intervalMs) / n);
}

/** Phase of entry `index` of `count`, spreading the entries' first requests over a slot. */
export function phaseOf(index: number, count: number): number {
  return count > 0 ? index / count : 0;
}
