/**
 * A baseline as time-bucketed sufficient statistics ({@link BaselineSums}) plus each bucket's
 * first and last value, so the moving range across a bucket boundary is added when buckets are
 * summed: summing a baseline's buckets gives exactly the sums of its points. A bucket costs
 * {@link FIELDS} numbers; docs/measurements.md states what the bucket edge moves.
 */
import { addPair, addPoint, type BaselineSums, emptySums, type Pair } from './limits.ts';

/** Buckets in one rolling baseline: its edge moves by whole buckets (a rolling 7d: 2 hours each). */
export const BUCKETS_PER_BASELINE = 84;

// Fields of one bucket in the ring.
const K = 0;
const N = 1;
const SUM = 2;
const SQUARES = 3;
const PAIRS = 4;
const MR = 5;
const LAGGED = 6;
const BEFORE = 7;
const AFTER = 8;
const MAX_ABS = 9;
const STEP = 10;
const FIRST = 11;
const LAST = 12;
/** 1 when the bucket's first point pairs with the point added before it (no gap between). */
const JOINED = 13;
const CUBES = 14;
const QUARTICS = 15;
const FIELDS = 16;
/** Fewest points of a bucket whose skewness enters the baseline's median skewness. */
const SKEW_BUCKET_POINTS = 20;

/** Sums of a baseline collected in time order; a gap ends a segment (no moving range spans it). */
export class BaselineCollector {
  readonly sums: BaselineSums = emptySums();
  private readonly pair: Pair = { x: 0, y: 0, prev: Number.NaN, py: 0 };

  /** @param anchor The value the deviations are taken from (the chart's first point). */
  constructor(private anchor: number) {}

  /** Empties the sums for a new baseline (one collector serves many charts). */
  reset(anchor: number): this {
    clearSums(this.sums);
    this.pair.prev = Number.NaN;
    this.anchor = anchor;
    return this;
  }

  /** Adds one point after the ones collected so far. */
  point(x: number): void {
    const y = x - this.anchor;
    addPoint(this.sums, x, y);
    this.join(x, y);
  }

  /** Ends the segment: the next point has no neighbour before it. */
  gap(): void {
    this.pair.prev = Number.NaN;
  }

  /** Adds sums collected before, whose last point was `last` (NaN: none, or a gap). */
  merge(sums: Readonly<BaselineSums>, last: number): void {
    const s = this.sums;
    s.n += sums.n;
    s.sum += sums.sum;
    s.squares += sums.squares;
    s.cubes += sums.cubes;
    s.quartics += sums.quartics;
    s.bucketSkewness = sums.bucketSkewness;
    s.skewBuckets = sums.skewBuckets;
    s.bucketKurtosis = sums.bucketKurtosis;
    s.bucketPoints = sums.bucketPoints;
    s.pairs += sums.pairs;
    s.mrSum += sums.mrSum;
    s.lagged += sums.lagged;
    s.lagBefore += sums.lagBefore;
    s.lagAfter += sums.lagAfter;
    s.maxAbs = Math.max(s.maxAbs, sums.maxAbs);
    s.step = Math.min(s.step, sums.step);
    this.pair.prev = last;
  }

  /** The last point collected, NaN after a gap or before any. */
  get last(): number {
    return this.pair.prev;
  }

  /** Adds the bucket of `ring` at `at`. */
  bucket(ring: Float64Array, at: number): void {
    const first = ring[at + FIRST]!;
    if (ring[at + JOINED] === 1) this.join(first, first - this.anchor);
    const s = this.sums;
    s.n += ring[at + N]!;
    s.sum += ring[at + SUM]!;
    s.squares += ring[at + SQUARES]!;
    s.cubes += ring[at + CUBES]!;
    s.quartics += ring[at + QUARTICS]!;
    s.pairs += ring[at + PAIRS]!;
    s.mrSum += ring[at + MR]!;
    s.lagged += ring[at + LAGGED]!;
    s.lagBefore += ring[at + BEFORE]!;
    s.lagAfter += ring[at + AFTER]!;
    s.maxAbs = Math.max(s.maxAbs, ring[at + MAX_ABS]!);
    s.step = Math.min(s.step, ring[at + STEP]!);
    this.pair.prev = ring[at + LAST]!;
  }

  private join(x: number, y: number): void {
    const p = this.pair;
    if (!Number.isNaN(p.prev)) {
      p.x = x;
      p.y = y;
      p.py = p.prev - this.anchor;
      addPair(this.sums, p);
    }
    p.prev = x;
  }
}

/** Empties `s` in place (no new object per chart and poll). */
function clearSums(s: BaselineSums): void {
  s.n = 0;
  s.sum = 0;
  s.squares = 0;
  s.cubes = 0;
  s.quartics = 0;
  s.bucketSkewness = Number.NaN;
  s.skewBuckets = 0;
  s.bucketKurtosis = Number.NaN;
  s.bucketPoints = 0;
  s.pairs = 0;
  s.mrSum = 0;
  s.lagged = 0;
  s.lagBefore = 0;
  s.lagAfter = 0;
  s.maxAbs = 0;
  s.step = Number.POSITIVE_INFINITY;
}

/** Where a bucket grid starts and how wide its buckets are. */
export interface Grid {
  /** Start of bucket 0, Unix ms. */
  readonly originMs: number;
  readonly widthMs: number;
}

/** A grid and how many of its buckets a ring holds (older ones are overwritten). */
export interface BucketGrid extends Grid {
  readonly capacity: number;
}

function bucketOf(grid: Grid, t: number): number {
  return Math.floor((t - grid.originMs) / grid.widthMs);
}

/**
 * The first bucket whose midpoint is after `t`: a rolling baseline that starts after `t` takes
 * the buckets from there on, so its start moves by at most half a bucket either way.
 */
export function firstBucketAfter(grid: Grid, t: number): number {
  return Math.floor((t - grid.originMs) / grid.widthMs - 0.5) + 1;
}

/** A ring of time buckets of sufficient statistics, filled in time order. */
export class BaselineBuckets {
  private readonly ring: Float64Array;
  private newest = Number.NEGATIVE_INFINITY;
  /** Bumped by every push and gap: the sums are the same while it stays. */
  private changes = 0;
  /** The last point pushed, NaN after a gap (the next point then starts a segment). */
  private prev = Number.NaN;
  private readonly pair: Pair = { x: 0, y: 0, prev: Number.NaN, py: 0 };
  private readonly scratch: BaselineSums = emptySums();
  /** The sums of the buckets `[from, to)` (`to` the newest then), and the last point among them. */
  private cache: { from: number; to: number; sums: BaselineSums; last: number } | undefined;

  constructor(
    private readonly grid: BucketGrid,
    private readonly anchor: number,
  ) {
    this.ring = new Float64Array(grid.capacity * FIELDS).fill(Number.NaN);
  }

  /** Bytes of the ring. */
  get bytes(): number {
    return this.ring.byteLength;
  }

  /** Changes with every point or gap pushed. */
  get version(): number {
    return this.changes;
  }

  /** Adds `x` at `t`, no older than the points pushed before. */
  push(t: number, x: number): void {
    this.changes++;
    const k = bucketOf(this.grid, t);
    const at = (((k % this.grid.capacity) + this.grid.capacity) % this.grid.capacity) * FIELDS;
    const r = this.ring;
    const y = x - this.anchor;
    if (r[at + K] !== k) {
      r.fill(0, at, at + FIELDS);
      r[at + K] = k;
      r[at + STEP] = Number.POSITIVE_INFINITY;
      r[at + FIRST] = x;
      r[at + JOINED] = Number.isNaN(this.prev) ? 0 : 1;
      this.newest = Math.max(this.newest, k);
    } else if (!Number.isNaN(this.prev)) {
      this.pushPair(at, x, y);
    }
    r[at + N]! += 1;
    r[at + SUM]! += y;
    r[at + SQUARES]! += y * y;
    r[at + CUBES]! += y * y * y;
    r[at + QUARTICS]! += y * y * y * y;
    r[at + MAX_ABS] = Math.max(r[at + MAX_ABS]!, Math.abs(x));
    r[at + LAST] = x;
    this.prev = x;
  }

  /** Ends the segment (a gap). */
  gap(): void {
    this.changes++;
    this.prev = Number.NaN;
  }

  /**
   * Collects the buckets from `fromBucket` on into `into`, oldest first. The sums of the buckets
   * before the newest are kept between calls: a poll adds two buckets' worth, not the ring's.
   */
  collect(fromBucket: number, into: BaselineCollector): void {
    const from = Math.max(fromBucket, this.newest - this.grid.capacity + 1);
    const cached = this.cache;
    if (cached === undefined || cached.from !== from || cached.to !== this.newest) {
      // New buckets started since: they join the kept sums.
      const resume =
        cached !== undefined && cached.from === from && cached.to < this.newest && cached.to >= from;
      const older = new BaselineCollector(this.anchor);
      if (resume) older.merge(cached.sums, cached.last);
      for (let k = resume ? cached.to : from; k < this.newest; k++) this.collectOne(k, older);
      this.skewnessOf(from, older.sums);
      this.cache = { from, to: this.newest, sums: older.sums, last: older.last };
    }
    const c = this.cache!;
    into.merge(c.sums, c.last);
    if (this.newest >= from) this.collectOne(this.newest, into);
    if (Number.isNaN(this.prev)) into.gap();
  }

  /** Median skewness and excess kurtosis of the whole buckets before the newest, set into `sums`. */
  private skewnessOf(from: number, sums: BaselineSums): void {
    const cap = this.grid.capacity;
    const skews: number[] = [];
    const kurts: number[] = [];
    let points = 0;
    const shape = { skewness: 0, kurtosis: 0 };
    for (let k = from; k < this.newest; k++) {
      const at = (((k % cap) + cap) % cap) * FIELDS;
      if (this.ring[at + K] !== k || !bucketShape(this.ring, at, shape)) continue;
      skews.push(shape.skewness);
      kurts.push(shape.kurtosis);
      points += this.ring[at + N]!;
    }
    sums.skewBuckets = skews.length;
    sums.bucketSkewness = medianOf(skews);
    sums.bucketKurtosis = medianOf(kurts);
    sums.bucketPoints = skews.length === 0 ? 0 : points / skews.length;
  }

  private collectOne(k: number, into: BaselineCollector): void {
    const cap = this.grid.capacity;
    const at = (((k % cap) + cap) % cap) * FIELDS;
    if (this.ring[at + K] === k && this.ring[at + N]! > 0) into.bucket(this.ring, at);
  }

  /** The moving range and lag-1 products of a pair inside one bucket. */
  private pushPair(at: number, x: number, y: number): void {
    const p = this.pair;
    const s = this.scratch;
    p.x = x;
    p.y = y;
    p.prev = this.prev;
    p.py = this.prev - this.anchor;
    s.pairs = 0;
    s.mrSum = 0;
    s.lagged = 0;
    s.lagBefore = 0;
    s.lagAfter = 0;
    s.step = Number.POSITIVE_INFINITY;
    addPair(s, p);
    const r = this.ring;
    r[at + PAIRS]! += 1;
    r[at + MR]! += s.mrSum;
    r[at + LAGGED]! += s.lagged;
    r[at + BEFORE]! += s.lagBefore;
    r[at + AFTER]! += s.lagAfter;
    r[at + STEP] = Math.min(r[at + STEP]!, s.step);
  }
}

/** The skewness and excess kurtosis of the bucket at `at`; false when too few points or no spread. */
function bucketShape(ring: Float64Array, at: number, out: { skewness: number; kurtosis: number }): boolean {
  const n = ring[at + N]!;
  if (n < SKEW_BUCKET_POINTS) return false;
  const m = ring[at + SUM]! / n;
  const e2 = ring[at + SQUARES]! / n;
  const e3 = ring[at + CUBES]! / n;
  const m2 = e2 - m * m;
  if (!(m2 > 0)) return false;
  const m3 = e3 - 3 * m * e2 + 2 * m ** 3;
  const m4 = ring[at + QUARTICS]! / n - 4 * m * e3 + 6 * m * m * e2 - 3 * m ** 4;
  out.skewness = m3 / m2 ** 1.5;
  out.kurtosis = m4 / (m2 * m2) - 3;
  return Number.isFinite(out.skewness) && Number.isFinite(out.kurtosis);
}

/** The median of `values` (sorted in place); NaN when empty. */
function medianOf(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}
