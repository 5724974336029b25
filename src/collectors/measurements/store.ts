/**
 * Rolling store of measurement records: one {@link SortedColumns} per station, name and slot, for
 * the longest window. About 17 bytes a record (docs/measurements.md, "Bytes per record"): the
 * serial only as a 32-bit hash, since no family reads it back.
 */

import { stationKey } from '../../model/keys.ts';
import { SortedColumns } from '../../records/columns.ts';
import { RecordGroups } from '../../records/groups.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import { getOrCreate } from '../../util/maps.ts';

/** Columns of a measurement series; the value is the record's key column. */
export const VALUE = 0;
/** Each record's own limits (NaN: none), so that every value is evaluated against its own. */
export const UPPER = 1;
export const LOWER = 2;
/** Attribute outcome of a non-numeric value: {@link PASS}, {@link FAIL}, or NaN for neither. */
export const ATTRIBUTE = 3;
export const PASS = 1;
const FAIL = 0;

/** Classifies a raw value as {@link PASS}, {@link FAIL} or NaN. */
export type AttributeOf = (raw: string) => number;

/** Classifier for `measurements.attributes` (values compared upper-cased, as the config stores them). */
export function attributeClassifier(pass: readonly string[], fail: readonly string[]): AttributeOf {
  const outcomes = new Map<string, number>([
    ...fail.map((v) => [v, FAIL] as const),
    ...pass.map((v) => [v, PASS] as const),
  ]);
  return (raw) => outcomes.get(raw.toUpperCase()) ?? Number.NaN;
}

/** Spec limits of one record. */
export interface Limits {
  readonly time: number;
  readonly upper?: number;
  readonly lower?: number;
}

/** One series: a station's records of one measurement name in one slot. */
export interface MeasurementSeries {
  readonly stationId: string;
  readonly name: string;
  readonly slot: string | null;
  unit: string;
  unitTime: number;
  /** Time of the newest record ever seen (outlives eviction, for `retention`). */
  lastTime: number;
  latest?: { readonly time: number; readonly value: number };
  /** The current limits: those of the newest numeric record that has one. */
  limits?: Limits;
  /** Once an attribute value was seen, its counts are exported, 0 included. */
  attributes: boolean;
  readonly rows: SortedColumns<'hash32'>;
}

const seriesKey = (name: string, slot: string | null) => (slot === null ? name : `${name}\u0000${slot}`);

const num = (v: number | undefined) => v ?? Number.NaN;

export { stationKey };

/** Called once per record the store did not hold: cumulative families count a record once. */
type OnNew = (series: MeasurementSeries, record: MeasurementRecord) => void;

/** Measurement records by station and series, deduplicated, sorted by time. */
export class MeasurementStore {
  private readonly stations = new Map<string, Map<string, MeasurementSeries>>();
  private readonly watchers: OnNew[] = [];

  constructor(private readonly attributeOf: AttributeOf = () => Number.NaN) {}

  /** Adds a watcher, called in the order added: how histograms and control charts take each record once. */
  watch(watcher: OnNew): void {
    this.watchers.push(watcher);
  }

  *allSeries(): IterableIterator<MeasurementSeries> {
    for (const bySeries of this.stations.values()) yield* bySeries.values();
  }

  /** Adds records, recognising those held; returns the number of new ones. */
  add(records: readonly MeasurementRecord[]): number {
    // Attribute outcomes, classified once: the series' flag and the rows both need them.
    const attributes = new Float64Array(records.length);
    const groups = new RecordGroups(records, {
      target: (r, i) => {
        const series = this.seriesFor(r);
        attributes[i] = note(series, r, this.attributeOf);
        return series;
      },
      value: (i, c) => (c === ATTRIBUTE ? (attributes[i] as number) : columnOf(records[i]!, c)),
    });
    const watchers = this.watchers;
    const notify = (series: MeasurementSeries, r: MeasurementRecord) => {
      for (const w of watchers) w(series, r);
    };
    return groups.mergeInto((series) => series.rows, watchers.length > 0 ? notify : undefined);
  }

  /** Drops records older than `t`; the series themselves stay (see {@link forgetIdleBefore}). */
  evictBefore(t: number): void {
    for (const bySeries of this.stations.values())
      for (const series of bySeries.values()) series.rows.evictBefore(t);
  }

  /** Forgets series that hold no records and whose last record is older than `t`. */
  forgetIdleBefore(t: number): void {
    for (const [stationId, bySeries] of this.stations) {
      for (const [key, series] of bySeries) {
        if (series.rows.length === 0 && series.lastTime < t) bySeries.delete(key);
      }
      if (bySeries.size === 0) this.stations.delete(stationId);
    }
  }

  /** Forgets every station not in `ids`. */
  retainStations(ids: ReadonlySet<string>): void {
    const keep = new Set([...ids].map(stationKey));
    for (const id of this.stations.keys()) if (!keep.has(id)) this.stations.delete(id);
  }

  /** A station's series, ordered by name and slot. */
  seriesOf(stationId: string): MeasurementSeries[] {
    const bySeries = this.stations.get(stationKey(stationId));
    if (!bySeries) return [];
    return [...bySeries.values()].sort(bySeriesOrder);
  }

  size(): number {
    let n = 0;
    for (const bySeries of this.stations.values()) for (const s of bySeries.values()) n += s.rows.length;
    return n;
  }

  /** Bytes of the typed columns (not the series' own objects). */
  bytes(): number {
    let n = 0;
    for (const bySeries of this.stations.values()) for (const s of bySeries.values()) n += s.rows.bytes();
    return n;
  }

  private seriesFor(r: MeasurementRecord): MeasurementSeries {
    const station = stationKey(r.stationId);
    const bySeries = getOrCreate(this.stations, station, () => new Map<string, MeasurementSeries>());
    const key = seriesKey(r.name, r.slot);
    let series = bySeries.get(key);
    if (!series) {
      series = {
        stationId: r.stationId,
        name: r.name,
        slot: r.slot,
        unit: r.unit,
        unitTime: Number.NEGATIVE_INFINITY,
        lastTime: Number.NEGATIVE_INFINITY,
        attributes: false,
        // Limits and attribute outcome repeat from record to record: held once per combination.
        rows: new SortedColumns(4, 1, { serials: 'hash32', repeated: 3 }),
      };
      bySeries.set(key, series);
    }
    return series;
  }
}

function columnOf(r: MeasurementRecord, c: number): number {
  if (c === VALUE) return num(r.value);
  return num(c === UPPER ? r.upper : r.lower);
}

/** Notes a record in its series; returns its attribute outcome. */
function note(series: MeasurementSeries, r: MeasurementRecord, attributeOf: AttributeOf): number {
  if (r.time >= series.unitTime) {
    series.unit = r.unit;
    series.unitTime = r.time;
  }
  track(series, r);
  const attribute = r.value === undefined ? attributeOf(r.raw) : Number.NaN;
  if (!Number.isNaN(attribute)) series.attributes = true;
  return attribute;
}

function track(series: MeasurementSeries, r: MeasurementRecord): void {
  if (r.time > series.lastTime) series.lastTime = r.time;
  if (r.value === undefined) return;
  // Equal times: the later answer wins, as it does for the rows.
  if (series.latest === undefined || r.time >= series.latest.time)
    series.latest = { time: r.time, value: r.value };
  const hasLimit = r.upper !== undefined || r.lower !== undefined;
  if (hasLimit && (series.limits === undefined || r.time >= series.limits.time)) {
    series.limits = {
      time: r.time,
      ...(r.upper !== undefined ? { upper: r.upper } : {}),
      ...(r.lower !== undefined ? { lower: r.lower } : {}),
    };
  }
}

/** By name, then slot, the slot-less one first. */
export function bySeriesOrder(
  a: { readonly name: string; readonly slot: string | null },
  b: { readonly name: string; readonly slot: string | null },
): number {
  return cmp(a.name, b.name) || cmp(a.slot ?? '', b.slot ?? '') || (a.slot === null ? -1 : 1);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
