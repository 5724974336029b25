/** Binary search over ascending times, shared by the record columns, the control charts and replay. */

/** First index in the ascending `times[lo..hi)` (default all) whose time is `>= t` (`hi` when none). */
export function lowerBound(
  times: ArrayLike<number>,
  t: number,
  range: { readonly lo?: number; readonly hi?: number } = {},
): number {
  let a = range.lo ?? 0;
  let b = range.hi ?? times.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if ((times[mid] as number) < t) a = mid + 1;
    else b = mid;
  }
  return a;
}
