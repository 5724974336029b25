/**
 * Statistics over a window of a sorted column set. The window's rows are found by binary
 * search; only those rows are read.
 */
import type { SortedColumns } from '../../records/columns.ts';
import { LOWER, UPPER, VALUE } from './store.ts';

/** Statistics of one measurement series over one window. */
export interface MeasurementWindowStats {
  /** Records with a numeric value. */
  readonly samples: number;
  /** Records whose value is not a number (`PASS`, empty). */
  readonly nonNumeric: number;
  readonly mean?: number;
  readonly min?: number;
  readonly max?: number;
  /** Sample standard deviation (n - 1), with at least two samples. */
  readonly stddev?: number;
  /** Limits of the window's latest record; they apply to the whole window. */
  readonly upper?: number;
  readonly lower?: number;
  /** Numeric samples outside the limits; only when a limit exists. */
  readonly outOfSpec?: number;
}

const defined = (v: number) => (Number.isNaN(v) ? undefined : v);

/** Statistics of the rows with `from <= time < to`. */
export function measurementWindow(rows: SortedColumns, from: number, to: number): MeasurementWindowStats {
  const [start, end] = rows.range(from, to);
  let n = 0;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = start; i < end; i++) {
    const v = rows.value(VALUE, i);
    if (Number.isNaN(v)) continue;
    n++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const nonNumeric = end - start - n;
  if (n === 0) return { samples: 0, nonNumeric };
  const mean = sum / n;
  const upper = end > start ? defined(rows.value(UPPER, end - 1)) : undefined;
  const lower = end > start ? defined(rows.value(LOWER, end - 1)) : undefined;
  // Second pass over the same rows: deviations from the mean lose no precision to cancellation.
  let squares = 0;
  let outside = 0;
  for (let i = start; i < end; i++) {
    const v = rows.value(VALUE, i);
    if (Number.isNaN(v)) continue;
    squares += (v - mean) ** 2;
    if ((upper !== undefined && v > upper) || (lower !== undefined && v < lower)) outside++;
  }
  return {
    samples: n,
    nonNumeric,
    mean,
    min,
    max,
    stddev: n >= 2 ? Math.sqrt(squares / (n - 1)) : undefined,
    upper,
    lower,
    outOfSpec: upper !== undefined || lower !== undefined ? outside : undefined,
  };
}

/** The newest numeric value of a series, and the limits of its newest record. */
export interface LatestMeasurement {
  readonly value?: { readonly time: number; readonly value: number };
  readonly upper?: number;
  readonly lower?: number;
}

/** The latest value and limits held for a series. */
export function latestMeasurement(rows: SortedColumns): LatestMeasurement {
  const last = rows.length - 1;
  if (last < 0) return {};
  let value: LatestMeasurement['value'];
  for (let i = last; i >= 0; i--) {
    const v = rows.value(VALUE, i);
    if (!Number.isNaN(v)) {
      value = { time: rows.time(i), value: v };
      break;
    }
  }
  return { value, upper: defined(rows.value(UPPER, last)), lower: defined(rows.value(LOWER, last)) };
}
