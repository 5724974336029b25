/**
 * Statistics over a window of a sorted column set. The window's rows are found by binary
 * search; only those rows are read. Formulas are in docs/measurements.md.
 */
import type { SortedColumns } from '../../records/columns.ts';
import { ATTRIBUTE, LOWER, PASS, UPPER, VALUE } from './store.ts';

/** Statistics of one measurement series over one window. */
export interface MeasurementWindowStats {
  /** Records with a numeric value. */
  readonly samples: number;
  /** Records whose value is not a number (`PASS`, empty). */
  readonly nonNumeric: number;
  /** Non-numeric records that are attribute outcomes. */
  readonly passed: number;
  readonly failed: number;
  readonly mean?: number;
  readonly min?: number;
  readonly max?: number;
  /** Sample standard deviation (n - 1), with at least two samples; 0 when negligible. */
  readonly stddev?: number;
  /** Within sigma MR-bar / d2 (d2 = 1.128) over time-ordered values, two samples or more; 0 when negligible. */
  readonly withinSigma?: number;
  /** Numeric samples outside their own record's limits; only when a record in the window has a limit. */
  readonly outOfSpec?: number;
}

/** d2 for moving ranges of two consecutive values. */
export const D2 = 1.128;

/**
 * A spread this small relative to the mean's magnitude is rounding noise of equal values
 * (e.g. the mean of ten 0.1 is not exactly 0.1), not a process spread.
 */
export const RELATIVE_EPSILON = 1e-9;

/** The spread with rounding noise taken as zero: `sd <= 1e-9 * |mean|` counts as 0. */
export function negligibleAsZero(spread: number, mean: number): number {
  return spread <= RELATIVE_EPSILON * Math.abs(mean) ? 0 : spread;
}

/** Beyond this magnitude squares of deviations could overflow: they are scaled first. */
const HUGE = 1e150;

/** Statistics of the rows with `from <= time < to`. */
export function measurementWindow(rows: SortedColumns, from: number, to: number): MeasurementWindowStats {
  const [start, end] = rows.range(from, to);
  let n = 0;
  let shift = Number.NaN;
  let shifted = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let passed = 0;
  let failed = 0;
  for (let i = start; i < end; i++) {
    const v = rows.value(VALUE, i);
    if (Number.isNaN(v)) {
      const a = rows.value(ATTRIBUTE, i);
      if (a === PASS) passed++;
      else if (!Number.isNaN(a)) failed++;
      continue;
    }
    // Summing deviations from the first value keeps large offsets (e.g. 1e9 + small spread) exact.
    if (n === 0) shift = v;
    n++;
    shifted += v - shift;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const nonNumeric = end - start - n;
  const base = { nonNumeric, passed, failed };
  if (n === 0) return { samples: 0, ...base };
  // Equal values have exactly that mean and no spread; otherwise rounding can leave the mean outside [min, max].
  const mean = min === max ? min : Math.min(max, Math.max(min, shift + shifted / n));
  const { limited, outside, ...sigmas } = spreadOf(
    rows,
    start,
    end,
    mean,
    Math.max(Math.abs(min), Math.abs(max)),
  );
  return {
    samples: n,
    ...base,
    mean,
    min,
    max,
    ...(min === max && n >= 2 ? { stddev: 0, withinSigma: 0 } : sigmas),
    ...(limited ? { outOfSpec: outside } : {}),
  };
}

/** Second pass: deviations from the mean (no cancellation), moving ranges and out-of-spec counts. */
function spreadOf(rows: SortedColumns, start: number, end: number, mean: number, magnitude: number) {
  const scale = magnitude > HUGE ? magnitude : 1;
  let n = 0;
  let squares = 0;
  let ranges = 0;
  let prev = Number.NaN;
  let outside = 0;
  let limited = false;
  for (let i = start; i < end; i++) {
    const v = rows.value(VALUE, i);
    if (Number.isNaN(v)) continue;
    n++;
    const d = (v - mean) / scale;
    squares += d * d;
    if (!Number.isNaN(prev)) ranges += Math.abs(v - prev) / scale;
    prev = v;
    const upper = rows.value(UPPER, i);
    const lower = rows.value(LOWER, i);
    if (!Number.isNaN(upper) || !Number.isNaN(lower)) limited = true;
    if (v > upper || v < lower) outside++;
  }
  const stddev = n >= 2 ? negligibleAsZero(scale * Math.sqrt(squares / (n - 1)), mean) : undefined;
  const withinSigma = n >= 2 ? negligibleAsZero((scale * ranges) / (n - 1) / D2, mean) : undefined;
  return {
    ...(stddev !== undefined && Number.isFinite(stddev) ? { stddev } : {}),
    ...(withinSigma !== undefined && Number.isFinite(withinSigma) ? { withinSigma } : {}),
    limited,
    outside,
  };
}
