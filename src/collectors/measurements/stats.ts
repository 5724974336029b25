/** Statistics over a window of a sorted column set (formulas: docs/measurements.md). */
import type { SerialForm, SortedColumns } from '../../records/columns.ts';
import { isBelowResolution } from '../../util/ulp.ts';
import { ATTRIBUTE, LOWER, PASS, UPPER, VALUE } from './store.ts';

/** Statistics of one measurement series over one window. */
export interface MeasurementWindowStats {
  readonly samples: number;
  readonly nonNumeric: number;
  /** Non-numeric records that are attribute outcomes. */
  readonly passed: number;
  readonly failed: number;
  readonly mean?: number;
  readonly min?: number;
  readonly max?: number;
  /** n - 1, with at least two samples; 0 when negligible. */
  readonly stddev?: number;
  /** MR-bar / d2 over time-ordered values, two samples or more; 0 when negligible. */
  readonly withinSigma?: number;
  /** Outside their own record's limits; only when a record in the window has a limit. */
  readonly outOfSpec?: number;
}

/** d2 for moving ranges of two consecutive values. */
const D2 = 1.128;

/**
 * A spread of a few ulps of the data's magnitude is rounding on equal values, not a process spread;
 * decided from the data, not a share of the mean, so that 1e9 + {0.1, 0.2, 0.3} keeps its sd.
 */
function negligibleAsZero(spread: number, magnitude: number): number {
  return isBelowResolution(spread, magnitude) ? 0 : spread;
}

/** Beyond this magnitude squares of deviations could overflow: they are scaled first. */
const HUGE = 1e150;

/** Statistics of the rows with `from <= time < to`. */
export function measurementWindow(
  rows: SortedColumns<SerialForm>,
  from: number,
  to: number,
): MeasurementWindowStats {
  const [start, end] = rows.range(from, to);
  const { n, shift, shifted, min, max, passed, failed } = firstPass(rows, start, end);
  const nonNumeric = end - start - n;
  const base = { nonNumeric, passed, failed };
  if (n === 0) return { samples: 0, ...base };
  // Equal values have exactly that mean and no spread; otherwise rounding can leave the mean outside [min, max].
  const mean = min === max ? min : Math.min(max, Math.max(min, shift + shifted / n));
  const { limited, outside, ...sigmas } = spreadOf(rows, {
    start,
    end,
    shift,
    meanDeviation: shifted / n,
    magnitude: Math.max(Math.abs(min), Math.abs(max)),
  });
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

function firstPass(rows: SortedColumns<SerialForm>, start: number, end: number) {
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
  return { n, shift, shifted, min, max, passed, failed };
}

interface SpreadInput {
  readonly start: number;
  readonly end: number;
  /** The first value, which the deviations are taken from. */
  readonly shift: number;
  /** Kept apart: a double near a large offset holds the mean only to half an ulp of it. */
  readonly meanDeviation: number;
  readonly magnitude: number;
}

/**
 * Second pass. A deviation is `(v - shift) - meanDeviation`, both nearly exact, where `v - mean`
 * would carry the mean's rounding (6e-5 at an offset of 1e12: 0.05 % of a spread of 0.001).
 */
function spreadOf(rows: SortedColumns<SerialForm>, input: SpreadInput) {
  const { start, end, shift, meanDeviation, magnitude } = input;
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
    const d = (v - shift - meanDeviation) / scale;
    squares += d * d;
    if (!Number.isNaN(prev)) ranges += Math.abs(v - prev) / scale;
    prev = v;
    const upper = rows.value(UPPER, i);
    const lower = rows.value(LOWER, i);
    if (!Number.isNaN(upper) || !Number.isNaN(lower)) limited = true;
    if (v > upper || v < lower) outside++;
  }
  if (n < 2) return { limited, outside };
  const stddev = negligibleAsZero(scale * Math.sqrt(squares / (n - 1)), magnitude);
  const withinSigma = negligibleAsZero((scale * ranges) / (n - 1) / D2, magnitude);
  return {
    ...(Number.isFinite(stddev) ? { stddev } : {}),
    ...(Number.isFinite(withinSigma) ? { withinSigma } : {}),
    limited,
    outside,
  };
}
