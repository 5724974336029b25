/** Binary search over ascending times, shared by the record columns, the control charts and replay. */

/** First index in the ascending `times[lo..hi)` whose time is `>= t` (`hi` when none). */
export function lowerBound(times: ArrayLike<number>, t: number, lo = 0, hi = times.length): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if ((times[mid] as number) < t) a = mid + 1;
    else b = mid;
  }
  return a;
}
