/**
 * Whether a record is already held, for the cumulative counters that must count each record
 * once however often the overlap and the re-read sweep fetch it again.
 */
import type { Row, SortedColumns } from './columns.ts';

/**
 * True when `cols` holds a row with the time, serial and first `keyWidth` columns of `row`: the
 * same record, which a merge would update rather than add.
 */
export function holdsRow(cols: SortedColumns, row: Row, keyWidth: number): boolean {
  for (let i = cols.lowerBound(row.time); i < cols.length && cols.time(i) === row.time; i++) {
    if (cols.serial(i) !== row.serial) continue;
    let same = true;
    for (let c = 0; c < keyWidth && same; c++)
      same = Object.is(cols.value(c, i), row.values[c] ?? Number.NaN);
    if (same) return true;
  }
  return false;
}

/**
 * Calls `onNew` for the rows of a batch that `cols` does not hold yet, once per record even when
 * the batch repeats one (overlapping spans of one poll).
 */
export function forEachNewRow(
  cols: SortedColumns,
  rows: readonly Row[],
  opts: { readonly keyWidth: number; readonly onNew: (index: number) => void },
): void {
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (holdsRow(cols, row, opts.keyWidth)) return;
    const key = `${row.time}\u0000${row.serial}\u0000${row.values.slice(0, opts.keyWidth).join('\u0000')}`;
    if (seen.has(key)) return;
    seen.add(key);
    opts.onNew(index);
  });
}
