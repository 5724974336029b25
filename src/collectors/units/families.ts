/** Units families: per station and window, records by direction and result, serials, latest unit time. */
import type { Family, FamilyDesc, LabelSet, Sample } from '../../exposition/model.ts';
import type { LoopYielder } from '../../util/loop-yield.ts';
import type { StationRecordCounts } from '../measurements/families.ts';
import type { UnitKind, UnitWindowCounts } from './stats.ts';

const STATION = ['site', 'line', 'station', 'station_id', 'group'];
const SOURCE = 'from the upstream GET /units records (both directions)';
const REFRESH = 'refreshed every units interval';
/** The label of a unit's product (products.label; absent without it). */
const PRODUCT_LABEL = 'unit_type';

/** The unit families, in exposition order. */
export const UNIT_FAMILIES = {
  records: {
    name: 'station_unit_records',
    kind: 'gauge',
    labels: [...STATION, 'direction', 'result', PRODUCT_LABEL, 'window'],
    help: `Unit records at the station over the window by direction (input, output) and result (unknown when null or empty), ${SOURCE}; retests count again, a record updated in place (same station, slot, serial, time and direction) counts once with its newest result; ${REFRESH}.`,
  },
  serials: {
    name: 'station_unit_serials',
    kind: 'gauge',
    labels: [...STATION, PRODUCT_LABEL, 'window'],
    help: `Distinct unit serials at the station over the window, ${SOURCE}; ${REFRESH}.`,
  },
  last: {
    name: 'station_last_unit_timestamp_seconds',
    kind: 'gauge',
    unit: 'seconds',
    labels: STATION,
    help: `Time (Unix seconds) of the latest unit record seen at the station, ${SOURCE}; kept after the record leaves every window, so that a silent station can be alerted on; ${REFRESH}.`,
  },
  total: {
    name: 'station_units_total',
    kind: 'counter',
    labels: [...STATION, 'direction', 'result', PRODUCT_LABEL],
    help: `Unit records counted once each as they first arrive, by direction and result (the result first seen; unknown when null or empty), ${SOURCE}, for records dated from the exporter's start on (a restart starts again at 0); increase() over any range gives that range's counts; exemplar: the serial of the newest unit counted (OpenMetrics and protobuf); ${REFRESH}.`,
  },
  future: {
    name: 'station_unit_future_records_total',
    kind: 'counter',
    labels: STATION,
    help: `Unit records dated more than upstream.max_future_skew after the poll, skipped from every count, ${SOURCE}, counted since the exporter started; ${REFRESH}.`,
  },
  late: {
    name: 'station_unit_late_records_total',
    kind: 'counter',
    labels: STATION,
    help: `Unit records that arrived later than units.overlap (by time_inserted, or found only by the re-read sweep), ${SOURCE}, counted since the exporter started; ${REFRESH}.`,
  },
} satisfies Record<string, FamilyDesc>;

/** One station's unit statistics. */
export interface UnitResult {
  readonly station: LabelSet;
  /** Epoch ms of the latest unit record seen; undefined when none was ever seen. */
  readonly lastUnitTime?: number;
  readonly windows: ReadonlyArray<{ readonly window: string; readonly counts: UnitWindowCounts }>;
}

/** The kinds of record (direction, result, product) seen in any window of a station, by key. */
export function kindsOf(r: UnitResult): Map<string, UnitKind> {
  const kinds = new Map<string, UnitKind>();
  for (const w of r.windows) for (const [k, v] of w.counts.records) kinds.set(k, v);
  return kinds;
}

/** The products seen in any window of a station, in order; undefined when products are no label. */
function productsOf(r: UnitResult): string[] | undefined {
  let products: Set<string> | undefined;
  for (const w of r.windows) {
    const by = w.counts.serialsByProduct;
    if (by === undefined) continue;
    products ??= new Set();
    for (const p of by.keys()) products.add(p);
  }
  return products === undefined ? undefined : [...products].sort();
}

/** A kind's labels on the station's (and the window's, when given). */
export function kindLabels(station: LabelSet, k: UnitKind, window?: string): LabelSet {
  const base = station.with('direction', k.direction).with('result', k.result);
  const labels = k.product === undefined ? base : base.with(PRODUCT_LABEL, k.product);
  return window === undefined ? labels : labels.with('window', window);
}

/** Stations turned into series between two yields to the event loop. */
export const STATIONS_PER_SLICE = 50;

/** What {@link unitFamilies} adds to the results, and how it yields. */
export interface UnitFamiliesOptions {
  readonly stations: readonly StationRecordCounts[];
  /** The skipped-record counters' created time. */
  readonly countersFrom: number;
  /** 1,000 stations make some 20,000 series, over 50 ms in one go. */
  readonly yielder: LoopYielder;
}

/** A kind seen in any window of a station is exported in every window, 0 where absent: no flapping series. */
export async function unitFamilies(
  results: readonly UnitResult[],
  { stations, countersFrom, yielder }: UnitFamiliesOptions,
): Promise<Family[]> {
  const records: Sample[] = [];
  const serials: Sample[] = [];
  const last: Sample[] = [];
  await yielder.forEachSlice(results, STATIONS_PER_SLICE, (slice) => {
    for (const r of slice) {
      stationSamples(r, { records, serials });
      if (r.lastUnitTime !== undefined) last.push({ labels: r.station, value: r.lastUnitTime / 1000 });
    }
  });
  return [
    { desc: UNIT_FAMILIES.records, samples: records },
    { desc: UNIT_FAMILIES.serials, samples: serials },
    { desc: UNIT_FAMILIES.last, samples: last },
    ...(['future', 'late'] as const).map((k) => ({
      desc: UNIT_FAMILIES[k],
      samples: stations.map((s) => ({ labels: s.station, value: s[k] })),
      createdMs: countersFrom,
    })),
  ];
}

/** A station's record and serial samples, every kind and product in every window. */
function stationSamples(r: UnitResult, into: { records: Sample[]; serials: Sample[] }): void {
  const ordered = [...kindsOf(r)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const products = productsOf(r);
  for (const { window, counts } of r.windows) {
    for (const [key, kind] of ordered)
      into.records.push({
        labels: kindLabels(r.station, kind, window),
        value: counts.records.get(key)?.count ?? 0,
      });
    if (products === undefined) {
      into.serials.push({ labels: r.station.with('window', window), value: counts.serials });
      continue;
    }
    for (const p of products)
      into.serials.push({
        labels: r.station.with(PRODUCT_LABEL, p).with('window', window),
        value: counts.serialsByProduct?.get(p) ?? 0,
      });
  }
}
