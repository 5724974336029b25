/**
 * Rolling store of unit records: one {@link SortedColumns} per station for the longest window, plus
 * each station's latest unit time, which outlives eviction so that a silent station can be alerted
 * on. About 13 bytes a record (docs/measurements.md, "Bytes per record"): the serial as a 53-bit
 * hash, enough to count distinct serials.
 */

import { stationKey } from '../../model/keys.ts';
import { SortedColumns } from '../../records/columns.ts';
import { RecordGroups } from '../../records/groups.ts';
import type { UnitRecord } from '../../upstream/types.ts';
import { getOrCreate } from '../../util/maps.ts';

/**
 * Columns of a unit row: direction, slot (column 1, never read back), result and product (-1 when
 * products are no label). The result is not part of the key, so a record whose result is filled
 * in later replaces the earlier version instead of counting twice.
 */
export const DIRECTION = 0;
export const RESULT = 2;
export const PRODUCT = 3;
const COLUMNS = 4;

/** Label value of a null result. */
export const UNKNOWN_RESULT = 'unknown';

/** Small integers for the few distinct strings of a column; never shrinks. */
class Palette {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [];

  code(value: string): number {
    return getOrCreate(this.codes, value, () => this.values.push(value) - 1);
  }
}

/** Options of {@link UnitStore}. */
export interface UnitStoreOptions {
  /** Called once per record the store did not hold: the cumulative counter counts a record once. */
  readonly onNew?: (record: UnitRecord) => void;
  /** The `unit_type` label value of a record's unit type; absent: products are no label. */
  readonly productOf?: ((unitType: string | null) => string) | undefined;
}

/** Unit records by station, deduplicated, sorted by time. */
export class UnitStore {
  private readonly onNew: UnitStoreOptions['onNew'];
  private readonly productOf: UnitStoreOptions['productOf'];
  private readonly stations = new Map<string, SortedColumns<'hash53'>>();
  private readonly lastSeen = new Map<string, number>();
  private readonly results = new Palette();
  private readonly slots = new Palette();
  private readonly products = new Palette();

  constructor(opts: UnitStoreOptions = {}) {
    this.onNew = opts.onNew;
    this.productOf = opts.productOf;
  }

  /** Adds records, recognising those held; returns the number of new ones. */
  add(records: readonly UnitRecord[]): number {
    const codes = new Float64Array(COLUMNS * records.length);
    const groups = new RecordGroups(records, {
      target: (r, i) => {
        this.codeInto(codes, i, r);
        const id = stationKey(r.stationId);
        if (r.time > (this.lastSeen.get(id) ?? Number.NEGATIVE_INFINITY)) this.lastSeen.set(id, r.time);
        return id;
      },
      value: (i, c) => codes[COLUMNS * i + c] ?? Number.NaN,
    });
    const onNew = this.onNew;
    return groups.mergeInto((id) => this.columnsOf(id), onNew ? (_id, r) => onNew(r) : undefined);
  }

  private codeInto(codes: Float64Array, i: number, r: UnitRecord): void {
    const at = COLUMNS * i;
    codes[at] = r.direction === 'input' ? 0 : 1;
    // A null slot (an empty one is null too) gets its own code, distinct from every slot string.
    codes[at + 1] = r.slot === null ? -1 : this.slots.code(r.slot);
    codes[at + RESULT] = this.results.code(r.result ?? UNKNOWN_RESULT);
    codes[at + PRODUCT] = this.productOf === undefined ? -1 : this.products.code(this.productOf(r.unitType));
  }

  private columnsOf(id: string): SortedColumns<'hash53'> {
    // The code columns take a few combinations: held once each, a code per row.
    return getOrCreate(
      this.stations,
      id,
      () => new SortedColumns(COLUMNS, 2, { serials: 'hash53', repeated: COLUMNS }),
    );
  }

  /** Drops records older than `t`; latest unit times are kept. */
  evictBefore(t: number): void {
    for (const [id, cols] of this.stations) {
      cols.evictBefore(t);
      if (cols.length === 0) this.stations.delete(id);
    }
  }

  /** Forgets every station not in `ids`, latest unit times included. */
  retainStations(ids: ReadonlySet<string>): void {
    const keep = new Set([...ids].map(stationKey));
    for (const id of this.stations.keys()) if (!keep.has(id)) this.stations.delete(id);
    for (const id of this.lastSeen.keys()) if (!keep.has(id)) this.lastSeen.delete(id);
  }

  rowsOf(stationId: string): SortedColumns<'hash53'> | undefined {
    return this.stations.get(stationKey(stationId));
  }

  /** Epoch ms of the newest unit record ever seen at the station. */
  lastUnitTime(stationId: string): number | undefined {
    return this.lastSeen.get(stationKey(stationId));
  }

  resultOf(code: number): string {
    return this.results.values[code] ?? UNKNOWN_RESULT;
  }

  /** The `unit_type` label value of a product code; undefined when products are no label. */
  productOfCode(code: number): string | undefined {
    return this.products.values[code];
  }

  /** Bytes of the typed columns. */
  bytes(): number {
    let n = 0;
    for (const cols of this.stations.values()) n += cols.bytes();
    return n;
  }

  size(): number {
    let n = 0;
    for (const cols of this.stations.values()) n += cols.length;
    return n;
  }
}
