import { describe, expect, it } from 'vitest';
import { SortedColumns } from '../../src/records/columns.ts';
import { mergeRows } from '../helpers/rows.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

/** One-column rows of 32-bit serial hashes: times are what is tested. */
const cols = () => new SortedColumns(1, 1, { serials: 'hash32' });
const row = (time: number, value = 1) => ({ time, serial: `SN${time}`, values: [value] });
const times = (c: SortedColumns<'hash32'>) => Array.from({ length: c.length }, (_, i) => c.time(i));

describe('time column', () => {
  it('reads back epoch milliseconds held as offsets, 4 bytes a row', () => {
    const c = cols();
    mergeRows(c, [row(T0 + 5), row(T0), row(T0 + 1)]);
    expect(times(c)).toEqual([T0, T0 + 1, T0 + 5]);
    expect(c.range(T0 + 1, T0 + 5)).toEqual([1, 2]);
    // 4 bytes of time and 4 of serial hash in one lane each, 8 of value, per row of capacity.
    expect(c.bytes() % 16).toBe(0);
  });

  it('moves its base back for an older record and forward as the rows move on, past 49 days', () => {
    const c = cols();
    mergeRows(c, [row(T0 + DAY)]);
    // Older than the base: the offsets move.
    mergeRows(c, [row(T0)]);
    expect(times(c)).toEqual([T0, T0 + DAY]);
    // Sixty days of one record a day, one day kept: offsets from the first day would overflow.
    for (let d = 2; d < 60; d++) {
      mergeRows(c, [row(T0 + d * DAY)]);
      c.evictBefore(T0 + (d - 1) * DAY);
    }
    expect(times(c)).toEqual([T0 + 58 * DAY, T0 + 59 * DAY]);
    expect(c.range(T0 + 59 * DAY, T0 + 60 * DAY)).toEqual([1, 2]);
  });

  it('holds times exactly as doubles when they span 49 days or more, or have fractions', () => {
    const wide = cols();
    mergeRows(wide, [row(T0), row(T0 + 60 * DAY), row(T0 + 30 * DAY)]);
    expect(times(wide)).toEqual([T0, T0 + 30 * DAY, T0 + 60 * DAY]);
    const fraction = cols();
    mergeRows(fraction, [row(1.5), row(0.25)]);
    expect(times(fraction)).toEqual([0.25, 1.5]);
    expect(mergeRows(fraction, [row(1.5)])).toBe(0);
    // Emptied, the column goes back to offsets.
    fraction.evictBefore(10);
    mergeRows(fraction, [row(T0), row(T0 + 1)]);
    expect(times(fraction)).toEqual([T0, T0 + 1]);
  });

  it('finds windows whose bounds lie outside the offsets held', () => {
    const c = cols();
    mergeRows(c, [row(T0), row(T0 + 10)]);
    expect(c.range(0, T0 + 5)).toEqual([0, 1]);
    expect(c.range(T0 + 11, Number.POSITIVE_INFINITY)).toEqual([2, 2]);
    expect(c.evictBefore(Number.NEGATIVE_INFINITY)).toBe(0);
  });
});
