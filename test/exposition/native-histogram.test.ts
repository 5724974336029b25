import { describe, expect, it } from 'vitest';
import { splitmix64Fast } from '../../bench/spc/splitmix-fast.ts';
import { NATIVE_BOUNDS } from '../../src/exposition/native-bounds.ts';
import {
  bucketKey,
  DEFAULT_ZERO_THRESHOLD,
  MAX_SCHEMA,
  MIN_SCHEMA,
  NativeHistogram,
  type NativeHistogramSnapshot,
} from '../../src/exposition/native-histogram.ts';
import { bucketUpperBound } from '../helpers/native-buckets.ts';

/** Bucket counts by key of one sign, from a snapshot's dense counts. */
function counts(offset: number, dense: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  dense.forEach((c, i) => {
    if (c > 0) out.set(offset + i, c);
  });
  return out;
}

/** The bucket of |v| by the definition: the k with bound(k-1) < |v| <= bound(k), searched linearly. */
function bucketByDefinition(abs: number, schema: number): number {
  let k = Math.floor(Math.log2(abs) * 2 ** schema) - 2;
  while (bucketUpperBound(k, schema) < abs) k++;
  while (bucketUpperBound(k - 1, schema) >= abs) k--;
  return k;
}

describe('NATIVE_BOUNDS', () => {
  it('holds 2^(j/2^s - 1) for schemas 1 to 8, each within 4 ulp of Math.pow (itself within an ulp or two)', () => {
    expect(NATIVE_BOUNDS).toHaveLength(510);
    for (let s = 1; s <= 8; s++) {
      const n = 2 ** s;
      for (let j = 0; j < n; j++) {
        const b = NATIVE_BOUNDS[n - 2 + j]!;
        expect(Math.abs(b - 2 ** (j / n - 1))).toBeLessThanOrEqual(4 * 2 ** -53);
      }
    }
  });

  it('keeps the doubles of Prometheus, not the correctly rounded ones (sqrt(1/2) one ulp low)', () => {
    // Prometheus's exponentialBounds has 0.7071067811865475; Math.SQRT1_2 is 0.7071067811865476.
    expect(NATIVE_BOUNDS[0 + 1]).toBe(0.7071067811865475);
    expect(NATIVE_BOUNDS[0 + 1]).not.toBe(Math.SQRT1_2);
  });
});

describe('bucketKey', () => {
  it('puts random values of many magnitudes in the bucket the boundaries define, for every schema', () => {
    const random = splitmix64Fast(24);
    for (let schema = MIN_SCHEMA; schema <= MAX_SCHEMA; schema++) {
      for (let i = 0; i < 400; i++) {
        const v = 2 ** (random.uniform() * 60 - 30);
        expect(bucketKey(v, schema)).toBe(bucketByDefinition(v, schema));
      }
    }
  });

  it('puts a value exactly on a boundary in the bucket it closes (upper bounds are inclusive)', () => {
    for (let schema = MIN_SCHEMA; schema <= MAX_SCHEMA; schema++) {
      for (const k of [-300, -17, -1, 0, 1, 5, 64, 257, 1000]) {
        const bound = bucketUpperBound(k, schema);
        if (!Number.isFinite(bound) || bound === 0) continue;
        expect(bucketKey(bound, schema)).toBe(k);
      }
    }
  });

  it('matches the examples of the native histogram specification', () => {
    // Schema 0: buckets (0.5, 1], (1, 2], (2, 4]: keys 0, 1, 2.
    expect([1, 1.5, 2, 3, 4, 0.75].map((v) => bucketKey(v, 0))).toEqual([0, 1, 1, 2, 2, 0]);
    // Schema 3: 8 buckets per doubling; 3.3 is in (2^(13/8), 2^(14/8)] = (3.08, 3.36].
    expect(bucketKey(3.3, 3)).toBe(14);
    // Schema -1: buckets (1, 4], (4, 16].
    expect([2, 4, 5, 16].map((v) => bucketKey(v, -1))).toEqual([1, 1, 2, 2]);
  });
});

describe('NativeHistogram', () => {
  it('counts values, their sum, zeros and both signs', () => {
    const h = new NativeHistogram({ schema: 0, maxBuckets: 100 });
    for (const v of [1, 1.5, 3, -3, 0, -0, 1e-40]) h.observe(v);
    expect(h.observe(Number.NaN)).toBe(false);
    expect(h.observe(Number.POSITIVE_INFINITY)).toBe(false);
    const s = h.snapshot();
    expect(s.count).toBe(7);
    expect(s.sum).toBeCloseTo(2.5, 12);
    expect(s.zeroCount).toBe(3);
    expect(s.zeroThreshold).toBe(DEFAULT_ZERO_THRESHOLD);
    expect(counts(s.positiveOffset, s.positive)).toEqual(
      new Map([
        [0, 1],
        [1, 1],
        [2, 1],
      ]),
    );
    expect(counts(s.negativeOffset, s.negative)).toEqual(new Map([[2, 1]]));
  });

  it('halves the resolution when the buckets would span more than the bound, as if observed at the lower schema', () => {
    const random = splitmix64Fast(7);
    const values = Array.from(
      { length: 2000 },
      () => (random.uniform() < 0.1 ? -1 : 1) * 3.3 * 2 ** random.normal(),
    );
    const h = new NativeHistogram({ schema: 8, maxBuckets: 40 });
    for (const v of values) h.observe(v);
    const s = h.snapshot();
    expect(s.schema).toBeLessThan(8);
    expect(s.positive.length + s.negative.length).toBeLessThanOrEqual(40);
    // The reference: the same values observed at the final schema from the start.
    const reference = new NativeHistogram({ schema: s.schema, maxBuckets: 10_000 });
    for (const v of values) reference.observe(v);
    const r = reference.snapshot();
    expect(r.schema).toBe(s.schema);
    expect(counts(s.positiveOffset, s.positive)).toEqual(counts(r.positiveOffset, r.positive));
    expect(counts(s.negativeOffset, s.negative)).toEqual(counts(r.negativeOffset, r.negative));
    expect(s.count).toBe(2000);
  });

  it('snapshots are copies: later observations do not change them', () => {
    const h = new NativeHistogram({ schema: 3, maxBuckets: 10 });
    h.observe(3.3);
    const before: NativeHistogramSnapshot = h.snapshot();
    h.observe(3.3);
    expect(before.count).toBe(1);
    expect([...before.positive]).toEqual([1]);
  });

  it('refuses a schema out of range and a bound below 2', () => {
    expect(() => new NativeHistogram({ schema: 9, maxBuckets: 10 })).toThrow(/schema/);
    expect(() => new NativeHistogram({ schema: 2.5, maxBuckets: 10 })).toThrow(/schema/);
    expect(() => new NativeHistogram({ schema: 3, maxBuckets: 1 })).toThrow(/maxBuckets/);
  });
});
