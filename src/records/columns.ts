/**
 * A compact, time-sorted record column set: one Float64Array per numeric column plus the
 * serials, so that a record costs a few machine words instead of a JavaScript object.
 * Windows are found by binary search; eviction and merging move typed-array slices.
 */

/** One record to merge: its time, unit serial and numeric columns (NaN for "none"). */
export interface Row {
  readonly time: number;
  readonly serial: string;
  readonly values: readonly number[];
}

const MIN_CAPACITY = 8;

/** Rows sorted by (time, serial). The first `keyWidth` columns, time and serial identify a record. */
export class SortedColumns {
  private times = new Float64Array(MIN_CAPACITY);
  private serials: string[] = [];
  private cols: Float64Array[];
  private size = 0;

  constructor(
    readonly width: number,
    readonly keyWidth: number,
  ) {
    this.cols = Array.from({ length: width }, () => new Float64Array(MIN_CAPACITY));
  }

  /** Number of rows held. */
  get length(): number {
    return this.size;
  }

  time(i: number): number {
    return this.times[i] ?? Number.NaN;
  }

  serial(i: number): string {
    return this.serials[i] ?? '';
  }

  value(col: number, i: number): number {
    return this.cols[col]?.[i] ?? Number.NaN;
  }

  /** First index whose time is >= `t` (`length` when none). */
  lowerBound(t: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] ?? 0) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index range `[start, end)` of the rows with `from <= time < to`. */
  range(from: number, to: number): [number, number] {
    return [this.lowerBound(from), this.lowerBound(to)];
  }

  /** Drops every row older than `t`; returns how many were dropped. */
  evictBefore(t: number): number {
    const cut = this.lowerBound(t);
    if (cut === 0) return 0;
    this.times.copyWithin(0, cut, this.size);
    for (const c of this.cols) c.copyWithin(0, cut, this.size);
    this.serials.splice(0, cut);
    this.size -= cut;
    // Memory follows what the windows hold: shrink once the rows use under a quarter of it.
    if (this.size < this.times.length / 4 && this.times.length > MIN_CAPACITY) this.resize(this.size * 2);
    return cut;
  }

  /**
   * Merges rows in, keeping the order. A row whose time, serial and key columns equal a
   * held row's is the same record seen again: its other columns are updated, it is not
   * added twice. Returns the number of rows added.
   */
  merge(rows: readonly Row[]): number {
    if (rows.length === 0) return 0;
    const batch = [...rows].sort(compareRows);
    // Only the tail from the batch's first time on can interleave; everything before stays put.
    const start = this.lowerBound(batch[0]?.time ?? 0);
    const tail: Row[] = [];
    for (let i = start; i < this.size; i++) tail.push(this.rowAt(i));
    const merged: Row[] = [];
    let a = 0;
    let b = 0;
    while (a < tail.length || b < batch.length) {
      const ta = tail[a];
      const tb = batch[b];
      if (ta !== undefined && (tb === undefined || compareRows(ta, tb) <= 0)) {
        this.push(merged, ta);
        a++;
      } else if (tb !== undefined) {
        this.push(merged, tb);
        b++;
      }
    }
    this.reserve(start + merged.length);
    for (let k = 0; k < merged.length; k++) this.write(start + k, merged[k] as Row);
    const added = start + merged.length - this.size;
    this.size = start + merged.length;
    this.serials.length = this.size;
    return added;
  }

  /** Appends `row` unless a row of the same time already written is the same record. */
  private push(out: Row[], row: Row): void {
    for (let k = out.length - 1; k >= 0; k--) {
      const prev = out[k];
      if (prev === undefined || prev.time !== row.time) break;
      if (this.sameRecord(prev, row)) {
        // Later answers win for the columns outside the key (e.g. corrected limits).
        out[k] = row;
        return;
      }
    }
    out.push(row);
  }

  private sameRecord(x: Row, y: Row): boolean {
    if (x.serial !== y.serial) return false;
    for (let c = 0; c < this.keyWidth; c++) if (!Object.is(x.values[c], y.values[c])) return false;
    return true;
  }

  private rowAt(i: number): Row {
    return {
      time: this.times[i] ?? 0,
      serial: this.serials[i] ?? '',
      values: this.cols.map((c) => c[i] ?? Number.NaN),
    };
  }

  private write(i: number, row: Row): void {
    this.times[i] = row.time;
    this.serials[i] = row.serial;
    this.cols.forEach((c, k) => {
      c[i] = row.values[k] ?? Number.NaN;
    });
  }

  private reserve(n: number): void {
    if (n > this.times.length) this.resize(Math.max(n, this.times.length * 2));
  }

  private resize(capacity: number): void {
    const cap = Math.max(MIN_CAPACITY, capacity);
    const grow = (old: Float64Array) => {
      const next = new Float64Array(cap);
      next.set(old.subarray(0, Math.min(this.size, cap)));
      return next;
    };
    this.times = grow(this.times);
    this.cols = this.cols.map(grow);
  }
}

/** Order of rows: by time, then serial, so that equal times sort the same in every process. */
function compareRows(x: Row, y: Row): number {
  if (x.time !== y.time) return x.time - y.time;
  return x.serial < y.serial ? -1 : x.serial > y.serial ? 1 : 0;
}
