/**
 * The cumulative counter `station_units_total`: each record counted once, when first seen, and only
 * when dated from the exporter's start on (counting the first poll's history would make a restart
 * look like a reset followed by a day of units). A result filled in later keeps its first count.
 */
import {
  type Exemplar,
  exemplarOf,
  type Family,
  type LabelSet,
  type Sample,
} from '../../exposition/model.ts';
import { stationKey } from '../../model/keys.ts';
import type { Topology } from '../../model/topology.ts';
import type { UnitRecord } from '../../upstream/types.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import { getOrCreate } from '../../util/maps.ts';
import { kindLabels, STATIONS_PER_SLICE, UNIT_FAMILIES } from './families.ts';
import { kindKey, type UnitKind } from './stats.ts';
import { UNKNOWN_RESULT } from './store.ts';

interface Count extends UnitKind {
  count: number;
  newest?: { readonly serial: string; readonly time: number };
}

/** Counts of unit records since the exporter started. */
export class UnitTally {
  private readonly countFrom: number;
  private readonly productOf: ((unitType: string | null) => string) | undefined;
  private readonly stations = new Map<string, Map<string, Count>>();

  /** `productOf` absent: products are no label. */
  constructor({
    countFrom,
    productOf,
  }: {
    readonly countFrom: number;
    readonly productOf?: ((unitType: string | null) => string) | undefined;
  }) {
    this.countFrom = countFrom;
    this.productOf = productOf;
  }

  /** Epoch ms from which records count: every series' created time. */
  get createdMs(): number {
    return this.countFrom;
  }

  /** Counts a record the store had not held (see UnitStore's `onNew`). */
  count(r: UnitRecord): void {
    if (r.time < this.countFrom) return;
    const result = r.result ?? UNKNOWN_RESULT;
    const id = stationKey(r.stationId);
    const kinds = getOrCreate(this.stations, id, () => new Map<string, Count>());
    const kind: UnitKind =
      this.productOf === undefined
        ? { direction: r.direction, result }
        : { direction: r.direction, result, product: this.productOf(r.unitType) };
    const key = kindKey(kind);
    const c = getOrCreate(kinds, key, () => ({ ...kind, count: 0 }));
    c.count++;
    if (c.newest === undefined || r.time >= c.newest.time) c.newest = { serial: r.serial, time: r.time };
  }

  /**
   * Every kind counted at a station, and every kind `known` there at 0, so that a series exists
   * before its first increment. Stations that left the topology are forgotten.
   */
  async family(
    topology: Topology,
    known: (station: LabelSet) => Iterable<UnitKind>,
    { yielder }: { readonly yielder: LoopYielder },
  ): Promise<Family> {
    const samples: Sample[] = [];
    const present = new Set<string>();
    await yielder.forEachSlice(topology.stations, STATIONS_PER_SLICE, (slice) => {
      for (const station of slice) {
        present.add(stationKey(station.id));
        this.stationSamples(station, known(station.labels), samples);
      }
    });
    for (const id of this.stations.keys()) if (!present.has(id)) this.stations.delete(id);
    // Every series counts from the same start, also one first exported later at 1 or more.
    return { desc: UNIT_FAMILIES.total, samples, createdMs: this.countFrom };
  }

  private stationSamples(
    station: Topology['stations'][number],
    known: Iterable<UnitKind>,
    into: Sample[],
  ): void {
    const kinds = new Map(this.stations.get(stationKey(station.id)) ?? []);
    for (const k of known) {
      const key = kindKey(k);
      if (!kinds.has(key)) kinds.set(key, { ...k, count: 0 });
    }
    const ordered = [...kinds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, c] of ordered) {
      const labels = kindLabels(station.labels, c);
      const exemplar = exemplarFor(c);
      into.push(exemplar ? { labels, value: c.count, exemplar } : { labels, value: c.count });
    }
  }
}

function exemplarFor(c: Count): Exemplar | undefined {
  if (c.newest === undefined) return undefined;
  return exemplarOf({ unit_serial: c.newest.serial }, { value: 1, timestampMs: c.newest.time });
}
