/**
 * Rolling store of unit records: one {@link SortedColumns} per station, holding only the
 * records inside the longest window, plus each station's latest unit time, which outlives
 * eviction so that a station silent for longer than every window can still be alerted on.
 * A record costs about 13 bytes: its time (4), a 53-bit hash of its serial (8), enough to count
 * distinct serials (no family reads one back), and a one-byte code of its direction, slot and
 * result; docs/measurements.md, "Bytes per record".
 */

import { stationKey } from '../../model/keys.ts';
import { type RowBatch, SortedColumns } from '../../records/columns.ts';
import type { UnitRecord } from '../../upstream/types.ts';

/**
 * Columns of a unit row: direction, slot (column 1, which nothing reads back) and result.
 * Direction and slot, with station, time and serial, identify a record; the result is not part
 * of the key, so a record whose result is filled in later replaces the earlier version instead
 * of counting twice.
 */
export const DIRECTION = 0;
export const RESULT = 2;

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
   * is merged (in the order given): the hook of the cumulative unit counter, which must count a record once however often it is fetched again.
   */
  readonly onNew?: (record: UnitRecord) => void;
}

/** One station's share of an add, read by its columns as rows: direction, slot and result codes. */
class StationBatch implements RowBatch {
  readonly #records: UnitRecord[] = [];
  /** Three codes per record (see {@link UnitStore}'s columns), in one array: no array per record. */
  readonly #codes: number[] = [];

  push(r: UnitRecord, direction: number, slot: number, result: number): void {
    this.#records.push(r);
    this.#codes.push(direction, slot, result);
  }

  get length(): number {
    return this.#records.length;
  }

  record(j: number): UnitRecord {
    return this.#records[j] as UnitRecord;
  }

  time(j: number): number {
    return this.record(j).time;
  }

  serial(j: number): string {
    return this.record(j).serial;
  }

  value(j: number, c: number): number {
    return this.#codes[3 * j + c] ?? Number.NaN;
  }
}

/** Unit records by station, deduplicated, sorted by time. */
export class UnitStore {
  private readonly onNew: UnitStoreOptions['onNew'];
  private readonly stations = new Map<string, SortedColumns<'hash53'>>();
  private readonly lastSeen = new Map<string, number>();
  private readonly results = new Palette();
  private readonly slots = new Palette();

  constructor(opts: UnitStoreOptions = {}) {
    this.onNew = opts.onNew;
  }

  /** Adds records (records already held are recognised); returns the number of new records. */
  add(records: readonly UnitRecord[]): number {
    let added = 0;
    for (const [id, batch] of this.byStation(records)) added += this.merge(id, batch);
    return added;
  }

  /** Records by station, as batches of rows; notes each station's latest unit time. */
  private byStation(records: readonly UnitRecord[]): Map<string, StationBatch> {
    const batches = new Map<string, StationBatch>();
    for (const r of records) {
      const id = stationKey(r.stationId);
      let batch = batches.get(id);
      if (!batch) {
        batch = new StationBatch();
        batches.set(id, batch);
      }
      batch.push(
        r,
        r.direction === 'input' ? 0 : 1,
        // A null slot (an empty one is null too) gets its own code, distinct from every slot string.
        r.slot === null ? -1 : this.slots.code(r.slot),
        this.results.code(r.result ?? UNKNOWN_RESULT),
      );
      if (r.time > (this.lastSeen.get(id) ?? Number.NEGATIVE_INFINITY)) this.lastSeen.set(id, r.time);
    }
    return batches;
  }

  /** Merges one station's batch into its columns; returns the number of new records. */
  private merge(id: string, batch: StationBatch): number {
    let cols = this.stations.get(id);
    if (!cols) {
      // Direction, slot and result take a few combinations: held once each, a code per row.
      cols = new SortedColumns(3, 2, { serials: 'hash53', repeated: 3 });
      this.stations.set(id, cols);
    }
    const onNew = this.onNew;
    // Direction and slot are the key columns, with time and serial.
    return cols.merge(batch, onNew ? { onNew: (j) => onNew(batch.record(j)) } : {});
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
