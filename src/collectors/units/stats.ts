/** Counts over a window of a station's unit rows (sorted columns). */
import type { SerialForm, SerialKey, SortedColumns } from '../../records/columns.ts';
import { getOrCreate } from '../../util/maps.ts';
import { DIRECTION, PRODUCT, RESULT } from './store.ts';

/** One kind of unit record: its labels, and with the counts, how many of them a window holds. */
export interface UnitKind {
  readonly direction: string;
  readonly result: string;
  /** The `unit_type` label value; absent when products are no label. */
  readonly product?: string;
}

/** Unit counts of one station over one window. */
export interface UnitWindowCounts {
  /** Records by `direction`, `result` (and `unit_type`) label values. */
  readonly records: ReadonlyMap<string, UnitKind & { count: number }>;
  /** Distinct serials, both directions. */
  readonly serials: number;
  /** Distinct serials by `unit_type` label value; absent when products are no label. */
  readonly serialsByProduct?: ReadonlyMap<string, number>;
}

/** The window {@link unitWindow} counts, and how it reads the rows' result and product codes. */
export interface UnitWindowOptions {
  /** Start of the window, Unix ms (included). */
  readonly from: number;
  /** End of the window, Unix ms (excluded). */
  readonly to: number;
  /** The `result` label value of a result code (the store's palette). */
  readonly resultOf: (code: number) => string;
  /** The `unit_type` label value of a product code; absent when products are no label. */
  readonly productOf?: (code: number) => string | undefined;
}

/** The key of a kind in {@link UnitWindowCounts.records}. */
export function kindKey(k: UnitKind): string {
  const base = `${k.direction}\u0000${k.result}`;
  return k.product === undefined ? base : `${base}\u0000${k.product}`;
}

/** Counts the unit rows with `from <= time < to`. */
export function unitWindow(rows: SortedColumns<SerialForm>, opts: UnitWindowOptions): UnitWindowCounts {
  const { from, to, resultOf, productOf } = opts;
  const [start, end] = rows.range(from, to);
  const records = new Map<string, UnitKind & { count: number }>();
  // Serials as the store holds them (a hash, see SerialForm): equal serials have equal keys.
  const serials = new Set<SerialKey>();
  const byProduct = productOf === undefined ? undefined : new Map<string, Set<SerialKey>>();
  for (let i = start; i < end; i++) {
    const serial = rows.serialKey(i);
    serials.add(serial);
    const direction = rows.value(DIRECTION, i) === 0 ? 'input' : 'output';
    const result = resultOf(rows.value(RESULT, i));
    const product = productOf?.(rows.value(PRODUCT, i));
    // The key without an object per row: most rows add to a kind already counted.
    const base = `${direction}\u0000${result}`;
    const key = product === undefined ? base : `${base}\u0000${product}`;
    const row = records.get(key);
    if (row) row.count++;
    else
      records.set(
        key,
        product === undefined ? { direction, result, count: 1 } : { direction, result, product, count: 1 },
      );
    if (byProduct !== undefined && product !== undefined) addTo(byProduct, product, serial);
  }
  const counts = { records, serials: serials.size };
  if (byProduct === undefined) return counts;
  return { ...counts, serialsByProduct: new Map([...byProduct].map(([p, s]) => [p, s.size])) };
}

function addTo(map: Map<string, Set<SerialKey>>, key: string, serial: SerialKey): void {
  getOrCreate(map, key, () => new Set()).add(serial);
}
