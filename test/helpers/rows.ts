/** Record objects merged into a {@link SortedColumns} through a {@link RowBatch}, for tests. */
import type { RowBatch, SerialForm, SortedColumns } from '../../src/records/columns.ts';

/** One record: its time, unit serial and numeric columns (NaN for "none"). */
export interface Row {
  readonly time: number;
  readonly serial: string;
  readonly values: readonly number[];
}

/** The rows read by index, as production's record groups are. */
function rowBatch(rows: readonly Row[]): RowBatch {
  return {
    length: rows.length,
    time: (j) => rows[j]!.time,
    serial: (j) => rows[j]!.serial,
    value: (j, c) => rows[j]!.values[c] ?? Number.NaN,
  };
}

/** Merges `rows` into `columns`; returns the number added. */
export function mergeRows(
  columns: SortedColumns<SerialForm>,
  rows: readonly Row[],
  onNew?: (index: number) => void,
): number {
  return columns.merge(rowBatch(rows), onNew);
}
