/**
 * Rolling store of unit records: one {@link SortedColumns} per station, holding only the
 * records inside the longest window, plus each station's latest unit time, which outlives
 * eviction so that a station silent for longer than every window can still be alerted on.
 * A record costs about 13 bytes: its time (4), a 53-bit hash of its serial (8), enough to count
 * distinct serials (no family reads one back), and a one-byte code of its direction, slot, result
 * and product (two bytes beyond 256 combinations at a station, which products can reach);
 * docs/measurements.md, "Bytes per record".
 */

import { stationKey } from '../../model/keys.ts';
import { SortedColumns } from '../../records/columns.ts';
import { RecordGroups } from '../../records/groups.ts';
import type { UnitRecord } from '../../upstream/types.ts';

/**
 * Columns of a unit row: direction, slot (column 1, which nothing reads back), result and product.
 * Direction and slot, with station, time and serial, identify a record; the result is not part
 * of the key, so a record whose result is filled in later replaces the earlier version instead
 * of counting twice. The product is the `unit_type` label value, -1 when products are no label.
 */
export const DIRECTION = 0;
export const RESULT = 2;
export const PRODUCT = 3;
const COLUMNS = 4;

/** Label value of a null result. */
export const UNKNOWN_RESULT = 'unknown';

/**
 * Small integers for the few distinct result and slot strings, so that they fit in a
 * numeric column. Never shrinks: it holds one entry per distinct value ever seen.
 */
class Palette {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [];

  code(value: string): number {
    let c = this.codes.get(value);
    if (c === undefined) {
      c = this.values.push(value) - 1;
      this.codes.set(value, c);
    }
    return c;
  }
}

/** Options of {@link UnitStore}. */
export interface UnitStoreOptions {
  /**
   * Called once for each record the store did not hold yet, when its station's share of the add
   * is merged (in the order given): the hook of the cumulative unit counter, which must count a
   * record once however often it is fetched again.
   */
  readonly onNew?: (record: UnitRecord) => void;
  /** The `unit_type` label value of a record's unit type; absent: products are no label. */
  readonly productOf?: (unitType: string | null) => string;
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

  /** Adds records (records already held are recognised); returns the number of new records. */
  add(records: readonly UnitRecord[]): number {
    // Direction, slot, result and product codes: four per record, in one array.
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
    // Direction and slot are the key columns, with time and serial.
    return groups.mergeInto((id) => this.columnsOf(id), onNew ? (_id, r) => onNew(r) : undefined);
  }

  /** Writes record `i`'s direction, slot, result and product codes. */
  private codeInto(codes: Float64Array, i: number, r: UnitRecord): void {
    const at = COLUMNS * i;
    codes[at] = r.direction === 'input' ? 0 : 1;
    // A null slot (an empty one is null too) gets its own code, distinct from every slot string.
    codes[at + 1] = r.slot === null ? -1 : this.slots.code(r.slot);
    codes[at + RESULT] = this.results.code(r.result ?? UNKNOWN_RESULT);
    codes[at + PRODUCT] = this.productOf === undefined ? -1 : this.products.code(this.productOf(r.unitType));
  }

  /** A station's columns, made on its first record. */
  private columnsOf(id: string): SortedColumns<'hash53'> {
    let cols = this.stations.get(id);
    if (!cols) {
      // Direction, slot, result and product take a few combinations: held once each, a code per row.
      cols = new SortedColumns(COLUMNS, 2, { serials: 'hash53', repeated: COLUMNS });
      this.stations.set(id, cols);
    }
    return cols;
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

  /** A station's records (undefined when none are held). */
  rowsOf(stationId: string): SortedColumns<'hash53'> | undefined {
    return this.stations.get(stationKey(stationId));
  }

  /** Epoch ms of the newest unit record ever seen at the station. */
  lastUnitTime(stationId: string): number | undefined {
    return this.lastSeen.get(stationKey(stationId));
  }

  /** The result string of a result code. */
  resultOf(code: number): string {
    return this.results.values[code] ?? UNKNOWN_RESULT;
  }

  /** The `unit_type` label value of a product code; undefined when products are no label. */
  productOfCode(code: number): string | undefined {
    return this.products.values[code];
  }

  /** Bytes of the columns of every station (the typed arrays). */
  bytes(): number {
    let n = 0;
    for (const cols of this.stations.values()) n += cols.bytes();
    return n;
  }

  /** Total records held. */
  size(): number {
    let n = 0;
    for (const cols of this.stations.values()) n += cols.length;
    return n;
  }
}
