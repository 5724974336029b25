/**
 * The native histogram `station_measurement_value`, cumulative since the exporter started. A value
 * counts once, when the store first holds it, and only when dated from the start on: counting the
 * first poll's history would make every restart look like a reset followed by a day of values.
 */
import {
  exemplarOf,
  type Family,
  type FamilyDesc,
  type LabelSet,
  type Sample,
} from '../../exposition/model.ts';
import { NativeHistogram } from '../../exposition/native-histogram.ts';
import type { Topology } from '../../model/topology.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import { getOrCreate } from '../../util/maps.ts';
import { bySeriesOrder, type MeasurementSeries, stationKey } from './store.ts';

/** Not among MEASUREMENT_FAMILIES, whose builder emits every one of them. */
export const VALUE_HISTOGRAM: FamilyDesc = {
  name: 'station_measurement_value',
  kind: 'histogram',
  native: true,
  labels: ['site', 'line', 'station', 'station_id', 'group', 'metric', 'slot'],
  help: `Native histogram of every numeric value of the measurement, from the upstream GET /metrics records, counted once each as they first arrive, for records dated from the exporter's start on (a restart starts again at 0), for the first measurements.histograms.max_names names; protobuf scrapes only (text and OpenMetrics leave it out); exemplar: the newest value with its unit_serial; refreshed every measurements interval.`,
};

/** Options of {@link ValueHistograms}. */
export interface ValueHistogramsOptions {
  /** Epoch ms from which values count: the exporter's start. */
  readonly countFrom: number;
  /** Starting resolution (2^schema buckets per doubling). */
  readonly schema: number;
  /** Beyond it the resolution halves. */
  readonly maxBuckets: number;
  readonly names: ReadonlySet<string>;
}

interface Entry {
  readonly name: string;
  readonly slot: string | null;
  readonly histogram: NativeHistogram;
  newest?: { readonly value: number; readonly serial: string; readonly time: number };
}

/** Cumulative native histograms of measurement values. */
export class ValueHistograms {
  private readonly stations = new Map<string, Map<string, Entry>>();

  constructor(private readonly opts: ValueHistogramsOptions) {}

  /** Counts a record the store had not held (see MeasurementStore's `watch`). */
  observe(series: MeasurementSeries, r: MeasurementRecord): void {
    if (r.value === undefined || !this.opts.names.has(series.name)) return;
    const e = this.entryOf(series);
    // A value from before the start creates the series at 0 without counting: it then exists
    // before its first counted value, so that rate() and increase() see that one too.
    if (r.time < this.opts.countFrom || !e.histogram.observe(r.value)) return;
    if (e.newest === undefined || r.time >= e.newest.time)
      e.newest = { value: r.value, serial: r.serial, time: r.time };
  }

  private entryOf(series: MeasurementSeries): Entry {
    const entries = getOrCreate(this.stations, stationKey(series.stationId), () => new Map<string, Entry>());
    const key = series.slot === null ? series.name : `${series.name}\u0000${series.slot}`;
    return getOrCreate(entries, key, () => {
      const histogram = new NativeHistogram({ schema: this.opts.schema, maxBuckets: this.opts.maxBuckets });
      return { name: series.name, slot: series.slot, histogram };
    });
  }

  /**
   * Labelled like the other measurement families; forgets stations that left the topology. Built in
   * slices: every histogram of 1,000 stations took 25 ms in one piece.
   */
  async family(
    topology: Topology,
    opts: { readonly bySlot: boolean; readonly yielder: LoopYielder },
  ): Promise<Family> {
    const samples: Sample[] = [];
    const present = new Set<string>();
    await opts.yielder.forEachSlice(topology.stations, STATIONS_PER_SLICE, (slice) => {
      for (const station of slice) {
        const id = stationKey(station.id);
        present.add(id);
        const entries = this.stations.get(id);
        if (entries) this.stationSamples(station.labels, entries, { bySlot: opts.bySlot, into: samples });
      }
    });
    for (const id of this.stations.keys()) if (!present.has(id)) this.stations.delete(id);
    return { desc: VALUE_HISTOGRAM, samples, createdMs: this.opts.countFrom };
  }

  private stationSamples(
    station: LabelSet,
    entries: ReadonlyMap<string, Entry>,
    { bySlot, into }: { readonly bySlot: boolean; readonly into: Sample[] },
  ): void {
    const ordered = [...entries.values()].sort(bySeriesOrder);
    const slotsOf = new Map<string, number>();
    for (const e of ordered) slotsOf.set(e.name, (slotsOf.get(e.name) ?? 0) + 1);
    for (const e of ordered) {
      const single = !bySlot && slotsOf.get(e.name) === 1;
      into.push(sampleOf(e, labelsOf(station, e.name, single ? null : e.slot)));
    }
  }
}

/** Stations per slice of {@link ValueHistograms.family} (20 names each at most, in the bench). */
const STATIONS_PER_SLICE = 100;

function labelsOf(station: LabelSet, name: string, slot: string | null): LabelSet {
  const named = station.with('metric', name);
  return slot === null ? named : named.with('slot', slot);
}

function sampleOf(e: Entry, labels: LabelSet): Sample {
  const snapshot = e.histogram.snapshot();
  const exemplar =
    e.newest &&
    exemplarOf({ unit_serial: e.newest.serial }, { value: e.newest.value, timestampMs: e.newest.time });
  return exemplar
    ? { labels, value: snapshot.count, histogram: snapshot, exemplar }
    : { labels, value: snapshot.count, histogram: snapshot };
}
