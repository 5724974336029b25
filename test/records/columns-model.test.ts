/**
 * The compact columns against a plain model of what they must hold: random batches (late,
 * repeated, out of order, corrected non-key columns) and evictions, with every serial form.
 */
import { describe, expect, it } from 'vitest';
import { splitmix32 } from '../../bench/shared/random.ts';
import { type SerialForm, SortedColumns } from '../../src/records/columns.ts';
import { serialHash32, serialHash53 } from '../../src/records/serials.ts';
import { mergeRows, type Row } from '../helpers/rows.ts';

/** The model: records by key (time, serial, key column), the newest answer's other columns. */
class Model {
  readonly rows = new Map<string, Row>();
  merge(rows: readonly Row[]): number {
    let added = 0;
    for (const r of rows) {
      const key = `${r.time}|${r.serial}|${r.values[0]}`;
      if (!this.rows.has(key)) added++;
      this.rows.set(key, r);
    }
    return added;
  }
  evictBefore(t: number): void {
    for (const [k, r] of this.rows) if (r.time < t) this.rows.delete(k);
  }
  /** Records as (time, serial, values), ordered by time then serial then value. */
  sorted(): string[] {
    return byTime([...this.rows.values()].map((r) => `${r.time}|${r.serial}|${r.values.join(',')}`));
  }
}

/** `time|rest` texts ordered by time, then by the rest; each text split once, not per comparison. */
const byTime = (texts: string[]): string[] =>
  texts
    .map((text) => {
      const bar = text.indexOf('|');
      return { time: Number(text.slice(0, bar)), rest: text.slice(bar + 1), text };
    })
    .sort((a, b) => a.time - b.time || (a.rest < b.rest ? -1 : a.rest > b.rest ? 1 : 0))
    .map((r) => r.text);

function heldOf(c: SortedColumns<SerialForm>, serialOf: Map<number, string>): string[] {
  return byTime(
    Array.from({ length: c.length }, (_, i) => {
      const values = [0, 1, 2].map((col) => c.value(col, i));
      return `${c.time(i)}|${serialOf.get(c.serialKey(i))}|${values.join(',')}`;
    }),
  );
}

describe('SortedColumns against a model', () => {
  for (const serials of ['hash32', 'hash53'] as const) {
    it(`holds what the model holds, sorted by time (${serials} serials)`, () => {
      const next = splitmix32(7);
      const c = new SortedColumns(3, 1, { serials, repeated: 2 });
      const model = new Model();
      const hash = serials === 'hash32' ? serialHash32 : serialHash53;
      const serialOf = new Map<number, string>();
      let now = 1_700_000_000_000;
      for (let poll = 0; poll < 300; poll++) {
        now += 60_000;
        const batch: Row[] = Array.from({ length: Math.floor(next() * 12) }, () => {
          const serial = `S${Math.floor(next() * 40)}`;
          serialOf.set(hash(serial), serial);
          // Late records, times shared by several serials, values and limits that repeat.
          const time = now - Math.floor(next() * 5) * 30_000;
          const value = Math.floor(next() * 3);
          return { time, serial, values: [value, Math.floor(next() * 3), next() < 0.2 ? Number.NaN : 1] };
        });
        expect(mergeRows(c, batch)).toBe(model.merge(batch));
        if (poll % 7 === 0) {
          c.evictBefore(now - 20 * 60_000);
          model.evictBefore(now - 20 * 60_000);
        }
        expect(heldOf(c, serialOf)).toEqual(model.sorted());
        const times = Array.from({ length: c.length }, (_, i) => c.time(i));
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    });
  }
});
