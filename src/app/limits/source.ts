/**
 * The points a study reads: the chosen stations' records of the chosen names over the period,
 * fetched through the exporter's own client and record fetch, in one time-ordered series per
 * chart as the exporter keys its charts (station, name, slot).
 */
import { topologyCollector } from '../../collectors/topology/index.ts';
import type { Config } from '../../config/schema.ts';
import { stationKey } from '../../model/keys.ts';
import type { StationNode } from '../../model/topology.ts';
import type { MeasurementRecord } from '../../upstream/types.ts';
import { LoopYielder } from '../../util/loop-yield.ts';
import { commandContext, fetchWindow, metricsSource, recordingClient } from '../record-upstream.ts';

/** Which charts a study reads. Empty lists choose everything. */
export interface StudySelection {
  /** Exact measurement names. */
  readonly names: readonly string[];
  /** Station ids or names. */
  readonly stations: readonly string[];
  /** Line ids or names. */
  readonly lines: readonly string[];
  readonly fromMs: number;
  readonly toMs: number;
}

/** The points of one chart, time-ordered. */
export interface ChartSeries {
  readonly station: StationNode;
  readonly name: string;
  readonly slot: string | null;
  readonly times: number[];
  readonly values: number[];
}

/** What was read. */
export interface StudyData {
  readonly series: ChartSeries[];
  /** Requests that failed for good: the series may miss points. */
  readonly failures: number;
}

function chosen(station: StationNode, sel: StudySelection): boolean {
  const is = (wanted: readonly string[], id: string, name: string) =>
    wanted.length === 0 || wanted.some((w) => w.toLowerCase() === id.toLowerCase() || w === name);
  return is(sel.stations, station.id, station.name) && is(sel.lines, station.line.id, station.line.name);
}

/** Collects records into series, each record once (a truncated answer is asked again in parts). */
class SeriesBuilder {
  readonly #series = new Map<string, ChartSeries & { readonly points: Array<[number, number]> }>();
  readonly #seen = new Set<string>();
  readonly #stations: ReadonlyMap<string, StationNode>;

  constructor(stations: readonly StationNode[]) {
    this.#stations = new Map(stations.map((s) => [stationKey(s.id), s]));
  }

  add(r: MeasurementRecord): void {
    if (r.value === undefined) return;
    const station = this.#stations.get(stationKey(r.stationId));
    if (station === undefined) return;
    const id = `${stationKey(r.stationId)}|${r.time}|${r.serial}|${r.name}|${r.slot}`;
    if (this.#seen.has(id)) return;
    this.#seen.add(id);
    const key = `${stationKey(r.stationId)}\u0000${r.name}\u0000${r.slot ?? ''}`;
    let s = this.#series.get(key);
    if (s === undefined) {
      s = { station, name: r.name, slot: r.slot, times: [], values: [], points: [] };
      this.#series.set(key, s);
    }
    s.points.push([r.time, r.value]);
  }

  /** The series, each in time order (ties in arrival order), ordered by line, station, name, slot. */
  series(): ChartSeries[] {
    const out: ChartSeries[] = [];
    for (const { points, ...s } of this.#series.values()) {
      points.sort((a, b) => a[0] - b[0]);
      for (const [t, v] of points) {
        s.times.push(t);
        s.values.push(v);
      }
      out.push(s);
    }
    const order = (s: ChartSeries) => [
      s.station.line.name,
      s.station.position,
      s.station.name,
      s.name,
      s.slot ?? '',
    ];
    return out.sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return 0;
    });
  }
}

/** Reads the chosen stations' records of `names` over the period from the config's upstream. */
export async function readStudyData(
  config: Config,
  sel: StudySelection & { readonly names: readonly string[] },
  signal?: AbortSignal,
): Promise<StudyData> {
  const yielder = new LoopYielder();
  const client = recordingClient(config, yielder);
  try {
    const ctx = commandContext(config, client, yielder);
    const { topology } = await topologyCollector.createJob(ctx).poll({ now: new Date(sel.toMs), signal });
    const stations = topology.stations.filter((s) => chosen(s, sel));
    const builder = new SeriesBuilder(stations);
    const result = await fetchWindow(config, metricsSource(client, [...sel.names]), {
      ...sel,
      stationIds: stations.map((s) => s.id),
      signal,
      onRecords: (records) => {
        for (const r of records) if (r.time >= sel.fromMs && r.time < sel.toMs) builder.add(r);
      },
    });
    return { series: builder.series(), failures: result.failures };
  } finally {
    await client.close();
  }
}
