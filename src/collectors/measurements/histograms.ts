/**
 * The native histogram `station_measurement_value`: every numeric value received, per station,
 * measurement name and slot, cumulative since the exporter started, so that Prometheus can
 * answer histogram_quantile, histogram_fraction (the in-spec share) and histogram_count over any
 * range and summed over stations, lines or sites.
 *
 * A value counts once, when the store first holds its record, and only when the record is dated
 * from the exporter's start on: counting the first poll's history would make every restart look,
 * to increase() and rate(), like a reset followed by a day of values.
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
import { bySeriesOrder, type MeasurementSeries, stationKey } from './store.ts';

/** The histogram family (not among MEASUREMENT_FAMILIES, whose builder emits every one of them). */
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
  /** Starting resolution (2^schema buckets per doubling), -4 to 8. */
  readonly schema: number;
  /** Most buckets per series; beyond it the resolution halves. */
  readonly maxBuckets: number;
  /** Names that get a histogram. */
  readonly names: ReadonlySet<string>;
}

interface Entry {
  readonly name: string;
  readonly slot: string | null;
  readonly histogram: NativeHistogram;
  /** The newest value counted, for the exemplar. */
  newest?: { readonly value: number; readonly serial: string; readonly time: number };
}

/** Cumulative native histograms of measurement values. */
export class ValueHistograms {
  private readonly stations = new Map<string, Map<string, Entry>>();

  constructor(private readonly opts: ValueHistogramsOptions) {}

  /** Counts a record the store had not held (see MeasurementStore's `onNew`). */
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
    const id = stationKey(series.stationId);
    let entries = this.stations.get(id);
    if (!entries) {
      entries = new Map();
      this.stations.set(id, entries);
    }
    const key = series.slot === null ? series.name : `${series.name}\u0000${series.slot}`;
    let e = entries.get(key);
    if (!e) {
      const histogram = new NativeHistogram({ schema: this.opts.schema, maxBuckets: this.opts.maxBuckets });
      e = { name: series.name, slot: series.slot, histogram };
      entries.set(key, e);
    }
    return e;
  }

  /**
   * The family for the topology's stations, a sample per histogram, labelled like the other
   * measurement families (`bySlot` false leaves out the slot of a name measured in one slot
   * only). Stations that left the topology are forgotten. Built in slices of stations with
   * yields to the event loop between them: a snapshot of every histogram of 1,000 stations took
   * 25 ms in one piece.
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

  /** One station's samples, in series order, added to `into`. */
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

/** Stations whose histograms one slice of {@link ValueHistograms.family} snapshots (20 names each at most, in the bench). */
const STATIONS_PER_SLICE = 100;

/** The series' labels: the station's, `metric`, and `slot` unless it is null (no slot, or left out). */
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
