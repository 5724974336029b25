/**
 * Rolling store of measurement records: one {@link SortedColumns} per station, measurement
 * name and slot, holding only the records inside the longest window.
 */

import { type Row, SortedColumns } from '../../records/columns.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';

/** Columns of a measurement series; the value is the record's key column. */
export const VALUE = 0;
export const UPPER = 1;
export const LOWER = 2;

/** One series: a station's records of one measurement name in one slot. */
export interface MeasurementSeries {
  readonly stationId: string;
  readonly name: string;
  readonly slot: string | null;
  /** Unit of measure of the newest record. */
  unit: string;
  unitTime: number;
  readonly rows: SortedColumns;
}

const seriesKey = (name: string, slot: string | null) => (slot === null ? name : `${name}\u0000${slot}`);

const num = (v: number | undefined) => v ?? Number.NaN;

/** Station ids are hexadecimal and compared case-insensitively, as the upstream does. */
export const stationKey = (id: string) => id.toLowerCase();

/** Measurement records by station and series, deduplicated, sorted by time. */
export class MeasurementStore {
  private readonly stations = new Map<string, Map<string, MeasurementSeries>>();

  /** Adds records (records already held are recognised); returns the number of new records. */
  add(records: readonly MeasurementRecord[]): number {
    const batches = new Map<MeasurementSeries, Row[]>();
    // One unit's visit yields a record per name with the same serial: share one string.
    const serials = new Map<string, string>();
    for (const r of records) {
      const series = this.seriesFor(r);
      let serial = serials.get(r.serial);
      if (serial === undefined) {
        serial = r.serial;
        serials.set(serial, serial);
      }
      if (r.time >= series.unitTime) {
        series.unit = r.unit;
        series.unitTime = r.time;
      }
      const rows = batches.get(series) ?? [];
      rows.push({ time: r.time, serial, values: [num(r.value), num(r.upper), num(r.lower)] });
      batches.set(series, rows);
    }
    let added = 0;
    for (const [series, rows] of batches) added += series.rows.merge(rows);
    return added;
  }

  /** Drops records older than `t`, and series left empty. */
  evictBefore(t: number): void {
    for (const [stationId, bySeries] of this.stations) {
      for (const [key, series] of bySeries) {
        series.rows.evictBefore(t);
        if (series.rows.length === 0) bySeries.delete(key);
      }
      if (bySeries.size === 0) this.stations.delete(stationId);
    }
  }

  /** Forgets every station not in `ids` (stations that left the topology). */
  retainStations(ids: ReadonlySet<string>): void {
    const keep = new Set([...ids].map(stationKey));
    for (const id of this.stations.keys()) if (!keep.has(id)) this.stations.delete(id);
  }

  /** A station's series, ordered by name and slot. */
  seriesOf(stationId: string): MeasurementSeries[] {
    const bySeries = this.stations.get(stationKey(stationId));
    if (!bySeries) return [];
    return [...bySeries.values()].sort(
      (a, b) => cmp(a.name, b.name) || cmp(a.slot ?? '', b.slot ?? '') || (a.slot === null ? -1 : 1),
    );
  }

  /** Total records held. */
  size(): number {
    let n = 0;
    for (const bySeries of this.stations.values()) for (const s of bySeries.values()) n += s.rows.length;
    return n;
  }

  private seriesFor(r: MeasurementRecord): MeasurementSeries {
    const station = stationKey(r.stationId);
    let bySeries = this.stations.get(station);
    if (!bySeries) {
      bySeries = new Map();
      this.stations.set(station, bySeries);
    }
    const key = seriesKey(r.name, r.slot);
    let series = bySeries.get(key);
    if (!series) {
      series = {
        stationId: r.stationId,
        name: r.name,
        slot: r.slot,
        unit: r.unit,
        unitTime: Number.NEGATIVE_INFINITY,
        rows: new SortedColumns(3, 1),
      };
      bySeries.set(key, series);
    }
    return series;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
