/**
 * A compact, time-sorted record column set: one Float64Array per numeric column plus the
 * serials, so that a record costs a few machine words instead of a JavaScript object.
 * Windows are found by binary search; eviction and merging move typed-array slices.
 */
import { lowerBound } from '../util/sorted.ts';

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
    return lowerBound(this.times, t, { hi: this.size });
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
    const batch = rows.length === 1 || isSorted(rows) ? rows : [...rows].sort(compareRows);
    // Only the tail from the batch's first time on can interleave; everything before stays put.
    const start = this.lowerBound(batch[0]?.time ?? 0);
    // The tail is copied out as columns (no object per held row), then merged back in place.
    const tailLength = this.size - start;
    const tailTimes = this.times.slice(start, this.size);
    const tailSerials = this.serials.slice(start, this.size);
    const tailCols = this.cols.map((c) => c.slice(start, this.size));
    this.reserve(this.size + batch.length);
    // One scratch row, refilled per row written: no object or closure per record.
    const row = new Float64Array(this.width);
    // And one scratch key for the held rows, refilled likewise.
    const held = { time: 0, serial: '' };
    let out = start;
    let a = 0;
    let b = 0;
    while (a < tailLength || b < batch.length) {
      const tb = batch[b];
      if (
        a < tailLength &&
        (tb === undefined || compareKeys(tailTimes[a] ?? 0, tailSerials[a] ?? '', tb) <= 0)
      ) {
        for (let c = 0; c < this.width; c++) row[c] = tailCols[c]?.[a] ?? Number.NaN;
        held.time = tailTimes[a] ?? 0;
        held.serial = tailSerials[a] ?? '';
        out = this.place(out, held, row);
        a++;
      } else if (tb !== undefined) {
        for (let c = 0; c < this.width; c++) row[c] = tb.values[c] ?? Number.NaN;
        out = this.place(out, tb, row);
        b++;
      }
    }
    const added = out - this.size;
    this.size = out;
    this.serials.length = this.size;
    return added;
  }

  /**
   * Writes a row at `out` unless a row of the same time already written from `start` on is
   * the same record, which it then overwrites: later answers win for the columns outside
   * the key (e.g. corrected limits). Returns the next free index.
   */
  private place(
    out: number,
    key: { readonly time: number; readonly serial: string },
    row: Float64Array,
  ): number {
    const { time, serial } = key;
    let at = out;
    for (let k = out - 1; k >= 0 && this.times[k] === time; k--) {
      if (this.serials[k] === serial && this.sameKey(k, row)) {
        at = k;
        break;
      }
    }
    this.times[at] = time;
    this.serials[at] = serial;
    for (let c = 0; c < this.cols.length; c++) (this.cols[c] as Float64Array)[at] = row[c] ?? Number.NaN;
    return at === out ? out + 1 : out;
  }

  private sameKey(i: number, row: Float64Array): boolean {
    for (let c = 0; c < this.keyWidth; c++) if (!Object.is(this.cols[c]?.[i], row[c])) return false;
    return true;
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
  return compareKeys(x.time, x.serial, y);
}

function compareKeys(time: number, serial: string, y: Row): number {
  if (time !== y.time) return time - y.time;
  return serial < y.serial ? -1 : serial > y.serial ? 1 : 0;
}

/** A batch is often in order already: checking is cheaper than copying and sorting it. */
function isSorted(rows: readonly Row[]): boolean {
  for (let i = 1; i < rows.length; i++) if (compareRows(rows[i - 1] as Row, rows[i] as Row) > 0) return false;
  return true;
}
