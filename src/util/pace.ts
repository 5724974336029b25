/**
 * Pacing: each planned entry spreads its requests evenly over its refresh interval, so the upstream
 * sees a steady rate. Over any span an entry sends at most one request more than its rate allows;
 * the retry reserve leaves room for that, and the shared limiter still enforces the ceiling.
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

/** Offset (ms into the interval) of request `k`: the start of its equal slot, shifted by the phase. */
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
