/**
 * Whether a record is already held, for the cumulative counters that must count each record
 * once however often the overlap and the re-read sweep fetch it again.
 */
import type { Row, SerialForm, SortedColumns } from './columns.ts';

/**
 * Calls `onNew` for the rows of a batch that `cols` does not hold yet, once per record even when
 * the batch repeats one (overlapping spans of one poll).
 */
export function forEachNewRow(
  cols: SortedColumns<SerialForm>,
  rows: readonly Row[],
  opts: { readonly keyWidth: number; readonly onNew: (index: number) => void },
): void {
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (cols.holds(row, opts.keyWidth)) return;
    // Serials as the columns hold them: rows they would take as one are one here too.
    const key = `${row.time}\u0000${cols.keyOf(row.serial)}\u0000${row.values.slice(0, opts.keyWidth).join('\u0000')}`;
    if (seen.has(key)) return;
    seen.add(key);
    opts.onNew(index);
  });
}
