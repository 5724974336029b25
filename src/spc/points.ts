/**
 * The recent points of one chart in time order, as typed columns (16 bytes a point): those the
 * evaluation window, the rules' context, late-point replay and a held shift need. Points arrive
 * in any order and are merged once per poll; the oldest leave from the front.
 */

const MIN_CAPACITY = 16;
/** Queued points merged in at once when a poll brings many (a history). */
const PENDING_BATCH = 2048;

/** Time-ordered points; equal times keep the order they arrived in. */
export class RecentPoints {
  private t = new Float64Array(MIN_CAPACITY);
  private v = new Float64Array(MIN_CAPACITY);
  /** A key per point while duplicates must be recognised; else undefined. */
  private k: Uint32Array | undefined;
  private n = 0;
  /** Bumped when a held point moves or one is inserted among them (not on append). */
  private moves = 0;
  private pendingT: number[] = [];
  private pendingV: number[] = [];
  private pendingK: number[] = [];
  /** Points appended straight to the columns since the last merge. */
  private appended = 0;

  /** Points held (merged ones). */
  get length(): number {
    return this.n;
  }

  /** The time column itself, valid below `length` until the next change (no view per poll). */
  get timeColumn(): Float64Array {
    return this.t;
  }

  /** The value column itself, like {@link RecentPoints.timeColumn}. */
  get valueColumn(): Float64Array {
    return this.v;
  }

  /** Changes when a held point moved or one was inserted among them, not on append. */
  get prefixVersion(): number {
    return this.moves;
  }

  /** First index below `hi` (default all) whose time is `>= t` (`hi` when none). */
  lowerBound(t: number, hi = this.n): number {
    if (hi <= 0) return 0;
    const times = this.t;
    // Branch-free: the step is added as a product (unpredictable branches, ten searches a poll).
    let base = 0;
    let n = hi;
    while (n > 1) {
      const half = n >>> 1;
      base += half * +(times[base + half - 1]! < t);
      n -= half;
    }
    return base + +(times[base]! < t);
  }

  /** Bytes of the columns. */
  get bytes(): number {
    return this.t.byteLength + this.v.byteLength + (this.k?.byteLength ?? 0);
  }

  /**
   * Adds a point: appended at once when nothing is queued and it goes last, else queued for the
   * next merge. With a non-zero `key`, a point equal to a held or queued one is left out.
   */
  add(time: number, value: number, key = 0): void {
    if (this.pendingT.length === 0 && this.isNewest(time, key)) {
      this.append(time, value, key);
      return;
    }
    this.pendingT.push(time);
    this.pendingV.push(value);
    this.pendingK.push(key);
    if (key !== 0 && this.k === undefined) this.k = new Uint32Array(this.t.length);
    // Merged in batches: a long history then never waits in plain arrays (8 bytes a number).
    if (this.pendingT.length >= PENDING_BATCH) this.merge();
  }

  /** Whether the merge would put the point last (a keyed one of the last time may be a repeat). */
  private isNewest(time: number, key: number): boolean {
    if (this.n === 0) return true;
    const last = this.t[this.n - 1]!;
    return time > last || (time === last && key === 0);
  }

  /** Appends straight to the columns: the usual in-order points never fill a queue (its garbage). */
  private append(time: number, value: number, key: number): void {
    this.reserve(this.n + 1);
    if (key !== 0 && this.k === undefined) this.k = new Uint32Array(this.t.length);
    this.t[this.n] = time;
    this.v[this.n] = value;
    if (this.k !== undefined) this.k[this.n] = key;
    this.n++;
    this.appended++;
  }

  /** Calls `take` with every point and key, merged ones in order, then queued ones; merges nothing. */
  forEach(take: (time: number, value: number, key: number) => void): void {
    for (let i = 0; i < this.n; i++) take(this.t[i]!, this.v[i]!, this.k?.[i] ?? 0);
    for (let i = 0; i < this.pendingT.length; i++)
      take(this.pendingT[i]!, this.pendingV[i]!, this.pendingK[i]!);
  }

  /** Stops recognising duplicates. */
  forgetKeys(): void {
    this.k = undefined;
  }

  /** Merges the queued points in; returns how many were new since the last merge. */
  merge(): number {
    const appended = this.appended;
    this.appended = 0;
    return appended + this.mergeQueued();
  }

  private mergeQueued(): number {
    const count = this.pendingT.length;
    if (count === 0) return 0;
    // In-order points were appended as they came: a queue holds at least one that goes among them.
    this.moves++;
    const order = Array.from({ length: count }, (_, i) => i);
    const pt = this.pendingT;
    order.sort((a, b) => pt[a]! - pt[b]! || a - b);
    const pv = this.pendingV;
    const pk = this.pendingK;
    this.pendingT = [];
    this.pendingV = [];
    this.pendingK = [];
    // Only the held points from the first new time on interleave: they are copied out and merged back.
    const start = upperBound(this.t, pt[order[0]!]!, this.n);
    const tailT = this.t.slice(start, this.n);
    const tailV = this.v.slice(start, this.n);
    const tailK = this.k?.slice(start, this.n);
    this.reserve(this.n + count);
    let out = start;
    let a = 0;
    let b = 0;
    let added = 0;
    while (a < tailT.length || b < count) {
      const i = order[b];
      if (a < tailT.length && (i === undefined || tailT[a]! <= pt[i]!)) {
        out = this.write(out, tailT[a]!, tailV[a]!, tailK?.[a] ?? 0);
        a++;
        continue;
      }
      b++;
      const key = pk[i!]!;
      if (key !== 0 && this.holds(pt[i!]!, pv[i!]!, key, out)) continue;
      out = this.write(out, pt[i!]!, pv[i!]!, key);
      added++;
    }
    this.n = out;
    return added;
  }

  /** Drops the first `count` points. */
  dropFirst(count: number): void {
    if (count <= 0) return;
    this.moves++;
    this.t.copyWithin(0, count, this.n);
    this.v.copyWithin(0, count, this.n);
    this.k?.copyWithin(0, count, this.n);
    this.n -= count;
    if (this.n < this.t.length / 4 && this.t.length > MIN_CAPACITY) this.resize(this.n * 2);
  }

  /** Whether the point is among the first `end` (merged so far). */
  private holds(time: number, value: number, key: number, end: number): boolean {
    const k = this.k;
    if (k === undefined) return false;
    for (let j = end - 1; j >= 0 && this.t[j] === time; j--)
      if (this.v[j] === value && k[j] === key) return true;
    return false;
  }

  private write(at: number, time: number, value: number, key: number): number {
    this.t[at] = time;
    this.v[at] = value;
    if (this.k) this.k[at] = key;
    return at + 1;
  }

  private reserve(n: number): void {
    if (n > this.t.length) this.resize(Math.max(n, this.t.length * 2));
  }

  private resize(capacity: number): void {
    const cap = Math.max(MIN_CAPACITY, capacity);
    const keep = Math.min(this.n, cap);
    const t = new Float64Array(cap);
    t.set(this.t.subarray(0, keep));
    const v = new Float64Array(cap);
    v.set(this.v.subarray(0, keep));
    this.t = t;
    this.v = v;
    if (this.k) {
      const k = new Uint32Array(cap);
      k.set(this.k.subarray(0, keep));
      this.k = k;
    }
  }
}

/** First index in `xs[0..n)` whose value is > `x`. */
function upperBound(xs: Float64Array, x: number, n: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
