/** Counts over a window of a station's unit rows (sorted columns). */
import type { SerialForm, SerialKey, SortedColumns } from '../../records/columns.ts';
import { DIRECTION, RESULT } from './store.ts';

/** Unit counts of one station over one window. */
export interface UnitWindowCounts {
  /** Records by `direction` and `result` label values. */
  readonly records: ReadonlyMap<string, { direction: string; result: string; count: number }>;
  /** Distinct serials, both directions. */
  readonly serials: number;
}

/** The window {@link unitWindow} counts, and how it reads the rows' result codes. */
export interface UnitWindowOptions {
  /** Start of the window, Unix ms (included). */
  readonly from: number;
  /** End of the window, Unix ms (excluded). */
  readonly to: number;
  /** The `result` label value of a result code (the store's palette). */
  readonly resultOf: (code: number) => string;
}

/** Counts the unit rows with `from <= time < to`. */
export function unitWindow(
  rows: SortedColumns<SerialForm>,
  { from, to, resultOf }: UnitWindowOptions,
): UnitWindowCounts {
  const [start, end] = rows.range(from, to);
  const records = new Map<string, { direction: string; result: string; count: number }>();
  // Serials as the store holds them (a hash, see SerialForm): equal serials have equal keys.
  const serials = new Set<SerialKey>();
  for (let i = start; i < end; i++) {
    serials.add(rows.serialKey(i));
    const direction = rows.value(DIRECTION, i) === 0 ? 'input' : 'output';
    const result = resultOf(rows.value(RESULT, i));
    const key = `${direction}\u0000${result}`;
    const row = records.get(key);
    if (row) row.count++;
    else records.set(key, { direction, result, count: 1 });
  }
  return { records, serials: serials.size };
}
