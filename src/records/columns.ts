/**
 * A time-sorted record column set: a record costs a few bytes of typed arrays, not an object.
 * Times are 32-bit offsets ({@link TimeColumn}), serials a hash ({@link SerialForm}), the
 * first columns exact doubles, the last `repeated` held once per distinct combination
 * ({@link RepeatedColumns}). Capacity grows by a sixteenth and shrinks back on eviction.
 */
import { RepeatedColumns } from './repeated.ts';
import { SerialColumn, type SerialForm, type SerialKey } from './serials.ts';
import { TimeColumn } from './time-column.ts';
import { Words } from './words.ts';

export type { SerialForm, SerialKey } from './serials.ts';

/** Records to merge, read by index: no object per record (first-poll garbage). */
export interface RowBatch {
  readonly length: number;
  time(j: number): number;
  serial(j: number): string;
  /** Column `c` of row `j`; NaN for "none". */
  value(j: number, c: number): number;
}

/** How a {@link SortedColumns} holds what is not a double. */
export interface ColumnOptions<S extends SerialForm> {
  /** How serials are hashed (default `hash53`). */
  readonly serials?: S;
  /** How many of the last columns repeat from row to row: held once per distinct combination. */
  readonly repeated?: number;
}

const MIN_CAPACITY = 4;

/** Rows in their stored form: the held tail being merged, or an encoded batch. */
interface Stored {
  readonly length: number;
  readonly times: ArrayLike<number>;
  readonly keys: ArrayLike<SerialKey>;
  readonly exact: readonly ArrayLike<number>[];
  /** Codes of the repeated columns; undefined when all are 0. */
  readonly codes: ArrayLike<number> | undefined;
}

/** The stored form of no rows. */
const NO_ROWS: Stored = { length: 0, times: [], keys: [], exact: [], codes: undefined };

/**
 * Room for the encoded batch of the merge under way, shared by every column set: a first poll
 * makes hundreds of thousands of tiny merges, and arrays per merge were much of a store's
 * garbage. Safe because a merge never yields and reads its batch before calling anyone back.
 */
class BatchRoom {
  #rows = 0;
  #times = new Float64Array(0);
  #keys: SerialKey[] = [];
  #exact: Float64Array[] = [];
  #codes = new Uint32Array(0);
  #row = new Float64Array(0);

  take(n: number, widths: { readonly exact: number; readonly all: number }) {
    if (n > this.#rows) {
      this.#rows = Math.max(n, 2 * this.#rows, 64);
      this.#times = new Float64Array(this.#rows);
      this.#codes = new Uint32Array(this.#rows);
      this.#exact = this.#exact.map(() => new Float64Array(this.#rows));
    }
    while (this.#exact.length < widths.exact) this.#exact.push(new Float64Array(this.#rows));
    if (this.#row.length < widths.all) this.#row = new Float64Array(widths.all);
    // A batch's serial keys are all written before they are read: no need to clear them.
    return { times: this.#times, keys: this.#keys, exact: this.#exact, codes: this.#codes, row: this.#row };
  }
}

const batchRoom = new BatchRoom();

/** Rows sorted by (time, serial). The first `keyWidth` columns, time and serial identify a record. */
export class SortedColumns<S extends SerialForm = 'hash53'> {
  private readonly words: Words;
  private readonly times: TimeColumn;
  private readonly serials: SerialColumn;
  private exact: Float64Array[];
  private readonly repeated: RepeatedColumns;
  private readonly exactWidth: number;
  private capacity = MIN_CAPACITY;
  private size = 0;

  constructor(
    readonly width: number,
    readonly keyWidth: number,
    opts: ColumnOptions<S> = {},
  ) {
    const repeated = opts.repeated ?? 0;
    if (!(repeated >= 0 && repeated <= width))
      throw new RangeError('repeated columns must be within the width');
    const serials = opts.serials ?? 'hash53';
    this.exactWidth = width - repeated;
    // Lane 0 holds the times, the next one or two the serials.
    this.words = new Words(serials === 'hash32' ? 2 : 3, MIN_CAPACITY);
    this.times = new TimeColumn(this.words, 0);
    this.serials = new SerialColumn(serials, this.words);
    this.exact = Array.from({ length: this.exactWidth }, () => new Float64Array(MIN_CAPACITY));
    this.repeated = new RepeatedColumns(repeated);
  }

  /** Rows held. */
  get length(): number {
    return this.size;
  }

  time(i: number): number {
    return this.times.get(i);
  }

  /** What row `i` holds for its serial: equal for equal serials (see {@link SerialForm}). */
  serialKey(i: number): SerialKey {
    return this.serials.get(i);
  }

  value(col: number, i: number): number {
    if (col < this.exactWidth) return this.exact[col]?.[i] ?? Number.NaN;
    return this.repeated.value(col - this.exactWidth, i);
  }

  /** First index whose time is >= `t` (`length` when none). */
  lowerBound(t: number): number {
    return this.times.lowerBound(t, this.size);
  }

  /** Index range `[start, end)` of the rows with `from <= time < to`. */
  range(from: number, to: number): [number, number] {
    return [this.lowerBound(from), this.lowerBound(to)];
  }

  /** Drops every row older than `t`; returns how many were dropped. */
  evictBefore(t: number): number {
    const cut = this.lowerBound(t);
    if (cut === 0) return 0;
    this.words.copyWithin(0, cut, this.size);
    this.times.copyWithin(0, cut, this.size);
    for (const c of this.exact) c.copyWithin(0, cut, this.size);
    this.repeated.copyWithin(0, cut, this.size);
    this.size -= cut;
    this.repeated.compact(this.size);
    // Memory follows what the windows hold: shrink once an eighth of the capacity is unused.
    if (this.capacity > this.size + (this.size >> 3) + MIN_CAPACITY) this.resize(roomFor(this.size));
    return cut;
  }

  /**
   * Merges rows in order; a row equal to a held one on time, serial and key columns updates it.
   * `onNew` hears the batch index of each new row after the merge, in batch order (a repeat: its
   * first). Returns the number of rows added.
   */
  merge(rows: RowBatch, onNew?: (index: number) => void): number {
    if (rows.length === 0) return 0;
    const { batch, min } = this.encode(rows);
    // Only the tail from the batch's first time on can interleave; everything before stays put.
    const start = this.lowerBound(min);
    // Most batches only append: then there is no tail to copy out.
    const tail = start === this.size ? NO_ROWS : this.storedSlice(start, this.size);
    this.reserve(this.size + rows.length);
    const placedNew: number[] = [];
    const order = orderOf(batch);
    const out = this.interleave(start, tail, { rows: batch, order, placedNew });
    const added = out - this.size;
    this.size = out;
    // Placed in time order: that is batch order unless the batch came out of order.
    if (order) placedNew.sort((x, y) => x - y);
    // After the merge, when the batch room is no longer read: a callback may merge too.
    if (onNew) for (const j of placedNew) onNew(j);
    return added;
  }

  /**
   * Writes the held `tail` and the batch's rows in order from `start`; returns the next free index.
   * New records go to `placedNew` (equal keys in batch order: a repeat is new at its first index).
   */
  private interleave(
    start: number,
    tail: Stored,
    batch: {
      readonly rows: Stored;
      /** The batch's row indexes in order; undefined when the batch is in order already. */
      readonly order: readonly number[] | undefined;
      readonly placedNew: number[];
    },
  ): number {
    const { rows, order, placedNew } = batch;
    let out = start;
    let a = 0;
    let b = 0;
    while (a < tail.length || b < rows.length) {
      const j = b < rows.length ? (order?.[b] ?? b) : undefined;
      if (a < tail.length && (j === undefined || compareStored(tail, a, { rows, j }) <= 0)) {
        out = this.place(out, tail, a);
        a++;
      } else if (j !== undefined) {
        const next = this.place(out, rows, j);
        if (next > out) placedNew.push(j);
        out = next;
        b++;
      }
    }
    return out;
  }

  /** Bytes of the typed arrays. */
  bytes(): number {
    let n = this.words.bytes() + this.times.bytes() + this.repeated.bytes();
    for (const c of this.exact) n += c.byteLength;
    return n;
  }

  /** The batch in stored form, once the time column can hold its times. */
  private encode(rows: RowBatch): { readonly batch: Stored; readonly min: number } {
    const n = rows.length;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < n; j++) {
      const t = rows.time(j);
      if (t < min) min = t;
      if (t > max) max = t;
    }
    this.times.admit(min, max, { size: this.size, capacity: this.capacity });
    const { times, keys, exact, codes, row } = batchRoom.take(n, { exact: this.exactWidth, all: this.width });
    for (let j = 0; j < n; j++) {
      times[j] = this.times.encode(rows.time(j));
      keys[j] = this.serials.keyOf(rows.serial(j));
      for (let c = 0; c < this.width; c++) row[c] = rows.value(j, c);
      for (let c = 0; c < this.exactWidth; c++) (exact[c] as Float64Array)[j] = row[c] as number;
      codes[j] = this.repeated.intern(row, this.exactWidth);
    }
    return { batch: { length: n, times, keys, exact, codes }, min };
  }

  private storedSlice(start: number, end: number): Stored {
    return {
      length: end - start,
      times: this.times.slice(start, end),
      keys: this.serials.slice(start, end),
      exact: this.exact.map((c) => c.slice(start, end)),
      codes: this.repeated.slice(start, end),
    };
  }

  /**
   * Writes row `j` of `src` at `out`, or over the same record already written (later answers win,
   * e.g. corrected limits). Returns the next free index.
   */
  private place(out: number, src: Stored, j: number): number {
    const time = src.times[j] as number;
    const key = src.keys[j] as SerialKey;
    let at = out;
    for (let k = out - 1; k >= 0 && this.times.raw(k) === time; k--) {
      if (this.serials.get(k) === key && this.sameKey(k, { rows: src, j })) {
        at = k;
        break;
      }
    }
    this.times.setRaw(at, time);
    this.serials.set(at, key);
    for (let c = 0; c < this.exactWidth; c++)
      (this.exact[c] as Float64Array)[at] = src.exact[c]?.[j] as number;
    this.repeated.setCode(at, src.codes?.[j] ?? 0, this.capacity);
    return at === out ? out + 1 : out;
  }

  private sameKey(i: number, { rows, j }: { readonly rows: Stored; readonly j: number }): boolean {
    const held = this.repeated.code(i);
    const code = rows.codes?.[j] ?? 0;
    for (let c = 0; c < this.keyWidth; c++) {
      const same =
        c < this.exactWidth
          ? Object.is(this.exact[c]?.[i], rows.exact[c]?.[j])
          : held === code ||
            Object.is(
              this.repeated.valueOf(held, c - this.exactWidth),
              this.repeated.valueOf(code, c - this.exactWidth),
            );
      if (!same) return false;
    }
    return true;
  }

  private reserve(n: number): void {
    if (n > this.capacity) this.resize(roomFor(n));
  }

  private resize(capacity: number): void {
    const cap = Math.max(MIN_CAPACITY, capacity);
    this.words.resize(cap, this.size);
    this.times.resize(cap, this.size);
    this.exact = this.exact.map((old) => {
      const next = new Float64Array(cap);
      next.set(old.subarray(0, Math.min(this.size, cap)));
      return next;
    });
    this.repeated.resize(cap, this.size);
    this.capacity = cap;
  }
}

/** Capacity for `n` rows: a sixteenth more, so that growth is amortised and the slack stays small. */
function roomFor(n: number): number {
  return n + (n >> 4) + MIN_CAPACITY;
}

/** Order of rows: by time, then serial key, so that equal times sort the same in every process. */
function compareStored(
  x: Stored,
  i: number,
  { rows: y, j }: { readonly rows: Stored; readonly j: number },
): number {
  const dt = (x.times[i] as number) - (y.times[j] as number);
  if (dt !== 0) return dt;
  return (x.keys[i] as SerialKey) - (y.keys[j] as SerialKey);
}

/** The batch's row indexes in order, or undefined when already in order (most are). */
function orderOf(batch: Stored): number[] | undefined {
  let sorted = true;
  for (let j = 1; j < batch.length && sorted; j++)
    sorted = compareStored(batch, j - 1, { rows: batch, j }) <= 0;
  if (sorted) return undefined;
  const order = Array.from({ length: batch.length }, (_, i) => i);
  return order.sort((i, j) => compareStored(batch, i, { rows: batch, j }) || i - j);
}
