/**
 * A cumulative native histogram as Prometheus defines it: bucket `k` of schema `s` holds
 * (2^((k-1)/2^s), 2^(k/2^s)]. Buckets are kept dense, as a measurement's values sit close together
 * (a 3.3 V rail spans a few dozen buckets at schema 8); beyond `maxBuckets` keys the resolution is
 * halved, as client_golang does.
 */
import { NATIVE_BOUNDS } from './native-bounds.ts';

/** Prometheus's schema range for exponential buckets. */
export const MIN_SCHEMA = -4;
export const MAX_SCHEMA = 8;

/** client_golang's default zero threshold (2^-128): only zero and the tiniest values go there. */
export const DEFAULT_ZERO_THRESHOLD = 2.938735877055719e-39;

/** An immutable copy of a histogram's state, for rendering. */
export interface NativeHistogramSnapshot {
  readonly schema: number;
  readonly zeroThreshold: number;
  readonly zeroCount: number;
  readonly count: number;
  readonly sum: number;
  /** Key of `positive[0]`. */
  readonly positiveOffset: number;
  /** Counts of consecutive bucket keys, zeros inside the range included. */
  readonly positive: readonly number[];
  readonly negativeOffset: number;
  readonly negative: readonly number[];
}

/** Options of {@link NativeHistogram}. */
export interface NativeHistogramOptions {
  /** Starting resolution, {@link MIN_SCHEMA} to {@link MAX_SCHEMA}: 2^schema buckets per doubling. */
  readonly schema: number;
  /** Most bucket keys the positive and negative ranges may span together (at least 2). */
  readonly maxBuckets: number;
  /** Absolute values up to this go to the zero bucket; default {@link DEFAULT_ZERO_THRESHOLD}. */
  readonly zeroThreshold?: number;
}

const scratch = new Float64Array(1);
const words = new Uint32Array(scratch.buffer);
// Little-endian on every platform Node runs on: the high word holds sign and exponent.
const HIGH = 1;

/** Go's math.Frexp for a finite positive x, into `out` to allocate nothing per observation. */
function frexp(x: number, out: { frac: number; exp: number }): void {
  let shift = 0;
  if (x < 2.2250738585072014e-308) {
    // Subnormal: scale into the normal range first.
    x *= 2 ** 64;
    shift = 64;
  }
  scratch[0] = x;
  const high = words[HIGH]!;
  out.exp = ((high >>> 20) & 0x7ff) - 1022 - shift;
  words[HIGH] = (high & 0x800fffff) | (1022 << 20);
  out.frac = scratch[0]!;
}

const parts = { frac: 0, exp: 0 };

/** The smallest index i in NATIVE_BOUNDS[from, from + n) with bound ≥ frac, relative to `from`. */
function searchBounds(from: number, n: number, frac: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (NATIVE_BOUNDS[from + mid]! < frac) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The bucket key of a finite |v| > 0, exactly as client_golang computes it (boundaries included). */
export function bucketKey(abs: number, schema: number): number {
  frexp(abs, parts);
  if (schema > 0) {
    const n = 2 ** schema;
    return searchBounds(n - 2, n, parts.frac) + (parts.exp - 1) * n;
  }
  const key = parts.frac === 0.5 ? parts.exp - 1 : parts.exp;
  const offset = (1 << -schema) - 1;
  return (key + offset) >> -schema;
}

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

/**
 * Counts of consecutive keys. Plain arrays: a typed array's ArrayBuffer is swept by every young
 * collection, and a poll copies tens of thousands of these.
 */
class Range {
  offset = 0;
  counts: number[] = [];

  get span(): number {
    return this.counts.length;
  }

  spanWith(key: number): number {
    if (this.counts.length === 0) return 1;
    const last = this.offset + this.counts.length - 1;
    return Math.max(last, key) - Math.min(this.offset, key) + 1;
  }

  add(key: number): void {
    if (this.counts.length === 0) {
      this.offset = key;
      this.counts = [0];
    } else if (key < this.offset) {
      this.counts = zeros(this.offset - key).concat(this.counts);
      this.offset = key;
    } else {
      while (key >= this.offset + this.counts.length) this.counts.push(0);
    }
    this.counts[key - this.offset]! += 1;
  }

  /** Halves the resolution: keys k merge into ⌊(k+1)/2⌋. */
  coarsen(): void {
    if (this.counts.length === 0) return;
    const from = (this.offset + 1) >> 1;
    const to = (this.offset + this.counts.length) >> 1;
    const merged = zeros(to - from + 1);
    for (let i = 0; i < this.counts.length; i++)
      merged[((this.offset + i + 1) >> 1) - from]! += this.counts[i]!;
    this.offset = from;
    this.counts = merged;
  }
}

/** A cumulative native histogram. */
export class NativeHistogram {
  private schemaNow: number;
  private readonly maxBuckets: number;
  private readonly zeroThreshold: number;
  private readonly positive = new Range();
  private readonly negative = new Range();
  private zeroCount = 0;
  private count = 0;
  private sum = 0;

  constructor(opts: NativeHistogramOptions) {
    if (!Number.isInteger(opts.schema) || opts.schema < MIN_SCHEMA || opts.schema > MAX_SCHEMA) {
      throw new RangeError(
        `schema must be an integer from ${MIN_SCHEMA} to ${MAX_SCHEMA}, not ${opts.schema}`,
      );
    }
    if (!Number.isInteger(opts.maxBuckets) || opts.maxBuckets < 2) {
      throw new RangeError(`maxBuckets must be an integer of at least 2, not ${opts.maxBuckets}`);
    }
    this.schemaNow = opts.schema;
    this.maxBuckets = opts.maxBuckets;
    this.zeroThreshold = opts.zeroThreshold ?? DEFAULT_ZERO_THRESHOLD;
  }

  /** The current schema, lowered once the bucket bound was reached. */
  get schema(): number {
    return this.schemaNow;
  }

  /** Adds one value; false for a value that is not finite (not observed). */
  observe(v: number): boolean {
    if (!Number.isFinite(v)) return false;
    this.count++;
    this.sum += v;
    if (Math.abs(v) <= this.zeroThreshold) {
      this.zeroCount++;
      return true;
    }
    const range = v > 0 ? this.positive : this.negative;
    const other = v > 0 ? this.negative : this.positive;
    let key = bucketKey(Math.abs(v), this.schemaNow);
    // Coarsen until the new key fits within the bound, both signs together.
    while (range.spanWith(key) + other.span > this.maxBuckets && this.schemaNow > MIN_SCHEMA) {
      this.positive.coarsen();
      this.negative.coarsen();
      this.schemaNow--;
      key = bucketKey(Math.abs(v), this.schemaNow);
    }
    range.add(key);
    return true;
  }

  /** A copy of the current state. */
  snapshot(): NativeHistogramSnapshot {
    return {
      schema: this.schemaNow,
      zeroThreshold: this.zeroThreshold,
      zeroCount: this.zeroCount,
      count: this.count,
      sum: this.sum,
      positiveOffset: this.positive.offset,
      positive: this.positive.counts.slice(),
      negativeOffset: this.negative.offset,
      negative: this.negative.counts.slice(),
    };
  }
}
