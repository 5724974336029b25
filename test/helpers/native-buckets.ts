/**
 * The bucket boundaries of a native histogram, the inverse of production's `bucketKey`: tests
 * check the exporter's buckets against them, and ask Prometheus for fractions at a boundary.
 */
import { NATIVE_BOUNDS } from '../../src/exposition/native-bounds.ts';

/** The upper boundary of bucket `key` at a schema (Prometheus's getBound). */
export function bucketUpperBound(key: number, schema: number): number {
  if (schema > 0) {
    const n = 2 ** schema;
    const frac = NATIVE_BOUNDS[n - 2 + (key & (n - 1))]!;
    return frac * 2 ** ((key >> schema) + 1);
  }
  return 2 ** (key * 2 ** -schema);
}
