import { describe, expect, it } from 'vitest';
import { SortedColumns } from '../../src/records/columns.ts';
import { mergeRows } from '../helpers/rows.ts';

/** A value (the key) and two repeated columns, like a measurement's value and limits. */
const cols = () => new SortedColumns(3, 1, { serials: 'hash32', repeated: 2 });
const row = (time: number, limits: readonly [number, number]) => ({
  time,
  serial: `SN${time}`,
  values: [time, ...limits],
});
const dump = (c: SortedColumns<'hash32'>) =>
  Array.from({ length: c.length }, (_, i) => [c.time(i), c.value(0, i), c.value(1, i), c.value(2, i)]);

describe('repeated columns', () => {
  it('hold each combination once and need no code while there is only one', () => {
    const c = cols();
    mergeRows(
      c,
      Array.from({ length: 100 }, (_, t) => row(t, [10, 0])),
    );
    const one = c.bytes();
    mergeRows(c, [row(100, [12, Number.NaN])]);
    expect(c.value(1, 100)).toBe(12);
    expect(c.value(2, 100)).toBeNaN();
    expect(c.value(1, 99)).toBe(10);
    // The second combination adds a one-byte code per row of capacity, and its 16 bytes.
    expect(c.bytes()).toBeGreaterThan(one);
    expect(c.bytes() - one).toBeLessThan(200);
  });

  it('keep -0 apart from 0 and every value exact, past 256 combinations', () => {
    const c = cols();
    const rows = Array.from({ length: 300 }, (_, t) => row(t, [t + 0.1, t % 2 ? -0 : 0]));
    mergeRows(c, rows);
    expect(dump(c)).toEqual(rows.map((r) => [r.time, ...r.values]));
    expect(Object.is(c.value(2, 1), -0)).toBe(true);
  });

  it('widen their codes past 65,536 combinations', () => {
    const c = cols();
    mergeRows(
      c,
      Array.from({ length: 66_000 }, (_, t) => row(t, [t, 0])),
    );
    mergeRows(c, [row(66_000, [0, 0])]);
    expect([0, 255, 256, 65_535, 65_536, 65_999, 66_000].map((i) => c.value(1, i))).toEqual([
      0, 255, 256, 65_535, 65_536, 65_999, 0,
    ]);
  });

  it('forget the combinations no row uses once rows are evicted', () => {
    const c = cols();
    mergeRows(
      c,
      Array.from({ length: 1000 }, (_, t) => row(t, [t, 0])),
    );
    const many = c.bytes();
    c.evictBefore(990);
    mergeRows(c, [row(2000, [5, 0])]);
    expect(dump(c)).toEqual([
      ...Array.from({ length: 10 }, (_, k) => [990 + k, 990 + k, 990 + k, 0]),
      [2000, 2000, 5, 0],
    ]);
    expect(c.bytes()).toBeLessThan(many / 10);
    c.evictBefore(3000);
    mergeRows(c, [row(3000, [1, 2])]);
    expect(dump(c)).toEqual([[3000, 3000, 1, 2]]);
  });

  it('are compared by value when they are key columns', () => {
    // Units: direction and slot are keys, the result is not.
    const c = new SortedColumns(3, 2, { serials: 'hash53', repeated: 3 });
    mergeRows(c, [{ time: 1, serial: 's', values: [0, -1, 0] }]);
    expect(mergeRows(c, [{ time: 1, serial: 's', values: [0, -1, 1] }])).toBe(0);
    expect(c.value(2, 0)).toBe(1);
    expect(mergeRows(c, [{ time: 1, serial: 's', values: [1, -1, 1] }])).toBe(1);
  });
});
