/**
 * The measurements collector's job: fetch new measurement records incrementally, keep the
 * records of the longest window in memory, and publish per-window statistics.
 */
import { type MeasurementResult, measurementFamilies } from '../collectors/measurements.ts';
import type { WindowSpec } from '../config/schema.ts';
import { longestWindowMs, windowBounds } from '../config/windows.ts';
import { MeasurementStore } from '../store/measurements.ts';
import { latestMeasurement, measurementWindow } from '../store/stats.ts';
import type { Topology } from '../topology/types.ts';
import { windowParams } from '../upstream/client.ts';
import type { MeasurementRecord } from '../upstream/types.ts';
import { forEachSlice, yieldToLoop } from '../util/cooperative.ts';
import { fetchIncremental, type RecordSource, reportFetch } from './fetch-records.ts';
import type { CollectorJob, JobDeps } from './job.ts';

/** Creates the measurements job. */
export function createMeasurementsJob(deps: JobDeps): CollectorJob {
  const { config, client, self } = deps;
  const settings = config.measurements;
  const names = settings.names.map((n) => n.name);
  const wanted = new Set(names);
  const mins = new Map(settings.names.map((n) => [n.name, n.minSamples]));
  const minSamples = (name: string) => mins.get(name) ?? settings.minSamples;
  const store = new MeasurementStore();
  let watermarks = new Map<string, number>();
  const source: RecordSource<MeasurementRecord> = {
    params: (q) => [...windowParams(q), ...names.map((n): [string, string] => ['names', n])],
    url: (params) => client.url('/metrics', params),
    fetch: (q) => client.metrics({ ...q, names }),
  };
  return {
    name: 'measurements',
    intervalMs: settings.intervalMs,
    async poll({ topology, now, signal }) {
      const nowMs = now.getTime();
      const retainFrom = nowMs - longestWindowMs(config.windows, now);
      const ids = topology.stations.map((s) => s.id);
      store.retainStations(new Set(ids));
      const fetched = await fetchIncremental({
        source,
        stationIds: ids,
        watermarks,
        now: nowMs,
        retainFrom,
        overlapMs: settings.overlapMs,
        maxUrlLength: config.upstream.maxUrlLength,
        maxRecords: settings.maxRecordsPerRequest,
        // The upstream filters by name; a record of another name would have no config.
        onRecords: (records) =>
          forEachSlice(records, STORE_SLICE, (slice) => store.add(slice.filter((r) => wanted.has(r.name)))),
        signal,
      });
      watermarks = fetched.watermarks;
      store.evictBefore(retainFrom);
      self.setUpstreamUp(fetched.failures < fetched.requests || fetched.requests === 0);
      reportFetch(deps.logger, 'measurements', fetched, store.size());
      return {
        families: measurementFamilies(
          await measurementResults(topology, store, config.windows, now, minSamples),
        ),
        complete: fetched.failures === 0,
      };
    },
  };
}

/** Records added to the store between two turns of the event loop. */
const STORE_SLICE = 5000;
/** Stations whose statistics are computed between two turns of the event loop. */
const STATIONS_PER_TURN = 25;

/** Every held series of every station in the topology, with its statistics per window. */
async function measurementResults(
  topology: Topology,
  store: MeasurementStore,
  windows: readonly WindowSpec[],
  now: Date,
  minSamples: (name: string) => number,
): Promise<MeasurementResult[]> {
  const bounds = windows.map((w) => ({ window: w.name, ...windowBounds(w, now) }));
  const out: MeasurementResult[] = [];
  for (const [i, station] of topology.stations.entries()) {
    if (i > 0 && i % STATIONS_PER_TURN === 0) await yieldToLoop();
    for (const series of store.seriesOf(station.id)) {
      out.push({
        station: station.labels,
        name: series.name,
        slot: series.slot,
        unit: series.unit,
        minSamples: minSamples(series.name),
        latest: latestMeasurement(series.rows),
        windows: bounds.map((b) => ({
          window: b.window,
          stats: measurementWindow(series.rows, b.from.getTime(), b.to.getTime()),
        })),
      });
    }
  }
  return out;
}
