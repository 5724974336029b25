import { describe, expect, it } from 'vitest';
import { SortedColumns } from '../../src/records/columns.ts';
import { serialHash53 } from '../../src/records/serials.ts';
import { mergeRows, type Row } from '../helpers/rows.ts';

/** The serials the rows named, by the key the columns hold for them. */
const serialOf = new Map<number, string>();

/** A row of the key column `value` and a non-key column `extra` (0 unless given). */
const row = (time: number, serial: string, values: number | { value: number; extra: number }): Row => {
  const { value, extra } = typeof values === 'number' ? { value: values, extra: 0 } : values;
  serialOf.set(serialHash53(serial), serial);
  return { time, serial, values: [value, extra] };
};

function dump(c: SortedColumns) {
  return Array.from({ length: c.length }, (_, i) => [
    c.time(i),
    serialOf.get(c.serialKey(i)),
    c.value(0, i),
    c.value(1, i),
  ]);
}

describe('SortedColumns', () => {
  it('keeps rows sorted by time, then serial key, whatever order they arrive in', () => {
    const c = new SortedColumns(2, 1);
    expect(mergeRows(c, [row(30, 'b', 3), row(10, 'a', 1)])).toBe(2);
    expect(mergeRows(c, [row(20, 'x', 2), row(30, 'a', 4), row(5, 'z', 0)])).toBe(3);
    const at30 = serialHash53('a') < serialHash53('b') ? ['30a', '30b'] : ['30b', '30a'];
    expect(dump(c).map((r) => `${r[0]}${r[1]}`)).toEqual(['5z', '10a', '20x', ...at30]);
  });

  it('recognises a record seen again and does not add it twice', () => {
    const c = new SortedColumns(2, 1);
    mergeRows(c, [row(10, 'a', 1), row(20, 'a', 2), row(20, 'b', 2)]);
    // Overlapping re-read: same time, serial and key value, with a corrected non-key column.
    expect(mergeRows(c, [row(20, 'a', { value: 2, extra: 9 }), row(20, 'b', 2), row(30, 'c', 3)])).toBe(1);
    expect(c.length).toBe(4);
    expect(dump(c).find((r) => r[0] === 20 && r[1] === 'a')).toEqual([20, 'a', 2, 9]);
  });

  it('keeps records that differ only in a key column, and NaN equals NaN', () => {
    const c = new SortedColumns(2, 1);
    mergeRows(c, [row(10, 'a', 1), row(10, 'a', Number.NaN)]);
    expect(mergeRows(c, [row(10, 'a', 2), row(10, 'a', Number.NaN)])).toBe(1);
    expect(c.length).toBe(3);
  });

  it('deduplicates inside one batch', () => {
    const c = new SortedColumns(2, 1);
    expect(mergeRows(c, [row(10, 'a', 1), row(10, 'a', 1), row(10, 'a', 1)])).toBe(1);
  });

  it('reports each new record once, at its first index in the batch, in batch order', () => {
    const c = new SortedColumns(2, 1);
    mergeRows(c, [row(20, 'a', 2)]);
    const news: number[] = [];
    const added = mergeRows(
      c,
      [
        row(30, 'b', 3),
        // Held already: not new, though its non-key column changes.
        row(20, 'a', { value: 2, extra: 7 }),
        row(10, 'c', 1),
        // The batch's own repeat of index 0: new once, at 0.
        row(30, 'b', { value: 3, extra: 5 }),
        // Same time and serial as a held row, another key value: a record of its own.
        row(20, 'a', 4),
      ],
      (j) => news.push(j),
    );
    expect(news).toEqual([0, 2, 4]);
    expect(added).toBe(news.length);
    // The later answer wins for the columns outside the key.
    expect(dump(c)).toEqual([
      [10, 'c', 1, 0],
      [20, 'a', 2, 7],
      [20, 'a', 4, 0],
      [30, 'b', 3, 5],
    ]);
  });

  it('merges a batch read by index the same however it is built', () => {
    const rows = [row(30, 'b', 3), row(10, 'a', 1), row(10, 'a', 1), row(20, 'c', 2)];
    const objects = new SortedColumns(2, 1);
    const batch = new SortedColumns(2, 1);
    expect(mergeRows(objects, rows)).toBe(3);
    const read = {
      length: rows.length,
      time: (j: number) => rows[j]!.time,
      serial: (j: number) => rows[j]!.serial,
      value: (j: number, col: number) => rows[j]!.values[col]!,
    };
    expect(batch.merge(read)).toBe(3);
    expect(dump(batch)).toEqual(dump(objects));
  });

  it('finds windows by binary search: from inclusive, to exclusive', () => {
    const c = new SortedColumns(2, 1);
    mergeRows(
      c,
      [10, 20, 20, 30, 40].map((t, i) => row(t, `s${i}`, i)),
    );
    expect(c.range(20, 40)).toEqual([1, 4]);
    expect(c.range(0, 10)).toEqual([0, 0]);
    expect(c.range(41, 100)).toEqual([5, 5]);
    expect(c.range(15, 21)).toEqual([1, 3]);
  });

  it('evicts rows older than a time and releases memory it no longer needs', () => {
    const c = new SortedColumns(2, 1);
    const rows = Array.from({ length: 1000 }, (_, i) => row(i, 's', i));
    mergeRows(c, rows);
    expect(c.evictBefore(990)).toBe(990);
    expect(c.length).toBe(10);
    expect(c.time(0)).toBe(990);
    expect(c.value(0, 9)).toBe(999);
    expect(c.evictBefore(990)).toBe(0);
    // Still usable after shrinking.
    expect(mergeRows(c, [row(995, 'new', 1), row(2000, 'n', 2)])).toBe(2);
    expect(c.range(995, 996)).toEqual([5, 7]);
  });

  it('grows past its initial capacity without losing rows', () => {
    const c = new SortedColumns(2, 1);
    for (let i = 0; i < 100; i++) mergeRows(c, [row(1000 - i, `s${i}`, i)]);
    expect(c.length).toBe(100);
    expect(dump(c).every((r, i, all) => i === 0 || (all[i - 1]?.[0] as number) <= (r[0] as number))).toBe(
      true,
    );
  });
});
