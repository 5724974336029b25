import { describe, expect, it } from 'vitest';
import { SortedColumns } from '../../src/records/columns.ts';
import { serialHash32, serialHash53 } from '../../src/records/serials.ts';
import { mergeRows } from '../helpers/rows.ts';

describe('serial keys', () => {
  it('hashes to 32 bits (never 0) and to 53 bits exactly held in a double', () => {
    expect(serialHash32('')).toBe(0x811c9dc5);
    const wide = serialHash53('L12-00001234');
    expect(Number.isSafeInteger(wide)).toBe(true);
    expect(wide).not.toBe(serialHash53('L12-00001235'));
    // Distinct serials of a day at a busy station: no two share a 53-bit hash.
    const keys = new Set(
      Array.from({ length: 100_000 }, (_, k) => serialHash53(`L1-${String(k).padStart(8, '0')}`)),
    );
    expect(keys.size).toBe(100_000);
  });

  it('tells records apart by hashed serial as it did by text, and counts distinct serials', () => {
    for (const serials of ['hash32', 'hash53'] as const) {
      const c = new SortedColumns(1, 1, { serials });
      const rows = [
        { time: 1, serial: 'a', values: [1] },
        { time: 1, serial: 'b', values: [1] },
        { time: 2, serial: 'a', values: [1] },
      ];
      expect(mergeRows(c, rows)).toBe(3);
      expect(mergeRows(c, rows)).toBe(0);
      const news: number[] = [];
      const again = [
        { time: 1, serial: 'b', values: [1] },
        { time: 1, serial: 'c', values: [1] },
      ];
      expect(mergeRows(c, again, (j) => news.push(j))).toBe(1);
      // 'b' is held already: only 'c' is new.
      expect(news).toEqual([1]);
      const distinct = new Set(Array.from({ length: c.length }, (_, i) => c.serialKey(i)));
      expect(distinct.size).toBe(3);
      expect(c.serialKey(c.length - 1)).toBe((serials === 'hash32' ? serialHash32 : serialHash53)('a'));
    }
  });
});
