/**
 * The time column of a {@link SortedColumns}: epoch ms as 32-bit offsets from a base (a lane of
 * the column set's {@link Words}), 4 bytes a row instead of 8. The base moves to the oldest time
 * when a time does not fit; a span of 49 days or more, or fractions of a millisecond, switch the
 * column to doubles, so every time reads back exactly. Stored forms order like the times.
 */
import { lowerBound } from '../util/sorted.ts';
import type { Words } from './words.ts';

const SPAN = 2 ** 32;

/** Sorted times, held as offsets while they fit. */
export class TimeColumn {
  private base = 0;
  private exact: Float64Array | undefined;

  constructor(
    private readonly words: Words,
    private readonly lane: number,
  ) {}

  get(i: number): number {
    return this.exact === undefined ? this.base + this.words.get(this.lane, i) : (this.exact[i] as number);
  }

  /** The stored form of row `i` (what {@link encode} gives for its time). */
  raw(i: number): number {
    return this.exact === undefined ? this.words.get(this.lane, i) : (this.exact[i] as number);
  }

  setRaw(i: number, v: number): void {
    if (this.exact === undefined) this.words.set(this.lane, i, v);
    else this.exact[i] = v;
  }

  /** The stored form of `t`, once {@link admit} made room for it. */
  encode(t: number): number {
    return this.exact === undefined ? t - this.base : t;
  }

  /** First index of `[0, size)` whose time is `>= t`. */
  lowerBound(t: number, size: number): number {
    if (this.exact !== undefined) return lowerBound(this.exact, t, { hi: size });
    const start = this.words.laneStart(this.lane);
    return lowerBound(this.words.array, t - this.base, { lo: start, hi: start + size }) - start;
  }

  /** Makes room for times from `min` to `max` beside the `size` rows: a new base, or doubles. */
  admit(min: number, max: number, opts: { readonly size: number; readonly capacity: number }): void {
    const { size, capacity } = opts;
    // An empty column starts again with offsets.
    if (size === 0) this.exact = undefined;
    if (this.exact !== undefined) return;
    const whole = Number.isInteger(min) && Number.isInteger(max);
    if (whole && size > 0 && min >= this.base && max - this.base < SPAN) return;
    const lo = size > 0 ? Math.min(min, this.get(0)) : min;
    const hi = size > 0 ? Math.max(max, this.get(size - 1)) : max;
    if (whole && hi - lo < SPAN) this.rebase(lo, size);
    else this.toExact({ size, capacity });
  }

  /** Copies rows `[start, end)` to `target` (the lane moves with its {@link Words}). */
  copyWithin(target: number, start: number, end: number): void {
    this.exact?.copyWithin(target, start, end);
  }

  /** A copy of the stored forms of rows `[start, end)`. */
  slice(start: number, end: number): ArrayLike<number> {
    return this.exact === undefined ? this.words.slice(this.lane, start, end) : this.exact.slice(start, end);
  }

  /** Moves the first `size` rows to a column of `capacity` rows (a lane moves with its words). */
  resize(capacity: number, size: number): void {
    if (this.exact === undefined) return;
    const next = new Float64Array(capacity);
    next.set(this.exact.subarray(0, Math.min(size, capacity)));
    this.exact = next;
  }

  /** Bytes of the column's own array (its lane is counted with the {@link Words}). */
  bytes(): number {
    return this.exact?.byteLength ?? 0;
  }

  private rebase(base: number, size: number): void {
    const shift = this.base - base;
    for (let i = 0; i < size; i++) this.words.set(this.lane, i, this.words.get(this.lane, i) + shift);
    this.base = base;
  }

  private toExact({ size, capacity }: { readonly size: number; readonly capacity: number }): void {
    const exact = new Float64Array(capacity);
    for (let i = 0; i < size; i++) exact[i] = this.get(i);
    this.exact = exact;
  }
}
